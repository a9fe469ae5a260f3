#include "util/process_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace goheap {

uint64_t peakRssBytes() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < 0) return 0;
  auto max_rss = static_cast<uint64_t>(usage.ru_maxrss);
#if defined(__APPLE__)
  return max_rss;  // macOS reports bytes
#else
  return max_rss * 1024;  // Linux and the BSDs report kilobytes
#endif
}

uint64_t anonymousMemoryBytes() {
  FILE* f = std::fopen("/proc/self/status", "re");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "RssAnon:", 8) == 0) {
      kib = std::strtoull(line + 8, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kib * 1024;
}

AnonymousMemoryPeak::AnonymousMemoryPeak() {
  sample();
  sampler_ = std::thread([this] {
    while (!stop_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      sample();
    }
  });
}

AnonymousMemoryPeak::~AnonymousMemoryPeak() {
  stop_ = true;
  sampler_.join();
}

uint64_t AnonymousMemoryPeak::peakBytes() {
  sample();
  return peak_.load();
}

uint64_t AnonymousMemoryPeak::windowPeakBytes() {
  const uint64_t now = sample();
  return std::max(window_peak_.exchange(now), now);
}

uint64_t AnonymousMemoryPeak::sample() {
  const uint64_t now = anonymousMemoryBytes();
  for (std::atomic<uint64_t>* peak : {&peak_, &window_peak_}) {
    uint64_t seen = peak->load();
    while (now > seen && !peak->compare_exchange_weak(seen, now)) {
    }
  }
  return now;
}

}  // namespace goheap
