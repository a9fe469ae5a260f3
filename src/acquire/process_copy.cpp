#include "acquire/process_copy.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <sys/user.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string_view>

#include "acquire/proc_status.h"
#include "acquire/seccomp_filter.h"
#include "util/format.h"

namespace goheap::acquire {

namespace {

#if defined(__x86_64__)

// A system call for a stopped thread to make.
struct SyscallRequest {
  long number = 0;
  std::array<uint64_t, 6> args{};
};

Status ptraceError(const char* what, pid_t tid) {
  return Error::io(std::string("cannot ") + what + " thread " + std::to_string(tid) + ": " +
                   std::strerror(errno));
}

// Makes `thread` (in a ptrace stop) execute the syscall instruction at
// `syscall_at` with `request`, then puts its registers back as they were.
// orig_rax = -1 keeps the kernel from restarting the system call the
// thread was in (it is restarted, as it would have been, when the thread
// resumes with its own registers). A signal arriving meanwhile is held
// back, then given back to the thread. `cloned` gets the pid a clone
// event reports. The syscall's return value (a negative errno on failure).
Expected<int64_t> runSyscall(pid_t tgid, StoppedThread& thread, uint64_t syscall_at,
                             const SyscallRequest& request, pid_t* cloned) {
  const pid_t tid = thread.tid;
  user_regs_struct saved{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &saved) != 0) {
    return ptraceError("read the registers of", tid).error();
  }
  user_regs_struct regs = saved;
  regs.rip = syscall_at;
  regs.rax = static_cast<unsigned long long>(request.number);
  regs.orig_rax = ~0ULL;
  regs.rdi = request.args[0];
  regs.rsi = request.args[1];
  regs.rdx = request.args[2];
  regs.r10 = request.args[3];
  regs.r8 = request.args[4];
  regs.r9 = request.args[5];
  if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) {
    return ptraceError("set the registers of", tid).error();
  }
  std::vector<int> held_back;
  auto finish = [&](Expected<int64_t> result) -> Expected<int64_t> {
    if (::ptrace(PTRACE_SETREGS, tid, nullptr, &saved) != 0 && result) {
      result = ptraceError("restore the registers of", tid).error();
    }
    for (int sig : held_back) {
      if (thread.pending_signal == 0) {
        thread.pending_signal = sig;
      } else {
        ::syscall(SYS_tgkill, tgid, tid, sig);
      }
    }
    return result;
  };
  for (int step = 0; step < 64; step++) {
    if (::ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) {
      return finish(ptraceError("step", tid).error());
    }
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(tid, &status, __WALL);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return finish(ptraceError("wait for", tid).error());
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      return Error("thread " + std::to_string(tid) + " exited during a system call goheap made");
    }
    if (!WIFSTOPPED(status)) continue;
    const int event = status >> 16;
    if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK) {
      unsigned long message = 0;
      if (cloned != nullptr && ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message) == 0) {
        *cloned = static_cast<pid_t>(message);
      }
      continue;
    }
    if (event != 0) continue;  // an interrupt still pending from the stop
    const int sig = WSTOPSIG(status);
    if (sig == SIGTRAP) {
      user_regs_struct now{};
      if (::ptrace(PTRACE_GETREGS, tid, nullptr, &now) != 0) {
        return finish(ptraceError("read the registers of", tid).error());
      }
      if (now.rip == syscall_at + 2) return finish(static_cast<int64_t>(now.rax));
      if (now.rip != syscall_at)
        return finish(Error("thread " + std::to_string(tid) + " went astray"));
      continue;
    }
    held_back.push_back(sig);
  }
  return finish(Error("thread " + std::to_string(tid) + " did not finish a system call"));
}

// `pid` as the processes of its own PID namespace (a container's) know it:
// clone returns that pid, and wait4 takes it, while ptrace's events and
// /proc give goheap its pid in goheap's namespace.
pid_t pidInItsNamespace(pid_t pid) {
  Expected<ProcStatus> st = readProcStatus(pid);
  return st && st->innermost_pid != 0 ? st->innermost_pid : pid;
}

