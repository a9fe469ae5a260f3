// How much memory this process uses: the peak resident set, and the part of
// it no file backs. goheap's memory budget (bytes per object) is about the
// latter: the dump, the executable and the index cache are mapped files,
// which the page cache holds and the kernel can drop.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace goheap {

// The peak resident set (getrusage's ru_maxrss), or 0.
uint64_t peakRssBytes();

// Resident memory no file backs, now (RssAnon in /proc/self/status), or 0
// where that cannot be read.
uint64_t anonymousMemoryBytes();

// The kernel keeps no peak of anonymous memory, so this samples it every
// 10 ms on a thread of its own, from construction until destruction. A
// spike shorter than that may be missed; goheap's phases last far longer.
class AnonymousMemoryPeak {
 public:
  AnonymousMemoryPeak();
  ~AnonymousMemoryPeak();
  AnonymousMemoryPeak(const AnonymousMemoryPeak&) = delete;
  AnonymousMemoryPeak& operator=(const AnonymousMemoryPeak&) = delete;

  // The highest sample so far, including one taken now.
  uint64_t peakBytes();
  // The highest sample since the last call (or construction), including one
  // taken now; the next window starts with the current sample.
  uint64_t windowPeakBytes();

 private:
  uint64_t sample();  // returns the sample

  std::atomic<uint64_t> peak_{0};
  std::atomic<uint64_t> window_peak_{0};
  std::atomic<bool> stop_{false};
  std::thread sampler_;
};

}  // namespace goheap
