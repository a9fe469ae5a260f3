#include "dump/object_order.h"

#include <algorithm>
#include <numeric>

#include "util/large_vector.h"

namespace goheap::dump {

namespace {

template <class T>
void applyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order) {
  if (column.empty()) return;
  std::vector<T> sorted;
  resizeLarge(sorted, column.size());
  for (size_t i = 0; i < order.size(); i++) sorted[i] = column[order[i]];
  column.swap(sorted);
}

// LSD radix sort of indices by key, 11 bits a pass, only as many passes as
// the largest key needs (addresses span a narrow range above their minimum).
std::vector<uint32_t> radixOrder(const std::vector<uint64_t>& addr) {
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

}  // namespace

void sortObjectsByAddress(Dump& dump) {
  Objects& o = dump.objects;
  if (std::is_sorted(o.addr.begin(), o.addr.end())) return;
  std::vector<uint32_t> order = radixOrder(o.addr);
  applyPermutation(o.addr, order);
  applyPermutation(o.contents_offset, order);
  applyPermutation(o.size, order);
  applyPermutation(o.type_addr, order);
  applyPermutation(o.type_index, order);
  applyPermutation(o.kind, order);
}

}  // namespace goheap::dump
