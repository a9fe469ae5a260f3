// Address to object lookup, resolving interior pointers (a field, a
// sub-slice) to the object that contains the address. A page table holds,
// for every page of the heap's address range, the first object starting at or
// after the page; a lookup is one table read and a binary search among the
// few objects of one page. No tree, no hashing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/csr.h"
#include "util/packed_column.h"

namespace goheap::graph {

class AddressIndex {
 public:
  AddressIndex() = default;
  // `addr` must be sorted; `size[i]` is object i's length. Both columns
  // must outlive the index, unchanged.
  AddressIndex(PackedView addr, PackedView size);

  // The object containing `a`, or kNoNode.
  NodeId find(uint64_t a) const {
    if (a < base_ || a >= limit_) return kNoNode;
    const uint64_t offset = a - base_;
    const uint64_t page = offset >> shift_;
    uint32_t l = page_first_[page];
    uint32_t h = page_first_[page + 1];
    // Upper bound of `a` among objects [l, h): all before l start below the
    // page, all from h on start beyond it. A span's objects lie at one
    // stride, so the first probe goes where `a`'s object would be if the
    // page's objects filled it evenly: mostly it is that object, and the
    // search touches two cache lines of the column instead of a dozen.
    if (h - l > 2) {
      const uint64_t in_page = offset & ((uint64_t{1} << shift_) - 1);
      const uint32_t g = l + static_cast<uint32_t>((in_page * (h - l)) >> shift_);
      if (addr_[g] > a) {
        h = g;
      } else if (g + 1 == h || addr_[g + 1] > a) {
        l = h = g + 1;
      } else {
        l = g + 2;
      }
    }
    while (l < h) {
      uint32_t mid = l + (h - l) / 2;
      if (addr_[mid] <= a) {
        l = mid + 1;
      } else {
        h = mid;
      }
    }
    if (l == 0) return kNoNode;
    const uint32_t i = l - 1;
    return a - addr_[i] < size_[i] ? i : kNoNode;
  }

  uint64_t tableBytes() const { return page_first_.size() * sizeof(uint32_t); }

 private:
  PackedView addr_;
  PackedView size_;
  uint64_t base_ = 0;
  uint64_t limit_ = 0;
  unsigned shift_ = 13;
  std::vector<uint32_t> page_first_;  // one per page, plus an end marker
};

}  // namespace goheap::graph
