// The triggers of goheap watch (cmd_watch.cpp): when a look at the process
// (its RSS, its memory cgroup, its Go heap) fires a snap. Kept apart from the
// command so that the rules, re-arming and --min-interval, are tested on a
// timeline of their own (tests/cli/watch_triggers_test.cpp).
//  - --every fires on its period, never delayed;
//  - --rss-above and --cgroup-above fire when their bound is crossed
//    upward, and re-arm once the value drops below 90% of the bound;
//  - --growth fires when the Go heap or the RSS grew by the percentage since
//    the last snap (setReference);
//  - the last three wait --min-interval after one of them fired.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "acquire/proc_status.h"

namespace goheap::cli {

struct TriggerSettings {
  std::optional<uint64_t> every_ms;
  std::optional<uint64_t> rss_above;
  std::optional<double> cgroup_above;  // percent
  std::optional<double> growth;        // percent
  uint64_t min_interval_ms = 60000;
};

// Why a trigger fired: its name for the JSON ("every", "rss", "cgroup",
// "growth") and the reason in words.
struct Firing {
  std::string trigger;
  std::string why;
};

// The triggers' state between two looks at the process.
class Triggers {
 public:
  using Clock = std::chrono::steady_clock;

  Triggers(const TriggerSettings& s, Clock::time_point start) : s_(s) {
    if (s.every_ms) next_every_ = start;
  }

  // What fires now, if anything. `go_heap` is read only when --growth needs it.
  std::optional<Firing> check(Clock::time_point now, uint64_t rss,
                              const std::optional<acquire::CgroupMemory>& cgroup,
                              const std::optional<uint64_t>& go_heap);

  // What --growth compares with: the values at the last snap (or the start).
  void setReference(uint64_t rss, const std::optional<uint64_t>& go_heap) {
    rss_at_last_ = rss;
    heap_at_last_ = go_heap;
  }

  // How long to sleep before the next look.
  uint64_t napMs(Clock::time_point now) const;

 private:
  // The cgroup's usage as a percentage of its limit; nothing without one.
  static std::optional<double> cgroupPercent(const std::optional<acquire::CgroupMemory>& cgroup);

  TriggerSettings s_;
  std::optional<Clock::time_point> next_every_;
  std::optional<Clock::time_point> last_triggered_;
  bool rss_armed_ = true, cgroup_armed_ = true;
  uint64_t rss_at_last_ = 0;
  std::optional<uint64_t> heap_at_last_;
};

}  // namespace goheap::cli
