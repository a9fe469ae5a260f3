// Where the process's memory is (`goheap memory`, summary's process_memory):
// a core's categories (core/process_memory.h) with the heap's live and
// garbage bytes told apart, memstats' figures beside the categories that
// have one, and advice; for a heap dump, which has no mappings, the
// categories its memstats can fill.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/snapshot.h"
#include "model/process_memory.h"

namespace goheap::analysis {

// A memstats figure holding the same as a category.
struct MemstatsFigure {
  std::string field;  // "HeapIdle - HeapReleased", "StackInuse", ...
  uint64_t bytes = 0;
  bool differs = false;  // by more than 10% (and 64 KiB)
};

struct ProcessMemoryView {
  model::ProcessMemory memory;
  std::array<std::optional<MemstatsFigure>, model::kMemoryCategoryCount> memstats;
  std::vector<std::string> advice;
};

ProcessMemoryView processMemory(const Snapshot& s);

}  // namespace goheap::analysis
