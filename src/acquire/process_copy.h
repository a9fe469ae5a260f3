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

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acquire/proc_status.h"
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
  // Whether the core can be begun again from its first byte (a file, not a
  // pipe): then a fork the cgroup guard drops is copied again, stopped.
  bool core_restartable = true;
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

// The least room a memory cgroup keeps while a fork of one of its processes
// is read: below it the fork is not made, or dropped (CgroupGuard). A Go
// program allocating flat out writes about 1 GiB/s: the guard, looking every
// 2 ms, sees the room fall long before these 8 MiB are gone.
inline constexpr uint64_t kForkCgroupMargin = uint64_t{8} << 20;

// The worst case of copy-on-write for a process with `rss_anon_bytes` of
// anonymous memory: all of it rewritten during the copy, and a margin.
uint64_t forkWorstCaseBytes(uint64_t rss_anon_bytes);

// Why a fork copy must not be made under `c`, worded for the user, or ""
// when it may. Copy-on-write may duplicate every page the process writes
// while snap copies, up to all its anonymous memory: the machine must have
// that much available. A memory cgroup needs only kForkCgroupMargin of room,
// because CgroupGuard watches it, unless the core cannot be begun again.
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

// Watches the memory cgroup of process `pid` while its fork `copy` is read,
// from a thread of its own, every 2 ms. When the cgroup's room falls below
// `margin` it kills the fork at once (SIGKILL): the pages copy-on-write
// duplicated go with it, before the kernel's OOM killer must choose a
// victim, which could be the process itself. The snap then copies the
// process again, stopped (snap.cpp).
class CgroupGuard {
 public:
  // Nothing is watched when `pid` has no memory cgroup with a limit.
  CgroupGuard(pid_t pid, pid_t copy, uint64_t margin);
  ~CgroupGuard() { stop(); }
  CgroupGuard(const CgroupGuard&) = delete;
  CgroupGuard& operator=(const CgroupGuard&) = delete;

  // Ends the watch; safe to call twice. Call it before the fork is reaped,
  // so that its pid is never signalled once it may be reused.
  void stop();
  // The room seen when the guard killed the fork; nothing if it did not.
  std::optional<uint64_t> trippedAtRoom() const;
  // The least room seen while watching (UINT64_MAX when nothing was seen).
  uint64_t leastRoom() const { return least_room_.load(); }

 private:
  void watch(CgroupMemory cgroup);

  pid_t copy_;
  uint64_t margin_;
  std::atomic<bool> tripped_{false};
  std::atomic<uint64_t> tripped_room_{0};
  std::atomic<uint64_t> least_room_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// The address of a syscall instruction in one of `pid`'s executable
// mappings (`maps_text`: /proc/PID/maps), read through process_vm_readv;
// 0 when there is none to be found.
uint64_t findSyscallInstruction(pid_t pid, const std::string& maps_text);

}  // namespace goheap::acquire
