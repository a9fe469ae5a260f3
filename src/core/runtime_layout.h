// core::RuntimeLayout: where the Go runtime keeps what the heap walk reads,
// the address of the global runtime.mheap_ and the offsets and widths of the
// runtime.mheap and runtime.mspan fields. These change between releases
// (freeindex and nelems are uintptr in Go 1.19 and uint16 by 1.24; the span
// state, a uint8 in 1.19, is an atomic.Uint8 by 1.27), so they are read from
// the executable's DWARF rather than assumed. The struct is a plain table so
// that a stripped executable's can later be filled from per-version data.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "bin/debug_info.h"
#include "util/error.h"
#include "util/word_reader.h"

namespace goheap::core {

// A field of a runtime struct: its offset and its width in bytes.
struct FieldSlot {
  uint64_t offset = 0;
  uint32_t size = 0;
};

struct RuntimeLayout {
  uint32_t ptr_size = 8;
  uint64_t mheap_addr = 0;  // runtime.mheap_, link-time (add the load bias)
  // runtime.mheap.allspans, a []*mspan of every span ever created.
  uint64_t mheap_allspans = 0;
  uint64_t mspan_size = 0;  // the whole runtime.mspan struct
  FieldSlot span_start_addr, span_npages, span_freeindex, span_nelems, span_alloc_bits,
      span_elemsize, span_state;
  // runtime._PageSize: 8 KiB on every platform and release.
  uint64_t page_size = 8192;
  // mSpanInUse in the runtime's mSpanState enum (mheap.go: mSpanDead = iota,
  // mSpanInUse, mSpanManual) in the releases read here, Go 1.19 to 1.27.
  uint8_t span_in_use = 1;
  uint8_t span_manual = 2;  // mSpanManual: goroutine stacks
};

// Where the runtime keeps the GC's pointer bits of heap objects, which
// changed format twice: Go 1.19 keeps 2 bits per word (pointer, and "more
// pointers follow") in each heap arena's bitmap; Go 1.20 and 1.21 keep 1 bit
// per word there, in uintptr words, and beside them 1 bit per bitmap word
// that says the object whose bits end that word has no pointers after it
// (heapArena.noMorePtrs); Go 1.22 and later keep 1 bit per word at the end
// of small spans, and a type pointer (the malloc header, or mspan.largeType
// for a large object) for the others, whose GC mask says which words hold
// pointers.
enum class HeapBitsFormat : uint8_t { ArenaTwoBit, ArenaOneBit, SpanHeapBits };

struct HeapBitsLayout {
  HeapBitsFormat format = HeapBitsFormat::SpanHeapBits;
  // runtime.mheap.arenas: [l1] of *[l2] of *heapArena, each heapArena
  // covering arena_bytes of address space from arena_base_offset.
  uint64_t mheap_arenas = 0;
  uint64_t arena_l1 = 0, arena_l2 = 0, arena_bytes = 0;
  // runtime.arenaBaseOffset, not in DWARF as a value: 0xffff800000000000 on
  // amd64 (malloc.go), 0 on the other Linux platforms read here.
  uint64_t arena_base_offset = 0;
  uint64_t arena_spans = 0;        // heapArena.spans: *mspan per page
  uint64_t arena_struct_size = 0;  // runtime.heapArena, kept off the heap
  // heapArena.bitmap: Go 1.19, one byte per 4 words; Go 1.20/1.21, one
  // uintptr per 8 * ptr_size words.
  uint64_t arena_bitmap = 0, arena_bitmap_bytes = 0;
  // Go 1.20/1.21: heapArena.noMorePtrs, one bit per word of bitmap.
  uint64_t arena_no_more_ptrs = 0, arena_no_more_ptrs_bytes = 0;
  FieldSlot span_spanclass;   // spanClass: size class << 1 | noscan
  FieldSlot span_large_type;  // Go 1.22+: *_type of a large object
  // internal/abi.Type (Go 1.22+): Size_, PtrBytes, TFlag, Kind_, GCData.
  FieldSlot type_size, type_ptr_bytes, type_tflag, type_kind, type_gcdata;
  uint64_t type_struct_size = 0;
  // Green Tea GC (Go 1.26 default, 1.25 as an experiment): the span's inline
  // mark bits, runtime.spanInlineMarkBits, sit just before its heap bits in
  // spans of objects of 16 to 512 bytes; 0 when the build has none.
  uint64_t inline_mark_bits_size = 0;
  // runtime.inProgress, the sentinel a type's on-demand GC mask slot holds
  // while it is built (Go 1.24+); 0 when absent.
  uint64_t in_progress_addr = 0;
};

// Reads the heap bits' layout from `dwarf` for a program of `goarch`: an
// Error naming what is missing, or saying the release's format is not read.
Expected<HeapBitsLayout> readHeapBitsLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size,
                                            std::string_view goarch);

// The value of field `f` of a struct whose bytes are `bytes` (at least
// f.offset + f.size of them), in the process's byte order.
uint64_t fieldValue(const WordReader& words, std::span<const uint8_t> bytes, FieldSlot f);

// Reads the layout from `dwarf`: an Error naming what is missing ("runtime.mspan
// has no field allocBits", "no global runtime.mheap_") or has an unexpected width.
Expected<RuntimeLayout> readRuntimeLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size);

}  // namespace goheap::core
