// libFuzzer entry for the DWARF typing pass and what reads typed memory
// (field decoding, field paths, type names): a real executable with DWARF is
// bound once to the dump it wrote, and every input (that dump, mutated) is
// read, analysed and typed with it. A dump's words are the attacker's: the
// typing must stay inside objects and segments whatever they say.
//
// GOHEAP_FUZZ_EXE names the executable, GOHEAP_FUZZ_EXE.dump must be its
// dump (fuzz/run.sh uses the zoo test program's); without it every input is
// skipped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>

#include "analysis/duplicates.h"
#include "analysis/snapshot.h"
#include "analysis/suspects.h"
#include "analysis/waste.h"
#include "dump/reader.h"
#include "fuzz_exe.h"
#include "query/open.h"
#include "typing/heap_types.h"
#include "typing/values.h"

namespace {

// The executable, bound once to the dump it wrote (binding checks the
// frames, which mutated dumps would fail; the typing only needs the bias).
struct Bound {
  std::shared_ptr<const goheap::query::Session> original;
};

Bound* bound = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* exe = goheap::fuzz::fuzzExecutable("typing_fuzz");
  if (exe == nullptr) return 0;
  // Read and bound as every front end does (query::open); each input then
  // borrows the executable.
  goheap::NullSink quiet;
  auto session = goheap::query::open(
      goheap::query::Source::fromArgument(std::string(exe) + ".dump", exe), quiet);
  if (!session) {
    std::fprintf(stderr, "typing_fuzz: %s\n", session.error().message().c_str());
    std::abort();
  }
  const goheap::analysis::Snapshot& opened = (*session)->snapshot();
  if (opened.exe == nullptr || opened.exe->debugInfo() == nullptr) {
    std::fprintf(stderr, "typing_fuzz: %s: %s%s\n", exe, opened.exe_problem.c_str(),
                 opened.types_problem.c_str());
    std::abort();
  }
  bound = new Bound{*session};
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (bound == nullptr) return 0;
  auto d =
      goheap::dump::readDump(goheap::MappedFile::borrow(std::span<const uint8_t>(data, size)), {});
  if (!d) return 0;
  // The typing stage is what is fuzzed here, with the executable bound
  // above (binding a mutated dump again would fail its frame check): so
  // this input is analysed by the stages below query::open.
  auto snap = goheap::analysis::buildSnapshot(d.take());
  if (!snap) return 0;
  const goheap::analysis::Snapshot& s = **snap;
  const goheap::binding::BoundExecutable& exe = *bound->original->snapshot().exe;
  const goheap::bin::DebugInfo& dwarf = *exe.debugInfo();
  goheap::typing::HeapTypes types = goheap::typing::typeHeap(s.model, s.heap, exe, dwarf);
  uint64_t sum = 0;
  for (goheap::NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!types.typed(o)) continue;
    sum += goheap::typing::typeName(types, o, dwarf, exe, s.model).size();
    for (const goheap::typing::FieldValue& f :
         goheap::typing::decodeFields(s.model, s.heap, types, dwarf, exe, o, 16)) {
      sum += f.value.size();
    }
    sum += goheap::typing::slotPath(s.model, s.heap, types, dwarf, exe, o, 8).size();
  }
  if (sum == UINT64_MAX) std::abort();  // keeps the work from being optimized away

  // What reads typed memory through string, slice and map headers (dups,
  // waste) and groups by type (suspects): the snapshot borrows the bound
  // executable for the run and hands it back.
  goheap::analysis::Snapshot& typed = **snap;
  typed.types = std::make_unique<goheap::typing::HeapTypes>(std::move(types));
  typed.exe = bound->original->snapshot().exe;
  goheap::analysis::findDuplicates(typed, goheap::analysis::DupOptions{});
  goheap::analysis::findWaste(typed, goheap::analysis::WasteOptions{});
  goheap::analysis::SuspectOptions suspects;
  suspects.threshold_percent = 1;
  goheap::analysis::leakSuspects(typed, suspects);
  return 0;
}
