#include "model/span_metadata.h"

#include "util/go_version.h"

namespace goheap::model {

namespace {

// spanInlineMarkBits: scans [63]uint8, owned uint8, marks [63]uint8, class
// uint8 (runtime/mgcmark_greenteagc.go), at the very end of the page.
constexpr uint64_t kInlineMarkBitsSize = 128;

// Green Tea is the default collector since Go 1.26 (GOEXPERIMENT=nogreenteagc
// turns it off) and an experiment in Go 1.25 (internal/buildcfg/exp.go).
bool usesGreenTea(const GoVersion& v) {
  if (v.atLeast(26)) return !v.hasExperiment("nogreenteagc");
  return v.atLeast(25) && v.hasExperiment("greenteagc");
}

// The objects [first, last) of one page, as the runtime's one span there
// would hold them: all the same size, each at a slot boundary.
struct PageObjects {
  uint64_t page = 0;
  uint64_t size = 0;
  size_t first = 0, last = 0;
};

bool looksLikeOneSpan(const Objects& o, const PageObjects& p, uint64_t page_size) {
  for (size_t i = p.first; i < p.last; i++) {
    const uint64_t at = o.addr[i] - p.page;
    if (o.size[i] != p.size || at % p.size != 0 || at + p.size > page_size) return false;
  }
  return true;
}

bool anyHasPointers(const HeapModel& d, const PageObjects& p) {
  for (size_t i = p.first; i < p.last; i++) {
    if (d.objectHasPointers(i)) return true;
  }
  return false;
}

// Whether the page's span holds objects with pointers (and so heap bits).
// Every object allocated in such a span has at least one pointer slot. A
// span with pointers but no object left shows its tail alone: exactly the
// slots from its nelems to the end. (A span without pointers would show that
// only with its last few slots in use and every one before them free.)
bool spanHasPointers(const HeapModel& d, const SpanTailLayout& l, const PageObjects& p) {
  if (anyHasPointers(d, p)) return true;
  const uint64_t nelems = (l.page_size - l.reserved(p.size, true)) / p.size;
  const uint64_t slots = l.page_size / p.size;
  return nelems < slots && p.last - p.first == slots - nelems &&
         d.objects.addr[p.first] - p.page == nelems * p.size;
}

// What the slot [begin, end) of the page covers of the reserved tail.
uint8_t coveredBits(const SpanTailLayout& l, uint64_t size, bool has_pointers, uint64_t begin,
                    uint64_t end) {
  const uint64_t marks = l.reserved(size, false);
  const uint64_t mark_start = l.page_size - marks;
  const uint64_t bits_start = l.page_size - l.reserved(size, has_pointers);
  uint8_t bits = 0;
  if (marks > 0 && end > mark_start) bits |= kSpanInlineMarkBits;
  if (has_pointers && begin < mark_start && end > bits_start) bits |= kSpanHeapBits;
  return bits;
}

void markPage(HeapModel& d, const SpanTailLayout& l, const PageObjects& p) {
  Objects& o = d.objects;
  if (p.size == 0 || p.size > l.heap_bits_max_size || !looksLikeOneSpan(o, p, l.page_size)) return;
  // Nothing can be metadata below the smaller nelems (that of a span with
  // pointers): most pages are done here without reading a field list.
  const uint64_t lowest = (l.page_size - l.reserved(p.size, true)) / p.size * p.size;
  if (o.addr[p.last - 1] - p.page < lowest) return;
  const bool pointers = spanHasPointers(d, l, p);
  const uint64_t nelems = (l.page_size - l.reserved(p.size, pointers)) / p.size;
  for (size_t i = p.first; i < p.last; i++) {
    const uint64_t at = o.addr[i] - p.page;
    if (at / p.size < nelems) continue;
    o.span_metadata[i] = coveredBits(l, p.size, pointers, at, at + p.size);
  }
}

}  // namespace

uint64_t SpanTailLayout::reserved(uint64_t size, bool has_pointers) const {
  if (size > heap_bits_max_size) return 0;
  uint64_t r = 0;
  if (mark_bits_bytes > 0 && size >= mark_bits_min_size) r += mark_bits_bytes;
  if (has_pointers) r += heap_bits_bytes;
  return r;
}

std::string_view spanMetadataName(uint8_t bits) {
  switch (bits & (kSpanHeapBits | kSpanInlineMarkBits)) {
    case kSpanHeapBits:
      return "runtime metadata (span heap bits)";
    case kSpanInlineMarkBits:
      return "runtime metadata (span inline mark bits)";
    case kSpanHeapBits | kSpanInlineMarkBits:
      return "runtime metadata (span heap bits and inline mark bits)";
    default:
      return {};
  }
}

std::optional<SpanTailLayout> spanTailLayout(const Params& params) {
  const GoVersion v = parseGoVersion(params.go_version);
  // Heap bits moved into the span with the allocation headers of Go 1.22
  // (runtime/mbitmap.go; GOEXPERIMENT=noallocheaders kept the old bitmap
  // until Go 1.24 removed it).
  if (!v.atLeast(22) || v.hasExperiment("noallocheaders")) return std::nullopt;
  const uint64_t ptr = params.ptr_size;
  SpanTailLayout l;
  l.heap_bits_max_size = ptr * ptr * 8;  // gc.MinSizeForMallocHeader: PtrSize * PtrBits
  l.heap_bits_bytes = l.page_size / ptr / 8;
  if (usesGreenTea(v)) l.mark_bits_bytes = kInlineMarkBitsSize;
  return l;
}

void markSpanMetadata(HeapModel& model) {
  Objects& o = model.objects;
  o.span_metadata.clear();
  if (o.count() == 0) return;
  // Dumps before go1.7 name no Go version, and so no span tail layout.
  const std::optional<SpanTailLayout> layout = spanTailLayout(model.params);
  if (!layout) return;
  o.span_metadata.assign(o.count(), 0);
  const uint64_t page_mask = ~(layout->page_size - 1);
  for (size_t i = 0; i < o.count();) {
    PageObjects p{o.addr[i] & page_mask, o.size[i], i, i};
    while (p.last < o.count() && (o.addr[p.last] & page_mask) == p.page) p.last++;
    markPage(model, *layout, p);
    i = p.last;
  }
}

}  // namespace goheap::model
