#include "model/object_order.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "util/large_vector.h"

namespace goheap::model {

namespace {

template <class T>
std::vector<T> gather(std::span<const T> column, const std::vector<uint32_t>& order) {
  std::vector<T> sorted;
  resizeLarge(sorted, column.size());
  for (size_t i = 0; i < order.size(); i++) sorted[i] = column[order[i]];
  return sorted;
}

template <class T>
void applyPermutation(Column<T>& column, const std::vector<uint32_t>& order) {
  if (column.empty()) return;
  column = gather(column.span(), order);
}

// LSD radix sort of indices by key, 11 bits a pass, only as many passes as
// the largest key needs (addresses span a narrow range above their minimum).
std::vector<uint32_t> radixOrder(std::span<const uint64_t> addr) {
  const size_t n = addr.size();
  const uint64_t lo = *std::min_element(addr.begin(), addr.end());
  const uint64_t hi = *std::max_element(addr.begin(), addr.end());
  const uint64_t span = hi - lo;
  std::vector<uint32_t> order, scratch;
  resizeLarge(order, n);
  resizeLarge(scratch, n);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<uint64_t> keys, scratch_keys;
  resizeLarge(keys, n);
  resizeLarge(scratch_keys, n);
  for (size_t i = 0; i < n; i++) keys[i] = addr[i] - lo;
  constexpr unsigned kBits = 11;
  constexpr size_t kBuckets = size_t{1} << kBits;
  for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
    std::vector<size_t> count(kBuckets + 1, 0);
    for (size_t i = 0; i < n; i++) count[((keys[i] >> shift) & (kBuckets - 1)) + 1]++;
    for (size_t b = 0; b < kBuckets; b++) count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++) {
      size_t dst = count[(keys[i] >> shift) & (kBuckets - 1)]++;
      scratch[dst] = order[i];
      scratch_keys[dst] = keys[i];
    }
    order.swap(scratch);
    keys.swap(scratch_keys);
  }
  return order;
}

// The common case of radixOrder, about twice as fast: objects are aligned,
// so the low bits that every address shares carry no order and are dropped;
// when what is left fits 32 bits (a heap span under 32 GiB at 8-byte
// alignment), key and index travel packed in one 64-bit word, one array
// moved per pass instead of two, and one counting pass serves every digit.
// Sorting (key << 32 | index) orders equal keys by index, as the stable LSD
// sort of radixOrder does, so both give the same order. Returns false, with
// `order` untouched, when the keys do not fit.
bool packedRadixOrder(std::span<const uint64_t> addr, std::vector<uint32_t>& order) {
  const size_t n = addr.size();
  const uint64_t lo = *std::min_element(addr.begin(), addr.end());
  uint64_t any_bits = 0;
  for (uint64_t a : addr) any_bits |= a - lo;
  if (any_bits == 0) return false;  // all equal: radixOrder handles it
  const auto shift = static_cast<unsigned>(std::countr_zero(any_bits));
  const auto key_bits = static_cast<unsigned>(std::bit_width(any_bits >> shift));
  if (key_bits > 32) return false;
  // Counts of 2^12 entries stay in the L1 cache.
  constexpr unsigned kMaxDigitBits = 12;
  const unsigned passes = (key_bits + kMaxDigitBits - 1) / kMaxDigitBits;
  const unsigned digit_bits = (key_bits + passes - 1) / passes;
  const size_t buckets = size_t{1} << digit_bits;
  std::vector<uint64_t> packed, scratch;
  resizeLarge(packed, n);
  resizeLarge(scratch, n);
  std::vector<size_t> count(buckets * passes, 0);
  for (size_t i = 0; i < n; i++) {
    const uint64_t key = (addr[i] - lo) >> shift;
    packed[i] = key << 32 | i;
    for (unsigned p = 0; p < passes; p++) {
      count[p * buckets + ((key >> (p * digit_bits)) & (buckets - 1))]++;
    }
  }
  for (unsigned p = 0; p < passes; p++) {
    size_t sum = 0;
    for (size_t b = 0; b < buckets; b++) {
      const size_t c = count[p * buckets + b];
      count[p * buckets + b] = sum;
      sum += c;
    }
    const unsigned digit_shift = 32 + p * digit_bits;
    size_t* next = &count[p * buckets];
    for (size_t i = 0; i < n; i++) {
      const uint64_t v = packed[i];
      scratch[next[(v >> digit_shift) & (buckets - 1)]++] = v;
    }
    packed.swap(scratch);
  }
  std::vector<uint64_t>().swap(scratch);
  resizeLarge(order, n);
  for (size_t i = 0; i < n; i++) order[i] = static_cast<uint32_t>(packed[i]);
  return true;
}