// Has `thread` of `parent` (in a ptrace stop) reap the zombie `copy`
// left when it was killed (killCopy).
Status reapCopy(pid_t parent, pid_t copy, StoppedThread& thread, uint64_t syscall_at) {
  const pid_t known_as = pidInItsNamespace(copy);
  SyscallRequest wait4;
  wait4.number = SYS_wait4;
  wait4.args = {
      static_cast<uint64_t>(known_as), 0, static_cast<uint64_t>(WNOHANG | __WALL), 0, 0, 0};
  Expected<int64_t> reaped = runSyscall(parent, thread, syscall_at, wait4, nullptr);
  if (reaped && *reaped == known_as) return Status::success();
  return Error::io("process " + std::to_string(parent) + " could not be made to reap its copy (" +
                   (reaped ? std::string(*reaped < 0 ? std::strerror(static_cast<int>(-*reaped))
                                                     : "not yet exited")
                           : reaped.error().message()) +
                   "): a zombie, pid " + std::to_string(copy) +
                   ", stays until the process exits; it sends no signal");
}

void killCopy(pid_t copy) {
  ::kill(copy, SIGKILL);
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(copy, &status, __WALL);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || WIFEXITED(status) || WIFSIGNALED(status)) return;
  }
}

#endif

}  // namespace

ForkConditions readForkConditions(pid_t pid) {
  ForkConditions c;
#if defined(__x86_64__)
  c.amd64 = true;
#endif
  if (Expected<ProcStatus> st = readProcStatus(pid)) c.rss_anon_bytes = st->rss_anon_bytes;
  // Seccomp filters are per thread: the thread made to fork could be any.
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const pid_t tid = static_cast<pid_t>(std::strtol(task.path().filename().c_str(), nullptr, 10));
    if (Expected<ProcStatus> st = readProcStatus(pid, tid))
      c.seccomp = std::max(c.seccomp, st->seccomp);
  }
  c.mem_available_bytes = memAvailableBytes();
  const std::optional<CgroupMemory> cgroup = readCgroupMemory(pid);
  c.cgroup_room_bytes = cgroup ? cgroupRoom(*cgroup) : std::numeric_limits<uint64_t>::max();
  return c;
}

std::string seccompForkProblem(pid_t tid, uint64_t syscall_at, bool fork_anyway,
                               uint64_t rss_anon_bytes) {
  // Filters are per thread, and only the forking thread's matter: the copy
  // inherits them, and the same thread reaps it.
  if (Expected<ProcStatus> st = readProcStatus(tid, tid); st && st->seccomp == 0) return "";
  Expected<std::vector<SeccompProgram>> filters = readSeccompFilters(tid);
  if (filters) return forkUnderSeccompProblem(*filters, syscall_at);
  if (fork_anyway) return "";
  return "the process runs under seccomp (Seccomp: 2 in /proc/PID/status), and its filters, "
         "which could kill it for calling clone(2), cannot be read (" +
         filters.error().message() +
         "). If its profile answers refused calls with an error, as Docker's and containerd's "
         "default (Kubernetes' RuntimeDefault) does, --fork-under-seccomp forks anyway: a pause "
         "of milliseconds instead of one as long as copying up to " +
         formatBytes(rss_anon_bytes) + " of its memory";
}

