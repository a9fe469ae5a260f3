#include "bin/symbols.h"

#include <algorithm>

namespace goheap::bin {

SymbolIndex::SymbolIndex(std::span<const Symbol> symbols) {
  for (const Symbol& s : symbols) {
    if (s.size > 0) sorted_.push_back(s);
  }
  std::stable_sort(sorted_.begin(), sorted_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.value < b.value; });
}

const Symbol* SymbolIndex::containing(uint64_t addr) const {
  auto it = std::upper_bound(sorted_.begin(), sorted_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.value; });
  if (it == sorted_.begin()) return nullptr;
  --it;
  return addr - it->value < it->size ? &*it : nullptr;
}

}  // namespace goheap::bin
