// core::readPointerMasks: which words of each heap object may hold a pointer,
// read from the runtime's own GC metadata the way its collector reads it
// (scanobject, and the heap dump writer's makeheapobjbv, which the tests use
// as the oracle):
//
//  - Go 1.19: the 2-bit heap bitmap of the object's arena; words are read
//    from the object's first until one whose "more pointers" bit is clear.
//  - Go 1.20 and 1.21: the arena's 1-bit bitmap, read in uintptr words,
//    until the object ends or a word of it is marked in noMorePtrs.
//  - Go 1.22 and later (mspan.typePointersOfUnchecked): nothing in a noscan
//    span; in a span of objects of at most 512 bytes, one bit per word in the
//    span's last bytes (before the Green Tea GC's inline mark bits); else a
//    *_type, the object's first word (the malloc header, itself no pointer)
//    or the span's largeType, whose GC mask covers PtrBytes of each Size_
//    bytes, tiled over the rest of the object.
//
// The offsets go into deduplicated model::PointerLayouts, one layout id per
// object, as the heap dump reader fills them. Metadata the core lacks or that
// does not fit together (an object in no arena, a type whose mask is a GC
// program or not built yet) is counted per reason and leaves the object with
// no pointers, never an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "model/heap_model.h"
#include "model/pointer_layouts.h"
#include "util/sink.h"

namespace goheap::core {

struct PointerMasks {
  model::PointerLayouts layouts;
  std::vector<uint32_t> layout;  // per object of the HeapObjects, into layouts
  // The large objects' types (the span's largeType), by address.
  std::vector<model::LargeObjectType> large_types;

  uint64_t objects_with_pointers = 0;
  uint64_t pointer_words = 0;  // over all objects
  // Objects left without pointers, by why: no heap arena or span holds them
  // in the core; the heap bits are not in the core; their type descriptor or
  // its mask is not, or its numbers do not fit; the type's mask is a GC
  // program (Go 1.22/1.23 huge types), which is not run; the type's mask is
  // built on demand and was not built yet (Go 1.24+).
  uint64_t no_span = 0, unreadable_bits = 0, bad_type = 0, gc_program = 0, mask_not_built = 0;
};

// One warning per reason an object is left without pointers, with the first
// such object, is told to `told`.
PointerMasks readPointerMasks(const MemoryImage& mem, const RuntimeLayout& layout,
                              const HeapBitsLayout& bits, const HeapObjects& heap, Sink& told);

}  // namespace goheap::core
