// Global variables by name, with the heap objects they point to: what a
// search for "cache" in the web UI finds. Names come from the executable's
// DWARF when it has it, else its symbol table; without the executable there
// are none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/labels.h"

namespace goheap::analysis {

struct GlobalInfo {
  std::string name;
  uint64_t address = 0;  // run time
  uint64_t size = 0;
  std::string type;                  // from DWARF; empty without
  std::vector<NodeLabel> points_to;  // the heap objects its words point into, first few
  uint64_t pointer_count = 0;        // all of them
};

// Globals in the dump's data and bss segments whose name contains `filter`
// (ignoring case), by name, at most `limit`.
std::vector<GlobalInfo> findGlobals(const Snapshot& s, std::string_view filter, size_t limit);

}  // namespace goheap::analysis
