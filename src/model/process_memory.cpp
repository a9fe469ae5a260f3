#include "model/process_memory.h"

#include <algorithm>

namespace goheap::model {

std::string_view memoryCategoryName(MemoryCategory c) {
  static constexpr std::array<std::string_view, kMemoryCategoryCount> kNames = {
      "heap_objects",     "heap_fragmentation",       "heap_free", "heap_released",
      "goroutine_stacks", "runtime_metadata",         "c_heap",    "thread_stacks",
      "mapped_files",     "executable_and_libraries", "reserved",  "other"};
  return c < MemoryCategory::Count ? kNames[static_cast<size_t>(c)] : "other";
}

MemoryCategory ProcessMapping::mainCategory() const {
  return static_cast<MemoryCategory>(std::max_element(bytes.begin(), bytes.end()) - bytes.begin());
}

}  // namespace goheap::model
