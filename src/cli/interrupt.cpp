#include "cli/interrupt.h"

#include "util/signal_cleanup.h"

namespace goheap::cli {

std::atomic<bool> g_interrupted{false};

namespace {

void noteInterrupt(int) {
  g_interrupted.store(true);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  // Over the temporary files' handlers, which the first output file would
  // otherwise install over these.
  installSignalCleanup();
  struct sigaction action {};
  action.sa_handler = noteInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked wait returns EINTR
  for (int i = 0; i < 3; i++) ::sigaction(kSignals[i], &action, &previous_[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; i++) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

}  // namespace goheap::cli
