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
#include "typing/heap_types.h"
#include "typing/values.h"

namespace {

// The executable, bound once to the dump it wrote (binding checks the
// frames, which mutated dumps would fail; the typing only needs the bias).
struct Bound {
  std::unique_ptr<goheap::analysis::Snapshot> original;
};

Bound* bound = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* exe = std::getenv("GOHEAP_FUZZ_EXE");
  if (exe == nullptr) {
    std::fprintf(stderr, "typing_fuzz: GOHEAP_FUZZ_EXE is not set; inputs are skipped\n");
    return 0;
  }
  auto snap = goheap::analysis::loadSnapshot(std::string(exe) + ".dump");
  if (!snap) {
    std::fprintf(stderr, "typing_fuzz: %s\n", snap.error().message().c_str());
    std::abort();
  }
  if (goheap::Status s = goheap::analysis::attachExecutable(**snap, exe); !s) {
    std::fprintf(stderr, "typing_fuzz: %s\n", s.error().message().c_str());
    std::abort();
  }
  if ((*snap)->exe->debugInfo() == nullptr) {
    std::fprintf(stderr, "typing_fuzz: %s has no DWARF\n", exe);
    std::abort();
  }
  bound = new Bound{snap.take()};
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (bound == nullptr) return 0;
  auto d =
      goheap::dump::readDump(goheap::MappedFile::borrow(std::span<const uint8_t>(data, size)), {});
  if (!d) return 0;
  auto snap = goheap::analysis::analyseDump(d.take());
  if (!snap) return 0;
  const goheap::analysis::Snapshot& s = **snap;
  const goheap::bin::BoundExecutable& exe = *bound->original->exe;
  const goheap::bin::DebugInfo& dwarf = *exe.debugInfo();
  goheap::typing::HeapTypes types = goheap::typing::typeHeap(s.dump, s.heap, exe, dwarf);
  uint64_t sum = 0;
  for (goheap::NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!types.typed(o)) continue;
    sum += goheap::typing::typeName(types, o, dwarf, exe, s.dump).size();
    for (const goheap::typing::FieldValue& f :
         goheap::typing::decodeFields(s.dump, s.heap, types, dwarf, exe, o, 16)) {
      sum += f.value.size();
    }
    sum += goheap::typing::slotPath(s.dump, s.heap, types, dwarf, exe, o, 8).size();
  }
  if (sum == UINT64_MAX) std::abort();  // keeps the work from being optimized away

  // What reads typed memory through string, slice and map headers (dups,
  // waste) and groups by type (suspects): the snapshot borrows the bound
  // executable for the run and hands it back.
  goheap::analysis::Snapshot& typed = **snap;
  typed.types = std::make_unique<goheap::typing::HeapTypes>(std::move(types));
  typed.exe = std::move(bound->original->exe);
  goheap::analysis::findDuplicates(typed, goheap::analysis::DupOptions{});
  goheap::analysis::findWaste(typed, goheap::analysis::WasteOptions{});
  goheap::analysis::SuspectOptions suspects;
  suspects.threshold_percent = 1;
  goheap::analysis::leakSuspects(typed, suspects);
  bound->original->exe = std::move(typed.exe);
  return 0;
}
