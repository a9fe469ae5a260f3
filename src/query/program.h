// The program's executable, as every way into a heap opens it: with its
// separate debug file attached (query/debug_file.h), so that a stripped
// build's DWARF is found alike by open() and by the commands that read an
// executable or a core without making a heap of it (`bin`, `core-info`).
// For a core, the executable is first found through the core
// (core/find_executable.h) and checked against it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "core/core_file.h"
#include "core/find_executable.h"
#include "core/goroutines.h"
#include "core/heap_walk.h"
#include "core/pointer_masks.h"
#include "query/open.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::query {

// The debug-file search `options` asks for, with the folder of downloaded
// ones defaulted from the cache folder.
DebugFileOptions debugFileOptions(const OpenOptions& options);

// Opens the executable at `path` (phase "read executable") and attaches its
// debug file, telling `sink` which it found.
Expected<bin::Binary> openProgram(const std::string& path, const OpenOptions& options, Sink& sink);

// Where the executable of a core is to be looked for.
struct CoreProgramRequest {
  std::string core_name;                 // the core as the user knows it, for messages
  std::optional<std::string> given_exe;  // the one the command line names
  // A core just snapped from process `running_pid`: its executable through
  // /proc/PID/exe, and the path the process ran it by.
  int running_pid = 0;
  std::string running_exe_path;
};

// A core file and its program.
struct CoreProgram {
  core::CoreFile core;
  core::ExecutableSearch search;  // every place tried
  // The executable found (or given) and its path; with a given one this is
  // set even when it does not match the core (match says so), so that a
  // command can show the checks.
  std::string exe_path;
  std::optional<core::CheckedExecutable> program;
  // The executable was read through /proc/PID/exe, because the path the
  // process ran it by is not the same file here (a container).
  bool through_proc = false;

  // The program, when it is the core's own.
  bool matches() const { return program && program->match.matches(); }
};

// Finds and checks the executable of `core`, and attaches its debug file
// (before anything reads the runtime's layouts from the DWARF).
CoreProgram findCoreProgram(core::CoreFile core, const CoreProgramRequest& request,
                            const OpenOptions& options, Sink& sink);

// What the core reader makes of the Go runtime in a core, for `core-info`:
// the spans' objects and their pointer words (with the walk's own counts of
// what it skipped), and the goroutines. Each is an Error when it could not
// be read; nothing is read unless asked for.
// What each reader could do without is kept beside it, for core-info to
// show in its own section.
struct CoreRuntimeReading {
  std::optional<Expected<core::HeapObjects>> heap;
  std::vector<std::string> heap_warnings;
  std::optional<Expected<core::PointerMasks>> pointers;
  std::vector<std::string> pointer_warnings;
  std::optional<Expected<core::Goroutines>> goroutines;
  std::vector<std::string> goroutine_warnings;
};
CoreRuntimeReading readCoreRuntime(const CoreProgram& program, bool heap, bool goroutines);

}  // namespace goheap::query