std::string forkRefusal(const ForkConditions& c) {
  if (!c.amd64) return "fork snapshots are implemented for amd64 only";
  if (c.seccomp == 1) {
    return "the process runs in seccomp's strict mode (Seccomp: 1 in /proc/PID/status), which "
           "kills it for calling clone(2)";
  }
  if (c.seccomp != 0 && !c.seccomp_problem) {
    return "the process runs under seccomp (Seccomp: " + std::to_string(c.seccomp) +
           " in /proc/PID/status), whose filters were not checked";
  }
  if (c.seccomp != 0 && !c.seccomp_problem->empty()) return *c.seccomp_problem;
  const uint64_t need = forkWorstCaseBytes(c.rss_anon_bytes);
  if (c.mem_available_bytes < need) {
    return "copy-on-write may need up to " + formatBytes(need) +
           " (the process's anonymous memory and a margin) and the machine has " +
           formatBytes(c.mem_available_bytes) + " available";
  }
  if (c.cgroup_room_bytes < kForkCgroupMargin) {
    return "its memory cgroup has " + formatBytes(c.cgroup_room_bytes) +
           " left below its limit, less than the " + formatBytes(kForkCgroupMargin) +
           " a fork keeps free";
  }
  if (c.cgroup_room_bytes < need && !c.core_restartable) {
    return "copy-on-write may need up to " + formatBytes(need) +
           " (the process's anonymous memory and a margin) and its memory cgroup has " +
           formatBytes(c.cgroup_room_bytes) +
           " left below its limit; a fork dropped to keep that room could not be copied again "
           "into a core already streamed (-o -): write to a file to fork";
  }
  return "";
}

uint64_t forkWorstCaseBytes(uint64_t rss_anon_bytes) {
  // Every page the process writes during the copy is duplicated; a full
  // rewrite duplicates all its anonymous memory. Keep a margin besides.
  return rss_anon_bytes + rss_anon_bytes / 8 + (64 << 20);
}

CgroupGuard::CgroupGuard(pid_t pid, pid_t copy, uint64_t margin)
    : copy_(copy), margin_(margin), least_room_(std::numeric_limits<uint64_t>::max()) {
  std::optional<CgroupMemory> cgroup = readCgroupMemory(pid);
  if (!cgroup || !cgroup->limit_bytes) return;
  thread_ =
      std::thread([this, cgroup = std::move(*cgroup)]() mutable { watch(std::move(cgroup)); });
}

void CgroupGuard::watch(CgroupMemory cgroup) {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (rereadCgroupMemory(cgroup)) {
      const uint64_t room = cgroupRoom(cgroup);
      if (room < least_room_.load()) least_room_.store(room);
      if (room < margin_) {
        ::kill(copy_, SIGKILL);
        tripped_room_.store(room);
        tripped_.store(true);
        return;
      }
    }
    wake_.wait_for(lock, std::chrono::milliseconds(2), [this] { return stopping_; });
  }
}

void CgroupGuard::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<uint64_t> CgroupGuard::trippedAtRoom() const {
  if (!tripped_.load()) return std::nullopt;
  return tripped_room_.load();
}

uint64_t findSyscallInstruction(pid_t pid, const std::string& maps_text) {
  std::string_view rest = maps_text;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    // "start-end perms ...": readable and executable code.
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || line.size() < space + 4) continue;
    if (line[space + 1] != 'r' || line[space + 3] != 'x') continue;
    const uint64_t start =
        std::strtoull(std::string(line.substr(0, line.find('-'))).c_str(), nullptr, 16);
    const uint64_t end =
        std::strtoull(std::string(line.substr(line.find('-') + 1)).c_str(), nullptr, 16);
    constexpr uint64_t kChunk = 64 << 10, kMaxScan = 16 << 20;
    std::vector<uint8_t> buffer(kChunk + 1);
    for (uint64_t at = start; at < end && at < start + kMaxScan; at += kChunk) {
      const uint64_t n = std::min<uint64_t>(kChunk + 1, end - at);
      iovec local{buffer.data(), n};
      iovec remote{reinterpret_cast<void*>(at), n};
      if (::process_vm_readv(pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(n)) break;
      for (uint64_t i = 0; i + 1 < n; i++) {
        if (buffer[i] == 0x0f && buffer[i + 1] == 0x05) return at + i;
      }
    }
  }
  return 0;
}

#if defined(__x86_64__)

