// Object records that are not objects. Since Go 1.22 a span of small objects
// that hold pointers keeps their pointer bitmap (the "heap bits") in its own
// last bytes, and since Go 1.26 the Green Tea collector keeps every small
// span's mark bits there too (runtime.spanInlineMarkBits); the span then
// holds fewer objects (mspan.nelems) than fit in its page. The heap dump
// writer, runtime/heapdump.go's dumpobjs, walks every slot that fits in the
// page and skips only the free ones among the first nelems, so the slots
// over that reserved tail reach the dump as object records, always, in every
// such span. They are the runtime's metadata: no root reaches them, so left
// alone they would show as garbage, and their bytes are not in HeapAlloc.
//
// This pass finds them once, from the dump alone, so that the graph, the
// counts and the names treat them as what they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/heap_model.h"

namespace goheap::model {

// What a metadata slot covers (bits of Objects::span_metadata).
enum SpanMetadataBits : uint8_t {
  kSpanHeapBits = 1,        // the span's pointer bitmap (Go 1.22+)
  kSpanInlineMarkBits = 2,  // Green Tea's spanInlineMarkBits (Go 1.26+)
};

// "runtime metadata (span heap bits)", "... (span inline mark bits)", or
// both; empty for 0.
std::string_view spanMetadataName(uint8_t bits);

// How one release lays out the tail of a one-page small-object span
// (runtime/mheap.go, mspan.init's nelems; runtime/mbitmap.go's
// spanHeapBitsRange; runtime/mgcmark_greenteagc.go).
struct SpanTailLayout {
  uint64_t page_size = 8192;  // every small span of these sizes is one page
  // Objects of at most this size keep their heap bits in the span
  // (heapBitsInSpan: 8 words per pointer bit, 512 bytes on 64-bit).
  uint64_t heap_bits_max_size = 0;
  uint64_t heap_bits_bytes = 0;  // one bit per word of the page; only in spans with pointers
  // spanInlineMarkBits: in every span of sizes from mark_bits_min_size up to
  // heap_bits_max_size, pointers or not; 0 without Green Tea.
  uint64_t mark_bits_bytes = 0;
  uint64_t mark_bits_min_size = 16;

  // The bytes at the end of the page a span of `size` reserves.
  uint64_t reserved(uint64_t size, bool has_pointers) const;
};

// The layout of the release that wrote the dump (its params record's Go
// version and experiments); nullopt when its spans have no such tail (before
// Go 1.22, GOEXPERIMENT=noallocheaders) or the version is unknown.
std::optional<SpanTailLayout> spanTailLayout(const Params& params);

// Sets objects.span_metadata for the dump's metadata slots. The objects must
// be sorted by address (sortObjectsByAddress). A no-op for releases without
// span tails.
void markSpanMetadata(HeapModel& model);

}  // namespace goheap::model
