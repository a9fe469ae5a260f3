// Which of a stopped process's memory goes into its core, and how: read
// from /proc/PID/maps and, for anonymous memory, /proc/PID/pagemap.
//
// - Anonymous memory (the Go heap, stacks, bss): only the pages the process
//   touched (present or swapped out). The pages between are left out as
//   zero segments (core/snap_note.h): a Go process reserves far more than it
//   touches (gcore writes 1.2 GB for a small one).
// - Private writable file mappings (the program's data): copied whole; the
//   process may have changed any page.
// - Read-only file mappings (text, rodata): left out, the executable has
//   them, except an ELF file's first page, which holds its build ID.
// - Inaccessible reservations, shared file mappings, [vvar], [vsyscall]:
//   left out.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace goheap::acquire {

// One line of /proc/PID/maps.
struct Mapping {
  uint64_t start = 0, end = 0;
  bool read = false, write = false, exec = false, shared = false;
  uint64_t offset = 0;  // in the file
  uint64_t inode = 0;
  std::string path;  // "" for anonymous memory, "[heap]", "/usr/bin/x", ...

  bool fileBacked() const { return inode != 0 && !path.empty() && path.front() == '/'; }
};

// Parses /proc/PID/maps; an Error names the line that does not parse.
Expected<std::vector<Mapping>> parseMaps(std::string_view text);

// The Rss of each mapping in /proc/PID/smaps, in bytes, by the mapping's
// start address (in the file's order). Lines it does not know are passed over.
std::vector<std::pair<uint64_t, uint64_t>> parseSmapsRss(std::string_view text);

// A piece of the core: memory [start, end) copied from the process
// (`copy`), or left out (a PT_LOAD holding no bytes: zero when writable).
// Copied pieces may include `zero_gaps`, runs of untouched pages written
// as zeros rather than read, so that the core keeps few segments.
struct PlannedSegment {
  uint64_t start = 0, end = 0;
  bool read = false, write = false, exec = false;
  bool copy = false;
  struct Gap {
    uint64_t start = 0, end = 0;
  };
  std::vector<Gap> zero_gaps;  // within [start, end), by address
  uint64_t size() const { return end - start; }
};

struct MemoryPlan {
  std::vector<PlannedSegment> segments;  // by address
  uint64_t copied_bytes = 0;             // what the core's file will hold
  uint64_t writable_bytes = 0;           // all writable mappings: what gcore would write
};

// Which pages of [start, end) the process touched, one bool per page, from
// the process's pagemap (an open fd of /proc/PID/pagemap).
Expected<std::vector<bool>> touchedPages(int pagemap_fd, uint64_t start, uint64_t end,
                                         uint64_t page_size);

// Plans the core of a process with `mappings`. `touched` answers
// touchedPages for anonymous memory (the pagemap in a real snap; a test
// can give its own). `is_elf_header` tells whether a file mapping at offset
// 0 starts with an ELF header (its first page is then copied).
struct PlanInputs {
  const std::vector<Mapping>* mappings = nullptr;
  uint64_t page_size = 4096;
  std::function<Expected<std::vector<bool>>(uint64_t start, uint64_t end)> touched;
  std::function<bool(const Mapping&)> is_elf_header;
};
Expected<MemoryPlan> planMemory(const PlanInputs& in);

}  // namespace goheap::acquire
