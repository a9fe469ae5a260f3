// The executable a fuzzer reads beside its inputs (typing_fuzz,
// core_model_fuzz, restore_fuzz): GOHEAP_FUZZ_EXE, as fuzz/run.sh sets it.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace goheap::fuzz {

// GOHEAP_FUZZ_EXE, or null when it is not set: then `fuzzer` says so on
// stderr, and skips every input.
inline const char* fuzzExecutable(const char* fuzzer) {
  const char* exe = std::getenv("GOHEAP_FUZZ_EXE");
  if (exe == nullptr) {
    std::fprintf(stderr, "%s: GOHEAP_FUZZ_EXE is not set; inputs are skipped\n", fuzzer);
  }
  return exe;
}

}  // namespace goheap::fuzz
