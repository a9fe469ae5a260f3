// Address -> symbol for the sized symbols of an executable: names the
// global variable that holds a data or bss address (a root of the heap
// graph), and any other sized symbol. Symbols of size 0 (section and range
// markers such as runtime.data) contain nothing and are left out.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bin/container.h"

namespace goheap::bin {

class SymbolIndex {
 public:
  SymbolIndex() = default;
  explicit SymbolIndex(std::span<const Symbol> symbols);

  // The symbol whose [value, value + size) holds addr, or null. Where sized
  // symbols overlap (rare; the linker does not emit such globals) the one
  // starting last wins.
  const Symbol* containing(uint64_t addr) const;
  size_t size() const { return sorted_.size(); }

 private:
  std::vector<Symbol> sorted_;  // by value
};

}  // namespace goheap::bin
