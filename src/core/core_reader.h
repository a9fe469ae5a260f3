// core::CoreReader: the stages of reading a Go process from its core, each
// callable on its own and returning what it found, so that readCoreModel
// (every stage, into the model, core_model.h) and `goheap core-info` (the
// stages it is asked for, printed) run the same steps.
//
// Before the reader come the core (core_file.h) and its executable, found
// (find_executable.h) and checked to belong to it, which gives the load bias
// (executable_match.h). Opening the reader then reads the runtime's struct
// layouts and globals: the executable's DWARF, or for a stripped one the
// committed table with the globals found in memory (runtime_types.h), and
// from them where the spans and the heap bits are (runtime_layout.h). Each
// later stage reads the process's memory with those:
//
//   walkHeap          the heap's objects, from the runtime's spans
//   readPointerMasks  each object's pointer words, from the GC metadata
//   readGoroutines    the goroutines, their stacks unwound
//   scanStacks        each frame's live pointer words, defers and panics
//   readDataRoots, readSpecials, readMemProfile, readItabs, readMemStats
//
// A stage does not depend on the order the others ran in, only on what it
// is given; the core, the executable and the runtime's types given must
// outlive the reader.
#pragma once

#include <cstdint>
#include <memory>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/goroutines.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/memstats.h"
#include "core/pointer_masks.h"
#include "core/roots.h"
#include "core/runtime_layout.h"
#include "core/runtime_types.h"
#include "core/stack_scan.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

class CoreReader {
 public:
  // A reader of the process in `core`, whose executable `exe` was loaded at
  // its link-time addresses plus `bias`, with the runtime's types read from
  // `exe` (runtimeTypes). An Error when neither its DWARF nor a layout table
  // gives them.
  static Expected<CoreReader> open(const CoreFile& core, const bin::Binary& exe, uint64_t bias);
  // The same with the runtime's types already read, for a caller that reads
  // many cores of one executable (the fuzzer).
  CoreReader(const CoreFile& core, const bin::Binary& exe, uint64_t bias,
             const bin::DebugInfo& runtime_types);

  const CoreFile& core() const { return core_; }
  const bin::Binary& executable() const { return exe_; }
  uint64_t bias() const { return bias_; }
  // The process's memory: the core's, and the executable's read-only
  // segments where the core leaves them out.
  const MemoryImage& memory() const { return mem_; }
  // The runtime's types: the executable's DWARF or the table's.
  const bin::DebugInfo& runtimeTypes() const { return *types_; }
  // Where the runtime keeps its spans and its heap bits, or why that could
  // not be read.
  const Expected<RuntimeLayout>& spanLayout() const { return span_layout_; }
  const Expected<HeapBitsLayout>& heapBitsLayout() const { return heap_bits_layout_; }

  // Each reader tells what it could not read, but could do without, to
  // `told` as warnings.

  // The heap's objects; an Error when the span layout was not read or
  // runtime.mheap_'s spans cannot be (heap_walk.h).
  Expected<HeapObjects> walkHeap(Sink& told) const;
  // The pointer words of each of `heap`'s objects; an Error only when the
  // span or heap bits layout was not read (pointer_masks.h).
  Expected<PointerMasks> readPointerMasks(const HeapObjects& heap, Sink& told) const;
  Expected<Goroutines> readGoroutines(Sink& told) const;
  // The stacks of `gs`, read by this reader's readGoroutines.
  Expected<StackScan> scanStacks(const Goroutines& gs, Sink& told) const;
  Expected<DataRoots> readDataRoots(Sink& told) const;
  // Finalizers, cleanups and profiled objects; an Error too when the span
  // layout was not read.
  Expected<Specials> readSpecials(Sink& told) const;
  Expected<MemProfile> readMemProfile(const Specials& specials, Sink& told) const;
  Expected<Itabs> readItabs(Sink& told) const;
  Expected<CoreMemStats> readMemStats(const HeapObjects& heap, Sink& told) const;

 private:
  CoreReader(const CoreFile& core, const bin::Binary& exe, uint64_t bias,
             std::unique_ptr<const RuntimeTypes> owned_types, const bin::DebugInfo& types);

  const CoreFile& core_;
  const bin::Binary& exe_;
  uint64_t bias_;
  MemoryImage mem_;
  // The runtime's types when the reader read them itself; held by pointer
  // so that they stay put when the reader moves.
  std::unique_ptr<const RuntimeTypes> owned_types_;
  const bin::DebugInfo* types_;
  Expected<RuntimeLayout> span_layout_;
  Expected<HeapBitsLayout> heap_bits_layout_;
};

}  // namespace goheap::core