Expected<ProcessCopy> ProcessCopy::make(pid_t pid, StoppedThread& thread, uint64_t syscall_at) {
  if (thread.registers.size() != sizeof(user_regs_struct)) {
    return Error("the process is not a 64-bit one");
  }
  if (syscall_at == 0) return Error("no syscall instruction was found in the process's code");
  if (::ptrace(PTRACE_SETOPTIONS, thread.tid, nullptr, PTRACE_O_TRACECLONE) != 0) {
    return ptraceError("set options on", thread.tid).error();
  }
  // clone(flags 0): a fork whose child sends no signal when it dies.
  SyscallRequest clone;
  clone.number = SYS_clone;
  pid_t copy = 0;
  const auto start = std::chrono::steady_clock::now();
  Expected<int64_t> result = runSyscall(pid, thread, syscall_at, clone, &copy);
  const auto fork_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  ::ptrace(PTRACE_SETOPTIONS, thread.tid, nullptr, 0);
  if (copy != 0) {
    // Born stopped (traced from its start); from now on it dies with us.
    int status = 0;
    while (::waitpid(copy, &status, __WALL) < 0 && errno == EINTR) {
    }
    ::ptrace(PTRACE_SETOPTIONS, copy, nullptr, PTRACE_O_EXITKILL);
    // Should its memory cgroup run out all the same, the OOM killer is to
    // take the copy, not the process (raising the score needs no privilege).
    if (std::FILE* adj =
            std::fopen(("/proc/" + std::to_string(copy) + "/oom_score_adj").c_str(), "w")) {
      std::fputs("1000", adj);
      std::fclose(adj);
    }
  }
  if (!result || copy == 0 || *result != pidInItsNamespace(copy)) {
    std::string why =
        !result       ? result.error().message()
        : *result < 0 ? "clone failed: " + std::string(std::strerror(static_cast<int>(-*result)))
                      : "clone reported no child";
    if (copy != 0) {
      killCopy(copy);
      if (Status s = reapCopy(pid, copy, thread, syscall_at); !s) why += "; " + s.error().message();
    }
    return Error::io(why);
  }
  // The copy shares the process's open files: closing its own lets a
  // socket the process closes during the snap really close.
  StoppedThread copy_thread{copy, 0, {}};
  SyscallRequest close_all;
  close_all.number = SYS_close_range;
  close_all.args = {0, ~0U, 0, 0, 0, 0};
  (void)runSyscall(copy, copy_thread, syscall_at, close_all, nullptr);
  return ProcessCopy(pid, copy, syscall_at, fork_ns);
}

Status ProcessCopy::discard() {
  if (copy_ == 0) return Status::success();
  const pid_t copy = copy_;
  copy_ = 0;
  killCopy(copy);
  // The zombie is the process's child now; a moment's stop to reap it.
  if (!readProcStatus(parent_)) return Status::success();  // gone: init reaps it
  ProcessStopper stopper(parent_);
  if (Status s = stopper.stopAll(nullptr); !s) {
    return Error::io("cannot stop process " + std::to_string(parent_) +
                     " to reap its copy: " + s.error().message());
  }
  StoppedThread& thread = stopper.threads().front();
  return reapCopy(parent_, copy, thread, syscall_at_);
}

#else

Expected<ProcessCopy> ProcessCopy::make(pid_t, StoppedThread&, uint64_t) {
  return Error("fork snapshots are implemented for amd64 only");
}

Status ProcessCopy::discard() {
  return Status::success();
}

#endif

ProcessCopy::ProcessCopy(ProcessCopy&& other) noexcept
    : parent_(other.parent_),
      copy_(other.copy_),
      syscall_at_(other.syscall_at_),
      fork_ns_(other.fork_ns_) {
  other.copy_ = 0;
}

bool ProcessCopy::alive() const {
  Expected<ProcStatus> st = readProcStatus(copy_);
  return st && st->state != 'Z' && st->state != 'X';
}

uint64_t ProcessCopy::copiedOnWriteBytes() const {
  const std::string rollup = readFileOrEmpty("/proc/" + std::to_string(copy_) + "/smaps_rollup");
  return kibibyteField(rollup, "Private_Clean:") + kibibyteField(rollup, "Private_Dirty:");
}

}  // namespace goheap::acquire
