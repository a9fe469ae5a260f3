#include "graph/address_index.h"

#include "util/large_vector.h"

namespace goheap::graph {

AddressIndex::AddressIndex(PackedView addr, PackedView size) : addr_(addr), size_(size) {
  if (addr.empty()) return;
  // Pages aligned as the runtime's are, so that a span fills whole pages.
  base_ = addr[0] & ~((uint64_t{1} << shift_) - 1);
  // The end of the last object; objects are disjoint, but a corrupt dump's
  // huge object must not stretch the table, so take the maximum end.
  uint64_t end = base_;
  for (size_t i = 0; i < addr.size(); i++) {
    uint64_t e = addr[i] + size[i];
    if (e < addr[i]) e = UINT64_MAX;  // wrapped
    if (e > end) end = e;
  }
  limit_ = end;
  // 8 KiB pages (the runtime's page size), coarser when the address range
  // is sparse so the table stays near one entry per object.
  const uint64_t range = limit_ - base_;
  const uint64_t max_pages = std::max<uint64_t>(addr.size() * 2, 1u << 16);
  while ((range >> shift_) > max_pages) shift_++;
  const uint64_t pages = (range >> shift_) + 1;
  resizeLarge(page_first_, pages + 1);
  size_t i = 0;
  for (uint64_t p = 0; p <= pages; p++) {
    const uint64_t page_start = p << shift_;  // relative to base_
    while (i < addr.size() && addr[i] - base_ < page_start) i++;
    page_first_[p] = static_cast<uint32_t>(i);
  }
}

}  // namespace goheap::graph
