#include "acquire/process_stopper.h"

#include <dirent.h>
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "acquire/proc_status.h"

namespace goheap::acquire {

namespace {

// The thread ids under /proc/PID/task.
Expected<std::vector<pid_t>> listThreads(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return Error::notFound("no process with PID " + std::to_string(pid));
    return Error::io("cannot list " + dir + ": " + std::strerror(errno));
  }
  std::vector<pid_t> tids;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    tids.push_back(static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10)));
  }
  ::closedir(d);
  return tids;
}

std::vector<uint8_t> readRegisters(pid_t tid) {
  // Big enough for any machine's elf_gregset_t.
  std::vector<uint8_t> regs(4096);
  iovec io{regs.data(), regs.size()};
  if (::ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS), &io) != 0) return {};
  regs.resize(io.iov_len);
  return regs;
}

}  // namespace

namespace {

constexpr int kCapSysPtrace = 19;

// Where goheap may not trace, what lets it: a debug container that may, or
// no tracing at all.
constexpr std::string_view kWaysOut =
    ". Ways out: in Kubernetes, run goheap in `kubectl debug -it POD --target=CONTAINER "
    "--profile=general --image=IMAGE` (the general profile adds CAP_SYS_PTRACE); in Docker, in "
    "a container started with `--cap-add SYS_PTRACE --pid container:NAME`; or, where nothing "
    "may trace the program, have it serve its own heap with goheap's capture package (README, "
    "\"From a service\")";

// Yama's ptrace_scope, or -1 without Yama.
int yamaScope() {
  const std::string text = readFileOrEmpty("/proc/sys/kernel/yama/ptrace_scope");
  return text.empty() || text[0] < '0' || text[0] > '9' ? -1 : text[0] - '0';
}

// Whether the target made itself undumpable, as far as goheap can see: the
// kernel gives the /proc files of an undumpable process to root, so a
// process of another user whose /proc folder is root's is one. Not visible
// for a process that runs as root.
bool looksUndumpable(pid_t pid, const ProcStatus& target) {
  struct stat st {};
  const std::string dir = "/proc/" + std::to_string(pid);
  return target.effective_uid != 0 && ::stat(dir.c_str(), &st) == 0 && st.st_uid == 0;
}

std::string hexCapabilities(uint64_t caps) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(caps));
  return text;
}

}  // namespace

std::string explainNoPermission(pid_t pid) {
  std::string why = "not allowed to trace process " + std::to_string(pid);
  Expected<ProcStatus> st = readProcStatus(pid);
  if (st && st->tracer_pid != 0) {
    std::string tracer = std::to_string(st->tracer_pid);
    if (Expected<ProcStatus> t = readProcStatus(st->tracer_pid)) tracer += " (" + t->name + ")";
    return why + ": it is already traced by process " + tracer +
           "; a process has one tracer at a time: detach the debugger (dlv, gdb, strace) first";
  }
  const Expected<ProcStatus> self = readOwnProcStatus();
  const bool may_trace_anyone = self && ((self->effective_capabilities >> kCapSysPtrace) & 1) != 0;
  const uid_t me = ::geteuid();
  // Root whose capabilities a container cut: its uid says root, but the
  // kernel asks for CAP_SYS_PTRACE.
  const std::string no_capability = self ? "goheap's effective capabilities (CapEff " +
                                               hexCapabilities(self->effective_capabilities) +
                                               " in /proc/self/status) lack CAP_SYS_PTRACE"
                                         : std::string("goheap lacks CAP_SYS_PTRACE");
  if (st && st->real_uid != me && !may_trace_anyone) {
    std::string text = why + ": it belongs to user " + std::to_string(st->real_uid) + " and ";
    if (me == 0) {
      return text + "goheap runs as root, but " + no_capability +
             ", which tracing another user's process needs (a container's default capabilities "
             "leave it out)" +
             std::string(kWaysOut);
    }
    return text + "you are user " + std::to_string(me) +
           "; run goheap snap as that user, or as root (or with CAP_SYS_PTRACE)";
  }
  if (st && !may_trace_anyone && looksUndumpable(pid, *st)) {
    return why +
           ": it made itself undumpable (its /proc files belong to root though it runs as "
           "user " +
           std::to_string(st->effective_uid) +
           ": prctl(PR_SET_DUMPABLE, 0), or it changed its user or gained capabilities), and "
           "only a tracer with CAP_SYS_PTRACE may trace it: " +
           no_capability + std::string(kWaysOut);
  }
  const int scope = yamaScope();
  if (scope == 3 || (scope >= 1 && !may_trace_anyone)) {
    return why + ": /proc/sys/kernel/yama/ptrace_scope is " + std::to_string(scope) +
           " (1 allows tracing only one's own children without CAP_SYS_PTRACE, 2 only with "
           "CAP_SYS_PTRACE, 3 none); " +
           (scope == 3 ? "no process may be traced until the machine restarts"
                       : "run goheap snap with sudo, or set it to 0 (sysctl "
                         "kernel.yama.ptrace_scope=0)");
  }
  if (self && self->seccomp != 0) {
    return why + ": goheap runs under seccomp (Seccomp: " + std::to_string(self->seccomp) +
           " in /proc/self/status), as a container's default profile sets, and its filter may "
           "refuse ptrace(2); " +
           (may_trace_anyone ? "goheap holds CAP_SYS_PTRACE" : no_capability) +
           ". Run goheap without that filter (Docker: `--security-opt seccomp=unconfined`; "
           "Kubernetes: seccompProfile Unconfined in the debug container)" +
           std::string(kWaysOut);
  }
  if (!may_trace_anyone && me == 0) {
    return why + ": goheap runs as root, but " + no_capability + std::string(kWaysOut);
  }
  return why +
         ": it may have made itself undumpable (prctl PR_SET_DUMPABLE), or a security module "
         "(AppArmor, SELinux) refuses it; run goheap as root or as the process's user" +
         std::string(kWaysOut);
}

