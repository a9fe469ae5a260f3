// A real core opened with its executable and its goroutines read: what the
// tests of a core's goroutines (goroutines_test.cpp) and stacks
// (stack_scan_test.cpp) share. Each part is on the heap, so that the views
// and pointers the later ones keep into the earlier ones survive a move.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/goroutines.h"
#include "core/memory_image.h"
#include "util/error.h"

namespace goheap::testing {

struct CoreGoroutines {
  std::unique_ptr<core::CoreFile> core;
  std::unique_ptr<bin::Binary> binary;
  std::unique_ptr<bin::DebugInfo> dwarf;
  uint64_t bias = 0;  // the executable's load bias in the core
  std::unique_ptr<core::MemoryImage> mem;
  core::Goroutines goroutines;
  std::vector<std::string> warnings;  // what readGoroutines could not read
};

// Opens CORE_PATH and EXE, checks that they match and reads the goroutines;
// an Error saying which step failed.
Expected<CoreGoroutines> readCoreGoroutines(const std::string& core_path, const std::string& exe);

}  // namespace goheap::testing
