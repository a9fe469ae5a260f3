#include "acquire/process_stopper.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
    if (errno == ENOENT) return Error("no process with PID " + std::to_string(pid));
    return Error("cannot list " + dir + ": " + std::strerror(errno));
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

std::string explainNoPermission(pid_t pid) {
  std::string why = "not allowed to trace process " + std::to_string(pid);
  Expected<ProcStatus> st = readProcStatus(pid);
  if (st && st->tracer_pid != 0) {
    std::string tracer = std::to_string(st->tracer_pid);
    if (Expected<ProcStatus> t = readProcStatus(st->tracer_pid)) tracer += " (" + t->name + ")";
    return why + ": it is already traced by process " + tracer +
           "; a process has one tracer at a time: detach the debugger (dlv, gdb, strace) first";
  }
  if (st && st->real_uid != ::geteuid() && ::geteuid() != 0) {
    return why + ": it belongs to user " + std::to_string(st->real_uid) + " and you are user " +
           std::to_string(::geteuid()) +
           "; run goheap snap as that user, or as root (or with CAP_SYS_PTRACE)";
  }
  Expected<std::string> scope = Error("");
  {
    // Yama's ptrace_scope: 1 lets a process trace only its descendants.
    const int fd = ::open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char c = 0;
      if (::read(fd, &c, 1) == 1) scope = std::string(1, c);
      ::close(fd);
    }
  }
  if (scope && *scope != "0") {
    return why + ": /proc/sys/kernel/yama/ptrace_scope is " + *scope +
           " (1 allows tracing only one's own children, 2 only with CAP_SYS_PTRACE, 3 none); "
           "run goheap snap with sudo, or set it to 0 (sysctl kernel.yama.ptrace_scope=0)";
  }
  return why +
         ": it may have made itself undumpable (prctl PR_SET_DUMPABLE), or goheap lacks "
         "CAP_SYS_PTRACE in this container; run it as root or as the process's user";
}

Status ProcessStopper::seize(pid_t tid) {
  if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    const int err = errno;
    if (err == ESRCH) return Status::success();  // the thread ended: nothing to stop
    if (err == EPERM) return Error(explainNoPermission(pid_));
    return Error("cannot stop thread " + std::to_string(tid) + " of process " +
                 std::to_string(pid_) + ": " + std::strerror(err));
  }
  threads_.push_back({tid, 0, {}});
  if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 && errno != ESRCH) {
    return Error("cannot interrupt thread " + std::to_string(tid) + ": " + std::strerror(errno));
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
      return Error("cannot wait for thread " + std::to_string(t.tid) + ": " + std::strerror(errno));
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
    Expected<std::vector<pid_t>> tids = listThreads(pid_);
    if (!tids) return tids.error();
    std::vector<pid_t> fresh;
    for (pid_t tid : *tids) {
      if (seen.insert(tid).second) fresh.push_back(tid);
    }
    if (fresh.empty()) break;
    if (round > 1000) return Error("process " + std::to_string(pid_) + " keeps starting threads");
    const size_t first_new = threads_.size();
    for (pid_t tid : fresh) {
      if (Status s = seize(tid); !s) return s;
    }
    for (size_t i = first_new; i < threads_.size();) {
      Expected<bool> stopped = waitStopped(threads_[i], interrupted);
      if (!stopped) return stopped.error();
      if (!*stopped) {
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