Status ProcessStopper::seize(pid_t tid) {
  if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    const int err = errno;
    if (err == ESRCH) return Status::success();  // the thread ended: nothing to stop
    if (err == EPERM) return Error::io(explainNoPermission(pid_));
    return Error::io("cannot stop thread " + std::to_string(tid) + " of process " +
                     std::to_string(pid_) + ": " + std::strerror(err));
  }
  threads_.push_back({tid, 0, {}});
  if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 && errno != ESRCH) {
    return Error::io("cannot interrupt thread " + std::to_string(tid) + ": " +
                     std::strerror(errno));
  }
  return Status::success();
}

Expected<bool> ProcessStopper::waitStopped(StoppedThread& t, const std::atomic<bool>* interrupted) {
  for (;;) {
    int status = 0;
    const pid_t got = ::waitpid(t.tid, &status, __WALL);
    if (got < 0) {
      if (errno == EINTR) {
        if (interrupted != nullptr && interrupted->load()) return Error("interrupted");
        continue;
      }
      if (errno == ECHILD) return false;  // gone
      return Error::io("cannot wait for thread " + std::to_string(t.tid) + ": " +
                       std::strerror(errno));
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) return false;
    if (!WIFSTOPPED(status)) continue;
    const int sig = WSTOPSIG(status);
    const int event = status >> 16;
    if (event == PTRACE_EVENT_STOP) return true;  // our interrupt, or a group stop
    if (event != 0) {
      // Another ptrace event (none are asked for): keep the thread stopped.
      return true;
    }
    // A signal on its way to the thread: keep it to hand back on detach.
    // The thread is stopped now; the interrupt stays pending and is
    // cleared by the detach.
    t.pending_signal = sig;
    return true;
  }
}

Status ProcessStopper::stopAll(const std::atomic<bool>* interrupted) {
  std::set<pid_t> seen;
  // New threads can start until every thread is stopped: list again until
  // a listing finds none.
  for (int round = 0;; round++) {
    GOHEAP_TRY(std::vector<pid_t> tids, listThreads(pid_));
    std::vector<pid_t> fresh;
    for (pid_t tid : tids) {
      if (seen.insert(tid).second) fresh.push_back(tid);
    }
    if (fresh.empty()) break;
    if (round > 1000) return Error("process " + std::to_string(pid_) + " keeps starting threads");
    const size_t first_new = threads_.size();
    for (pid_t tid : fresh) {
      if (Status s = seize(tid); !s) return s;
    }
    for (size_t i = first_new; i < threads_.size();) {
      GOHEAP_TRY(bool stopped, waitStopped(threads_[i], interrupted));
      if (!stopped) {
        threads_.erase(threads_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      i++;
    }
  }
  if (threads_.empty()) return Error("process " + std::to_string(pid_) + " has exited");
  for (StoppedThread& t : threads_) t.registers = readRegisters(t.tid);
  return Status::success();
}

void ProcessStopper::resumeAll() {
  for (const StoppedThread& t : threads_) {
    ::ptrace(PTRACE_DETACH, t.tid, nullptr, reinterpret_cast<void*>(intptr_t{t.pending_signal}));
  }
  threads_.clear();
}

bool ProcessStopper::processGone() const {
  Expected<ProcStatus> st = readProcStatus(pid_);
  return !st || st->state == 'Z' || st->state == 'X';
}

}  // namespace goheap::acquire
