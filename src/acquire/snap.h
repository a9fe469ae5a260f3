// goheap snap: the heap of a running Go process, without a restart and
// without a debugger. Every thread is stopped (process_stopper.h) for as
// long as it takes the process to fork itself (process_copy.h); the memory
// it touched is then copied from the fork into an ELF core (memory_plan.h,
// core_writer.h) that every goheap command reads, while the process goes
// on as if nothing happened: no signal sent, none lost, no child left.
// Where a fork is unsafe, the copy is made while the threads are stopped.
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
  // Where to copy the executable (snap does by default; --no-exe-copy does
  // not), "" for no copy. It is read through /proc/PID/exe, which reaches it
  // from any mount namespace (a container's). The core's note names it (by
  // file name, in the core's folder).
  std::string exe_copy_path;
  // Set by the caller's SIGINT handler: the snap stops, lets the process
  // go and fails with "interrupted".
  const std::atomic<bool>* interrupted = nullptr;
  // Told each phase ("stop threads", "copy memory" with the bytes to copy,
  // "write core") as it runs; none for null.
  Sink* sink = nullptr;
  // For tests of what happens mid-copy: a pause before each read of the
  // first copy (not one made again), for as long as the process lives.
  unsigned copy_delay_ms = 0;
  // Copy from a copy-on-write fork of the process (process_copy.h), so
  // that the process pauses only for the fork; false (--no-fork) copies
  // while it is stopped. snap falls back to that, saying why, when a fork
  // is unsafe or fails.
  bool fork = true;
  // Fork a process under seccomp filters goheap cannot read (it lacks
  // CAP_SYS_ADMIN), trusting that they refuse clone(2) with an error rather
  // than kill (--fork-under-seccomp). Filters it can read are run instead.
  bool fork_under_seccomp = false;
  // For `-o -`: the core written strictly front to back
  // (writeCoreInOrder), for a pipe.
  bool stream = false;
  // The executable inside the core, as a note (core::kNtGoheapExecutable):
  // a streamed core has no folder beside it to copy it into.
  bool carry_executable = false;
};

struct SnapResult {
  uint64_t pause_ns = 0;        // from the first thread stopped to the last resumed
  uint64_t core_bytes = 0;      // the file written
  uint64_t writable_bytes = 0;  // the process's writable mappings, all of them
  uint64_t threads = 0, segments = 0;
  bool forked = false;  // the copy was read from a fork
  // A fork was made, then dropped by CgroupGuard to keep its cgroup's room,
  // and the process copied again while stopped (no_fork_reason says so).
  bool fork_dropped = false;
  std::string no_fork_reason;          // why not, when a fork was wanted
  uint64_t fork_ns = 0;                // the fork itself, within the pause
  uint64_t copied_on_write_bytes = 0;  // held by the fork alone: the process wrote or freed them
  std::string copy_warning;            // the fork's copy could not be cleaned up
  bool exited_during_copy = false;     // the process ended while its fork was read
  std::string exe_path;                // /proc/PID/exe, as the process sees it
  // Whether exe_path names the executable in goheap's mount namespace too
  // (the same device and inode): false for a process in a container, whose
  // files are elsewhere or not there at all, and for a deleted executable.
  // Then the executable is read through /proc/PID/exe while the process
  // lives, and through the copy beside the core after.
  bool exe_path_reaches_it = false;
  std::string name;  // the process's name
  std::string go_version;
  std::string exe_copy_path;  // when one was made
};

// How the snap paused the process, for the user: "paused 12 ms; copied
// from a fork while it ran on (...)", or why it was copied while stopped.
std::string describePause(const SnapResult& result);

// Snaps process `pid` into `out` (a file the caller commits or removes). An
// Error, worded for the user, when `pid` is no process, not a Go program,
// cannot be traced (and why), exits during the copy, or the snap is
// interrupted; the process is running again whenever this returns.
Expected<SnapResult> snapProcess(pid_t pid, std::FILE* out, const SnapOptions& options);

}  // namespace goheap::acquire
