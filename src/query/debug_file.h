// The separate debug file of an executable without DWARF of its own, found
// as gdb finds it (bin/debug_file_search.h: by GNU build ID, then by
// .gnu_debuglink, in the --debug-dir folders and /usr/lib/debug), else
// fetched from the debuginfod servers given (acquire/debuginfod.h) into the
// cache folder. query::open calls it on the executable it opened, before any
// stage reads its DWARF, so every front end gets it.
#pragma once

#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_file_search.h"
#include "util/sink.h"

namespace goheap::query {

struct DebugFileOptions {
  // Searched first, in order, then /usr/lib/debug (--debug-dir).
  std::vector<std::string> dirs;
  // debuginfod servers (DEBUGINFOD_URLS, read by the front end); empty: none.
  std::vector<std::string> debuginfod_urls;
  // The folder downloaded debug files are kept in, by build ID; empty: none.
  std::string store_dir;
  // The file system of the process the executable was read from through
  // /proc/PID/exe (a container's), searched too; empty for none.
  bin::ProcessFiles process = {};
};

// Gives `exe` (opened from `exe_path`) the separate debug file it names
// when it has no DWARF of its own, and tells `sink` which file that is (a
// note). When none is found, the reason goes into exe's debugInfoProblem()
// (bin::Binary::noteDebugFileSearch). Nothing for an executable with DWARF,
// or one that is not ELF.
void attachDebugFile(bin::Binary& exe, const std::string& exe_path, const DebugFileOptions& options,
                     Sink& sink);

// The folder under the cache folder `cache_dir` (as --cache gives it; empty
// for the default) that debug files from debuginfod are kept in:
// CACHE/debuginfo; empty when there is no cache folder.
std::string debugFileStore(const std::string& cache_dir);

}  // namespace goheap::query
