// SIGINT, SIGTERM and SIGHUP for commands that hold a process stopped
// (snap) or watch one (watch): the process must be let go before goheap
// ends, so the handler only sets a flag the command checks, and blocked
// waits return EINTR instead of being restarted.
#pragma once

#include <signal.h>

#include <atomic>

namespace goheap::cli {

// Set by the handler of an InterruptGuard; commands read it and may clear it.
extern std::atomic<bool> g_interrupted;

// While it lives, the three signals set g_interrupted instead of ending
// goheap, whatever files are registered for removal meanwhile
// (util/signal_cleanup.h); the handlers before it come back when it goes.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  // Neither copied nor moved (a deleted move deletes the copies too): the
  // handlers it saved come back once.
  InterruptGuard(InterruptGuard&&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3];
};

}  // namespace goheap::cli
