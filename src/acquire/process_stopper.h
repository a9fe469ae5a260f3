// Holds every thread of a process stopped, with ptrace, for as long as it
// lives, and lets them all go when it dies, whatever happened in between.
//
// PTRACE_SEIZE and PTRACE_INTERRUPT stop a thread without sending it a
// signal (PTRACE_ATTACH's SIGSTOP would stay pending, or stop the process
// for its parent to see). A signal that arrives while a thread is being
// stopped is reported to the tracer instead of delivered; it is handed back
// when the thread is let go (PTRACE_DETACH with the signal), so the process
// loses none. Go sends itself SIGURG for preemption all the time.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "util/error.h"

namespace goheap::acquire {

struct StoppedThread {
  pid_t tid = 0;
  int pending_signal = 0;  // to hand back on detach
  // The general registers as NT_PRSTATUS holds them (PTRACE_GETREGSET).
  std::vector<uint8_t> registers;
};

class ProcessStopper {
 public:
  explicit ProcessStopper(pid_t pid) : pid_(pid) {}
  ProcessStopper(const ProcessStopper&) = delete;
  ProcessStopper& operator=(const ProcessStopper&) = delete;
  ~ProcessStopper() { resumeAll(); }

  // Stops every thread, including those started while it works, and reads
  // their registers. `interrupted` (when set) ends the wait early. An Error
  // says why the process cannot be stopped (permission, another tracer, gone).
  Status stopAll(const std::atomic<bool>* interrupted);

  // Lets every stopped thread go, each with the signal it was about to get.
  // Safe to call twice.
  void resumeAll();

  const std::vector<StoppedThread>& threads() const { return threads_; }
  // For a caller that makes a stopped thread do something (process_copy.h)
  // and may add to the signal it gets back.
  std::vector<StoppedThread>& threads() { return threads_; }
  // Whether the whole process is gone (killed while stopped).
  bool processGone() const;

 private:
  Status seize(pid_t tid);
  // Waits for `tid` to stop; false when it exited instead.
  Expected<bool> waitStopped(StoppedThread& t, const std::atomic<bool>* interrupted);

  pid_t pid_;
  std::vector<StoppedThread> threads_;  // seized, in the order they were
};

// Why `pid` cannot be traced, for an EPERM from ptrace or EACCES from /proc:
// another tracer, the Yama ptrace scope, another user, a process that made
// itself undumpable. Worded for the user, naming what would fix it.
std::string explainNoPermission(pid_t pid);

}  // namespace goheap::acquire
