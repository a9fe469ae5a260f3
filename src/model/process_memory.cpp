#include "model/process_memory.h"

#include <algorithm>

namespace goheap::model {

namespace {

struct CategoryInfo {
  MemoryCategory category;
  std::string_view name;     // the JSON's
  std::string_view meaning;  // one line, for the text table
};

// One row per category, in MemoryCategory's order.
constexpr std::array<CategoryInfo, kMemoryCategoryCount> kCategories = {{
    {MemoryCategory::HeapObjects, "heap_objects",
     "Go heap objects, live and garbage not yet swept"},
    {MemoryCategory::HeapFragmentation, "heap_fragmentation",
     "in-use heap spans less their objects: free slots, size-class rounding"},
    {MemoryCategory::HeapFree, "heap_free",
     "idle heap pages the runtime keeps for later allocations"},
    {MemoryCategory::HeapReleased, "heap_released",
     "idle heap pages returned to the OS: mapped, not resident"},
    {MemoryCategory::GoroutineStacks, "goroutine_stacks", "goroutine stacks, in use and cached"},
    {MemoryCategory::RuntimeMetadata, "runtime_metadata",
     "the runtime's own: spans, arena metadata, GC bitmaps, profiling, itabs"},
    {MemoryCategory::CHeap, "c_heap",
     "C's malloc (cgo): outside the Go heap, not in Go's profiles"},
    {MemoryCategory::ThreadStacks, "thread_stacks", "the OS threads' stacks"},
    {MemoryCategory::MappedFiles, "mapped_files", "files mapped into memory"},
    {MemoryCategory::ExecutableAndLibraries, "executable_and_libraries",
     "the executable and its shared libraries"},
    {MemoryCategory::Reserved, "reserved",
     "address space reserved without access (PROT_NONE): costs nothing"},
    {MemoryCategory::Other, "other", "none of the above: see the mappings listed"},
}};

// A row left out, or out of order, fails the build rather than printing "".
constexpr bool everyCategoryHasItsRow() {
  for (size_t i = 0; i < kCategories.size(); i++) {
    if (static_cast<size_t>(kCategories[i].category) != i || kCategories[i].name.empty() ||
        kCategories[i].meaning.empty()) {
      return false;
    }
  }
  return true;
}
static_assert(everyCategoryHasItsRow(), "kCategories needs one row per MemoryCategory, in order");

const CategoryInfo& infoOf(MemoryCategory c) {
  return kCategories[c < MemoryCategory::Count ? static_cast<size_t>(c)
                                               : static_cast<size_t>(MemoryCategory::Other)];
}

}  // namespace

std::string_view memoryCategoryName(MemoryCategory c) {
  return infoOf(c).name;
}

std::string_view memoryCategoryMeaning(MemoryCategory c) {
  return infoOf(c).meaning;
}

MemoryCategory ProcessMapping::mainCategory() const {
  return static_cast<MemoryCategory>(std::max_element(bytes.begin(), bytes.end()) - bytes.begin());
}

}  // namespace goheap::model
