#include "util/signal_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

namespace goheap {

namespace {

// Process-wide because a signal handler can reach nothing else: fixed slots
// of plain characters, claimed under a mutex, read by the handler without one.
constexpr int kCleanupSlots = 16;
struct CleanupSlot {
  std::atomic<bool> in_use{false};
  char path[PATH_MAX] = {};
};
CleanupSlot g_cleanup[kCleanupSlots];
std::mutex g_cleanup_mutex;

void unlinkRegistered() {
  for (CleanupSlot& slot : g_cleanup) {
    if (slot.in_use.load(std::memory_order_acquire)) ::unlink(slot.path);
  }
}

void removeTemporariesAndDie(int signal_number) {
  unlinkRegistered();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void installCleanupHandlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    ::sigaction(sig, nullptr, &previous);
    if (previous.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = removeTemporariesAndDie;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

}  // namespace

void installSignalCleanup() {
  static std::once_flag installed;
  std::call_once(installed, installCleanupHandlers);
}

int removeOnSignal(const std::string& path) {
  installSignalCleanup();
  if (path.size() >= PATH_MAX) return -1;
  std::lock_guard lock(g_cleanup_mutex);
  for (int i = 0; i < kCleanupSlots; ++i) {
    CleanupSlot& slot = g_cleanup[i];
    if (slot.in_use.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.in_use.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void keepOnSignal(int slot) {
  if (slot < 0) return;
  std::lock_guard lock(g_cleanup_mutex);
  g_cleanup[slot].in_use.store(false, std::memory_order_release);
}

void removeRegisteredFiles() {
  std::lock_guard lock(g_cleanup_mutex);
  unlinkRegistered();
}

}  // namespace goheap