// The runtime writes objects span by span, ascending within a span, and a
// heap page belongs to one span. So a stable counting sort on the page number
// alone leaves every page's objects in ascending order: one counting pass and
// one scatter, in place of several radix passes. Returns false (leaving
// `order` alone) when the pages are too many to count. The caller checks that
// the result is sorted (a dump not written span by span would not be).
bool pageOrder(std::span<const uint64_t> addr, std::vector<uint32_t>& order) {
  constexpr unsigned kPageShift = 13;                // the runtime's 8 KiB pages
  constexpr uint64_t kMaxPages = uint64_t{1} << 22;  // a 32 GiB address range
  const size_t n = addr.size();
  const uint64_t lo = *std::min_element(addr.begin(), addr.end()) >> kPageShift;
  const uint64_t hi = *std::max_element(addr.begin(), addr.end()) >> kPageShift;
  if (hi - lo >= kMaxPages) return false;
  std::vector<uint32_t> next(hi - lo + 2, 0);
  for (uint64_t a : addr) next[(a >> kPageShift) - lo + 1]++;
  for (size_t p = 1; p < next.size(); p++) next[p] += next[p - 1];
  std::vector<uint32_t> result;
  resizeLarge(result, n);
  for (size_t i = 0; i < n; i++)
    result[next[(addr[i] >> kPageShift) - lo]++] = static_cast<uint32_t>(i);
  for (size_t k = 1; k < n; k++) {
    if (addr[result[k]] < addr[result[k - 1]]) return false;
  }
  order.swap(result);
  return true;
}

}  // namespace

void OffsetColumn::permute(const std::vector<uint32_t>& order) {
  applyPermutation(low_, order);
  applyPermutation(high_, order);
}

void sortObjectsByAddress(HeapModel& model) {
  Objects& o = model.objects;
  o.addr.unpack();
  o.size.unpack();
  o.layout.unpack();
  const Column<uint64_t>& addr = o.addr.unpacked();
  if (std::is_sorted(addr.begin(), addr.end())) return;
  // Object counts are below 2^32 (the graph refuses more), so indices fit
  // the packed form's low half.
  std::vector<uint32_t> order;
  std::vector<uint64_t> sorted_addr;
  if (addr.size() < UINT32_MAX && pageOrder(addr, order)) {
    sorted_addr = gather(addr.span(), order);
    if (!std::is_sorted(sorted_addr.begin(), sorted_addr.end())) order.clear();
  }
  if (order.empty()) {
    if (addr.size() >= UINT32_MAX || !packedRadixOrder(addr, order)) order = radixOrder(addr);
    sorted_addr = gather(addr.span(), order);
  }
  o.addr = std::move(sorted_addr);
  o.offset.permute(order);
  applyPermutation(o.size.unpacked(), order);
  applyPermutation(o.region, order);
  applyPermutation(o.layout.unpacked(), order);
  if (model.heap_dump) {
    applyPermutation(model.heap_dump->object_type_addr, order);
    applyPermutation(model.heap_dump->object_type_index, order);
    applyPermutation(model.heap_dump->object_kind, order);
  }
  applyPermutation(o.span_metadata, order);
}

void packObjectColumns(HeapModel& model) {
  model.objects.addr.pack();
  model.objects.size.pack();
  model.objects.layout.pack();
}

}  // namespace goheap::model
