#include "core/heap_walk.h"

#include <algorithm>
#include <numeric>

#include "util/format.h"

namespace goheap::core {
namespace {

// Counts a skipped span, with a warning for the first of its kind.
void skip(Sink& told, uint64_t& counter, uint64_t span, const std::string& why) {
  if (counter++ == 0) told.warning("span " + formatHex(span) + ": " + why);
}

}  // namespace

uint64_t HeapObjects::largeObjects() const {
  constexpr uint64_t kMaxSmallObject = 32 << 10;  // runtime._MaxSmallSize
  uint64_t n = 0;
  for (uint64_t s : size) n += s > kMaxSmallObject ? 1 : 0;
  return n;
}

Expected<HeapObjects> walkHeap(const MemoryImage& mem, const RuntimeLayout& l, Sink& told) {
  const WordReader& words = mem.words();
  const uint64_t ptr = words.ptrSize();
  const uint64_t mheap = l.mheap_addr + mem.bias();
  auto header = mem.read(mheap + l.mheap_allspans, 3 * ptr);
  if (!header) return Error("runtime.mheap_.allspans: " + header.error().message());
  const uint64_t array = words.read(header->data());
  const uint64_t len = words.read(header->data() + ptr);
  const uint64_t cap = words.read(header->data() + 2 * ptr);
  if (len > cap || len > UINT64_MAX / ptr) {
    return Error("runtime.mheap_.allspans at " + formatHex(mheap + l.mheap_allspans) +
                 " has length " + std::to_string(len) + " and capacity " + std::to_string(cap));
  }
  // The array is read whole: its length is then bounded by the image.
  auto spans = mem.read(array, len * ptr);
  if (!spans) return Error("runtime.mheap_.allspans's array: " + spans.error().message());

  HeapObjects out;
  out.spans = len;
  std::vector<std::pair<uint64_t, uint64_t>> objects;  // address, size
  for (uint64_t k = 0; k < len; ++k) {
    const uint64_t s = words.read(spans->data() + k * ptr);
    auto bytes = mem.read(s, l.mspan_size);
    if (!bytes) {
      skip(told, out.unreadable_spans, s, "not in the core");
      continue;
    }
    const uint64_t state = fieldValue(words, *bytes, l.span_state);
    const uint64_t start = fieldValue(words, *bytes, l.span_start_addr);
    const uint64_t npages = fieldValue(words, *bytes, l.span_npages);
    if (state == l.span_manual && npages != 0 && npages <= (UINT64_MAX - start) / l.page_size) {
      out.span_ranges.push_back({start, npages * l.page_size, true});
    }
    if (state != l.span_in_use) continue;
    ++out.spans_in_use;
    const uint64_t nelems = fieldValue(words, *bytes, l.span_nelems);
    const uint64_t elemsize = fieldValue(words, *bytes, l.span_elemsize);
    const uint64_t freeindex = fieldValue(words, *bytes, l.span_freeindex);
    const uint64_t alloc_bits = fieldValue(words, *bytes, l.span_alloc_bits);
    // The slots must fit in the span's pages, and the pages in the address
    // space: this bounds the loop below by memory the image holds.
    const uint64_t max_pages = (UINT64_MAX - start) / l.page_size;
    if (npages == 0 || npages > max_pages || elemsize == 0 || nelems == 0 ||
        nelems > npages * l.page_size / elemsize || freeindex > nelems) {
      skip(told, out.bad_spans, s,
           "inconsistent: start " + formatHex(start) + ", " + std::to_string(npages) + " pages, " +
               std::to_string(nelems) + " slots of " + std::to_string(elemsize) +
               " bytes, freeindex " + std::to_string(freeindex));
      continue;
    }
    const uint64_t end = start + npages * l.page_size;
    out.span_ranges.push_back({start, npages * l.page_size, false});
    if (!mem.contains(start, 1) || !mem.contains(end - 1, 1)) {
      skip(told, out.missing_memory, s,
           "its memory " + formatHexRange(start, end) + " is not in the core");
      continue;
    }
    // Bits at and beyond freeindex decide; below it every slot is allocated.
    std::span<const uint8_t> bits;
    if (freeindex < nelems) {
      auto b = mem.read(alloc_bits, (nelems + 7) / 8);
      if (!b) {
        skip(told, out.unreadable_alloc_bits, s,
             "its allocation bits at " + formatHex(alloc_bits) + " are not in the core");
        continue;
      }
      bits = *b;
    }
    for (uint64_t i = 0; i < nelems; ++i) {
      if (i >= freeindex && (bits[i / 8] >> (i % 8) & 1) == 0) continue;
      objects.emplace_back(start + i * elemsize, elemsize);
    }
  }
  std::sort(out.span_ranges.begin(), out.span_ranges.end(),
            [](const HeapObjects::SpanRange& a, const HeapObjects::SpanRange& b) {
              return a.start < b.start;
            });
  std::sort(objects.begin(), objects.end());
  out.addr.reserve(objects.size());
  out.size.reserve(objects.size());
  for (const auto& [a, n] : objects) {
    out.addr.push_back(a);
    out.size.push_back(n);
    out.bytes += n;
  }
  return out;
}

}  // namespace goheap::core
