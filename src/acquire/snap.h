// goheap snap: the heap of a running Go process, without a restart and
// without a debugger. Every thread is stopped (process_stopper.h), the
// memory the process touched is copied into an ELF core (memory_plan.h,
// core_writer.h) that every goheap command reads, and the process goes on
// as if nothing happened: no signal sent, none lost.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "util/error.h"
#include "util/sink.h"

namespace goheap::acquire {

struct SnapOptions {
  // Where to copy the executable (--with-exe), "" for no copy. The core's
  // note names it (by file name, in the core's folder).
  std::string exe_copy_path;
  // Set by the caller's SIGINT handler: the snap stops, lets the process
  // go and fails with "interrupted".
  const std::atomic<bool>* interrupted = nullptr;
  // Told each phase ("stop threads", "copy memory" with the bytes to copy,
  // "write core") as it runs; none for null.
  Sink* sink = nullptr;
  // For tests of what happens mid-copy: a pause after each MiB copied.
  unsigned copy_delay_ms = 0;
};

struct SnapResult {
  uint64_t pause_ns = 0;        // from the first thread stopped to the last resumed
  uint64_t core_bytes = 0;      // the file written
  uint64_t writable_bytes = 0;  // the process's writable mappings, all of them
  uint64_t threads = 0, segments = 0;
  std::string exe_path;  // /proc/PID/exe
  std::string name;      // the process's name
  std::string go_version;
  std::string exe_copy_path;  // when one was made
};

// Snaps process `pid` into `out` (a file the caller commits or removes). An
// Error, worded for the user, when `pid` is no process, not a Go program,
// cannot be traced (and why), exits during the copy, or the snap is
// interrupted; the process is running again whenever this returns.
Expected<SnapResult> snapProcess(pid_t pid, std::FILE* out, const SnapOptions& options);

}  // namespace goheap::acquire
