// core::walkHeap: every allocated heap object of a core, found the way the
// runtime itself finds them: the spans in runtime.mheap_.allspans that are in
// use, and in each the slots its allocation state marks allocated. A slot i
// of a span is allocated when i < freeindex (the allocator has handed out
// every free slot below it since the last sweep) or its bit in allocBits is
// set (it survived the last collection): the complement of the runtime's
// mspan.isFree (mbitmap.go), the same rule the heap dump writer applies.
// Objects are the slots themselves (startAddr + i*elemsize, elemsize bytes),
// a large object its span's single slot.
//
// Corrupt or missing memory is counted, never fatal beyond the heap's own
// header: a span whose struct, allocation bits or memory the core lacks, or
// whose numbers do not fit together, is skipped and counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

struct HeapObjects {
  std::vector<uint64_t> addr;  // sorted
  std::vector<uint64_t> size;  // per object

  uint64_t spans = 0;         // in allspans
  uint64_t spans_in_use = 0;  // mSpanInUse, walked
  uint64_t bytes = 0;         // over all objects
  // Spans skipped, by why: the mspan struct is not in the image; its
  // allocation bits are not; its numbers are inconsistent (elemsize *
  // nelems beyond npages pages, an address that wraps); its memory is not in
  // the core.
  uint64_t unreadable_spans = 0, unreadable_alloc_bits = 0, bad_spans = 0, missing_memory = 0;
  // The spans in use and those the runtime manages by hand (mSpanManual:
  // goroutine stacks), by where they start, for `goheap memory`.
  struct SpanRange {
    uint64_t start = 0, bytes = 0;
    bool manual = false;
  };
  std::vector<SpanRange> span_ranges;

  size_t count() const { return addr.size(); }
  // The objects of more than runtime._MaxSmallSize bytes, each its own span.
  uint64_t largeObjects() const;
};

// An Error only when runtime.mheap_ or its allspans array cannot be read.
// One warning per kind of skipped span, with the first span's address, is
// told to `told`.
Expected<HeapObjects> walkHeap(const MemoryImage& mem, const RuntimeLayout& layout, Sink& told);

}  // namespace goheap::core
