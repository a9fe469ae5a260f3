#include "util/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace goheap::mapping_guard {

namespace {

struct Slot {
  std::atomic<bool> in_use{false};
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> size{0};
  std::atomic<bool> faulted{false};
};

// Process-wide by necessity: the SIGBUS handler has no other way in.
Slot g_slots[kMaxGuarded];
std::mutex g_slots_mutex;  // taken to claim and release slots, never in the handler
struct sigaction g_previous {};
size_t g_page_size = 4096;

static_assert(std::atomic<uintptr_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler reads the table without locks");

void onBusError(int signal_number, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    if (!slot.in_use.load(std::memory_order_acquire)) continue;
    const uintptr_t begin = slot.begin.load(std::memory_order_relaxed);
    const size_t size = slot.size.load(std::memory_order_relaxed);
    if (addr < begin || addr - begin >= size) continue;
    // Zero pages in place of the file, at the same address, so that every
    // pointer into the mapping stays valid. mmap is a plain system call here.
    const size_t length = (size + g_page_size - 1) / g_page_size * g_page_size;
    ::mmap(reinterpret_cast<void*>(begin), length, PROT_READ,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    slot.faulted.store(true, std::memory_order_release);
    return;  // the faulting read is retried and now sees zeros
  }
  // Not a mapping of ours: a real bug. Hand it to whoever handled SIGBUS
  // before us, or let the default action (a core dump) happen on return.
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(signal_number);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
}

void installHandler() {
  g_page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

int guard(const void* begin, size_t size) {
  static std::once_flag installed;
  std::call_once(installed, installHandler);
  std::lock_guard lock(g_slots_mutex);
  for (int i = 0; i < kMaxGuarded; ++i) {
    Slot& slot = g_slots[i];
    if (slot.in_use.load(std::memory_order_relaxed)) continue;
    slot.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_relaxed);
    slot.size.store(size, std::memory_order_relaxed);
    slot.faulted.store(false, std::memory_order_relaxed);
    slot.in_use.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void release(int slot) {
  if (slot < 0 || slot >= kMaxGuarded) return;
  std::lock_guard lock(g_slots_mutex);
  g_slots[slot].in_use.store(false, std::memory_order_release);
}

bool faulted(int slot) {
  if (slot < 0 || slot >= kMaxGuarded) return false;
  return g_slots[slot].faulted.load(std::memory_order_acquire);
}

}  // namespace goheap::mapping_guard
