// model::ProcessMemory: where every mapped byte of a Go process is, by
// category (`goheap memory`). A core's reader fills it from the process's
// mappings and the runtime's own structures (core/process_memory.h); for a
// heap dump, which has no mappings, analysis/process_memory.h fills what
// memstats can.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goheap::model {

// Each mapped byte is in exactly one; the names are the JSON's.
enum class MemoryCategory : uint8_t {
  HeapObjects,             // bytes of heap objects, live and garbage
  HeapFragmentation,       // in-use spans minus their objects
  HeapFree,                // idle spans the runtime keeps
  HeapReleased,            // spans returned to the OS: mapped, not resident
  GoroutineStacks,         // stack spans, in use and cached
  RuntimeMetadata,         // mspans, heap arena metadata, bitmaps, persistentalloc
  CHeap,                   // glibc malloc: brk heap, its mmaps, its arenas
  ThreadStacks,            // the OS threads' stacks
  MappedFiles,             // file mappings but the executable and libraries
  ExecutableAndLibraries,  // the executable and its libraries (and the vdso)
  Reserved,                // PROT_NONE address space no one above claimed
  Other,                   // the rest, listed mapping by mapping
  Count
};
constexpr size_t kMemoryCategoryCount = static_cast<size_t>(MemoryCategory::Count);

// "heap_objects", ... "other".
std::string_view memoryCategoryName(MemoryCategory c);
// What the category holds, in one line for the text table.
std::string_view memoryCategoryMeaning(MemoryCategory c);

// One mapping of the process and the bytes of it each category claimed.
struct ProcessMapping {
  uint64_t start = 0, end = 0;
  std::string perms = {};  // "rw-p"; "rw-?" when the source does not say shared/private
  std::string path = {};   // a file, "[heap]" (a snap's), or "" for anonymous memory
  std::optional<uint64_t> resident = std::nullopt;  // known from a snap only
  std::array<uint64_t, kMemoryCategoryCount> bytes{};

  uint64_t size() const { return end - start; }
  // The category holding most of it.
  MemoryCategory mainCategory() const;
};

struct MemoryCategoryUse {
  uint64_t bytes = 0;
  std::optional<uint64_t> resident;
  std::string detail;  // the evidence: which structures, how many
  // False for what the source cannot know (a dump's C heap): bytes is 0 then.
  bool known = true;
};

struct ProcessMemory {
  // "kernel core", "gcore", "snap", "core" (another writer), or "memstats".
  std::string source;
  // What `total` counts, in words: "every mapping the kernel's core lists".
  std::string total_is;
  uint64_t total = 0;
  std::optional<uint64_t> resident;
  std::array<MemoryCategoryUse, kMemoryCategoryCount> categories;
  // Bytes of each category that memstats does not count (the heap arena
  // index, which the runtime maps without a statistic): left out when the
  // category is compared with memstats.
  std::array<uint64_t, kMemoryCategoryCount> outside_memstats{};
  std::vector<ProcessMapping> mappings;  // by address; empty for memstats
  // What the source leaves out or could not read.
  std::vector<std::string> notes;

  MemoryCategoryUse& operator[](MemoryCategory c) { return categories[static_cast<size_t>(c)]; }
  const MemoryCategoryUse& operator[](MemoryCategory c) const {
    return categories[static_cast<size_t>(c)];
  }
};

}  // namespace goheap::model
