// A copy-on-write copy of a stopped process, which snap reads at leisure
// while the process itself runs on: its pause is then the fork (page
// tables, not pages: milliseconds for gigabytes), not the copy.
//
// One stopped thread of the process is made to call clone(2) through
// ptrace, with its registers restored afterwards:
//  - the copy is a child with no exit signal, so the process never sees a
//    SIGCHLD, and wait4 without __WALL never finds it;
//  - the copy is traced from birth (PTRACE_O_TRACECLONE) and killed by the
//    kernel if goheap dies (PTRACE_O_EXITKILL): it never runs an instruction
//    of the program's, only one close_range(2) goheap makes it call, so
//    that sockets and pipes the process closes meanwhile really close;
//  - when snap is done the copy is killed and the process made to reap it
//    (wait4 through ptrace, one thread stopped for a moment), so it is left
//    with no child.
// amd64 only; elsewhere, and where the kernel or the machine's memory make
// it unsafe, snap copies while the process is stopped (snap.cpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "acquire/process_stopper.h"
#include "util/error.h"

namespace goheap::acquire {

// What decides whether a fork is safe, read from /proc before stopping.
struct ForkConditions {
  int seccomp = 0;                   // /proc/PID/status Seccomp
  uint64_t rss_anon_bytes = 0;       // what the process could write, page by page
  uint64_t mem_available_bytes = 0;  // /proc/meminfo MemAvailable
  uint64_t cgroup_room_bytes = 0;    // memory.max - memory.current; UINT64_MAX when unlimited
  bool amd64 = false;                // goheap and the process both 64-bit x86
  // Under a seccomp filter (seccomp 2), set once the threads are stopped
  // (seccompForkProblem): why the filters of the thread made to fork make
  // the fork unsafe, or "" when they allow every call it needs.
  std::optional<std::string> seccomp_problem;
};

// The conditions of process `pid` on this machine.
ForkConditions readForkConditions(pid_t pid);

// For ForkConditions::seccomp_problem: whether thread `tid` (held stopped by
// the caller, which will make it fork with the syscall instruction at
// `syscall_at`) may fork under its seccomp filters, read and run for each
// call the fork makes (seccomp_filter.h); "" when it may. Filters that cannot
// be read (no CAP_SYS_ADMIN) are taken as unsafe unless `fork_anyway`
// (--fork-under-seccomp): the message says so, and what a fork would save.
std::string seccompForkProblem(pid_t tid, uint64_t syscall_at, bool fork_anyway,
                               uint64_t rss_anon_bytes);

// Why a fork copy must not be made under `c`, worded for the user, or ""
// when it may. Copy-on-write may duplicate every page the process writes
// while snap copies, up to all its anonymous memory: that much must be free.
std::string forkRefusal(const ForkConditions& c);

class ProcessCopy {
 public:
  // Makes the copy of process `pid`: `thread`, held stopped by the caller,
  // calls clone(2) and is left exactly as it was (a signal arriving
  // meanwhile goes to its pending_signal, or back to the thread). An Error
  // says why there is no copy; the process is then unchanged.
  static Expected<ProcessCopy> make(pid_t pid, StoppedThread& thread, uint64_t syscall_at);

  ProcessCopy(ProcessCopy&& other) noexcept;
  ProcessCopy& operator=(ProcessCopy&&) = delete;
  ProcessCopy(const ProcessCopy&) = delete;
  ~ProcessCopy() { (void)discard(); }

  pid_t pid() const { return copy_; }
  uint64_t forkNanoseconds() const { return fork_ns_; }
  // Whether the copy is still there (the OOM killer may choose it).
  bool alive() const;
  // Memory the copy holds alone: the pages the process wrote since the
  // fork, which the kernel had to duplicate. 0 when it cannot be read.
  uint64_t copiedOnWriteBytes() const;
  // Kills the copy and has the process reap it. Safe to call twice; an
  // Error (the copy is dead either way) when the process could not be made
  // to reap it, naming the zombie left behind.
  Status discard();

 private:
  ProcessCopy(pid_t parent, pid_t copy, uint64_t syscall_at, uint64_t fork_ns)
      : parent_(parent), copy_(copy), syscall_at_(syscall_at), fork_ns_(fork_ns) {}

  pid_t parent_ = 0, copy_ = 0;
  uint64_t syscall_at_ = 0;  // a syscall instruction in the process's code
  uint64_t fork_ns_ = 0;
};

// The address of a syscall instruction in one of `pid`'s executable
// mappings (`maps_text`: /proc/PID/maps), read through process_vm_readv;
// 0 when there is none to be found.
uint64_t findSyscallInstruction(pid_t pid, const std::string& maps_text);

}  // namespace goheap::acquire
