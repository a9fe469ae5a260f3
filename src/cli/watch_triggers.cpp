#include "cli/watch_triggers.h"

#include <algorithm>

#include "util/format.h"

namespace goheap::cli {

std::optional<Firing> Triggers::check(Clock::time_point now, uint64_t rss,
                                      const std::optional<acquire::CgroupMemory>& cgroup,
                                      const std::optional<uint64_t>& go_heap) {
  std::optional<Firing> fired;
  if (next_every_ && now >= *next_every_) {
    while (*next_every_ <= now)
      *next_every_ += std::chrono::milliseconds(static_cast<int64_t>(*s_.every_ms));
    fired = Firing{"every", "every " + formatDuration(static_cast<double>(*s_.every_ms) / 1000.0)};
  }
  // The bounds re-arm below 90% of themselves whether or not a snap may
  // be taken now.
  if (s_.rss_above && static_cast<double>(rss) < 0.9 * static_cast<double>(*s_.rss_above)) {
    rss_armed_ = true;
  }
  const std::optional<double> used = cgroupPercent(cgroup);
  if (s_.cgroup_above && used && *used < 0.9 * *s_.cgroup_above) cgroup_armed_ = true;
  if (fired) return fired;
  const bool rested =
      !last_triggered_ || now - *last_triggered_ >= std::chrono::milliseconds(s_.min_interval_ms);
  if (!rested) return std::nullopt;
  if (s_.rss_above && rss_armed_ && rss >= *s_.rss_above) {
    rss_armed_ = false;
    fired = Firing{"rss", "RSS " + formatBytes(rss) + " crossed " + formatBytes(*s_.rss_above)};
  } else if (s_.cgroup_above && cgroup_armed_ && used && *used >= *s_.cgroup_above) {
    cgroup_armed_ = false;
    fired = Firing{"cgroup", "memory cgroup at " + formatFraction(*used / 100) + " of its limit " +
                                 formatBytes(*cgroup->limit_bytes) + " (" + cgroup->dir + ")"};
  } else if (s_.growth) {
    const double factor = 1 + *s_.growth / 100;
    if (go_heap && heap_at_last_ && *heap_at_last_ > 0 &&
        static_cast<double>(*go_heap) >= factor * static_cast<double>(*heap_at_last_)) {
      fired = Firing{"growth", "Go heap grew from " + formatBytes(*heap_at_last_) + " to " +
                                   formatBytes(*go_heap)};
    } else if (rss_at_last_ > 0 &&
               static_cast<double>(rss) >= factor * static_cast<double>(rss_at_last_)) {
      fired = Firing{"growth",
                     "RSS grew from " + formatBytes(rss_at_last_) + " to " + formatBytes(rss)};
    }
  }
  if (fired) last_triggered_ = now;
  return fired;
}

uint64_t Triggers::napMs(Clock::time_point now) const {
  uint64_t ms = 100;
  if (next_every_) {
    const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(*next_every_ - now);
    ms = std::clamp<int64_t>(until.count(), 1, 100);
  }
  return ms;
}

std::optional<double> Triggers::cgroupPercent(const std::optional<acquire::CgroupMemory>& cgroup) {
  if (!cgroup || !cgroup->limit_bytes || *cgroup->limit_bytes == 0) return std::nullopt;
  return 100.0 * static_cast<double>(cgroup->usage_bytes) /
         static_cast<double>(*cgroup->limit_bytes);
}

}  // namespace goheap::cli
