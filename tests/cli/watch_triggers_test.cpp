// goheap watch's triggers on a timeline the test makes up: what fires, when
// the RSS and cgroup bounds re-arm, and what --min-interval holds back.
// watch_test.cpp checks each trigger against a real leaking process.
#include "cli/watch_triggers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace goheap::cli {
namespace {

using Clock = Triggers::Clock;
using std::chrono::milliseconds;

constexpr uint64_t kMiB = 1 << 20;

// What fires at `at` ms after the start, as its trigger's name ("" for
// nothing).
struct Timeline {
  explicit Timeline(const TriggerSettings& s) : start(Clock::now()), triggers(s, start) {}
  std::string at(uint64_t ms, uint64_t rss,
                 const std::optional<acquire::CgroupMemory>& cgroup = std::nullopt,
                 std::optional<uint64_t> go_heap = std::nullopt) {
    const std::optional<Firing> f = triggers.check(start + milliseconds(ms), rss, cgroup, go_heap);
    return f ? f->trigger : "";
  }
  Clock::time_point start;
  Triggers triggers;
};

acquire::CgroupMemory cgroupAt(uint64_t usage, uint64_t limit) {
  acquire::CgroupMemory c;
  c.dir = "/sys/fs/cgroup/memory/app";
  c.version = 1;
  c.usage_bytes = usage;
  c.limit_bytes = limit;
  return c;
}

TEST(WatchTriggers, EveryFiresOnItsPeriodFromTheStart) {
  TriggerSettings s;
  s.every_ms = 1000;
  Timeline t(s);
  EXPECT_EQ(t.at(0, kMiB), "every");
  EXPECT_EQ(t.at(500, kMiB), "");
  EXPECT_EQ(t.at(1000, kMiB), "every");
  // A late look fires once, not once per period missed.
  EXPECT_EQ(t.at(3500, kMiB), "every");
  EXPECT_EQ(t.at(3600, kMiB), "");
  EXPECT_EQ(t.at(4000, kMiB), "every");
}

TEST(WatchTriggers, RssAboveReArmsBelowNinetyPercent) {
  TriggerSettings s;
  s.rss_above = 100 * kMiB;
  s.min_interval_ms = 0;
  Timeline t(s);
  EXPECT_EQ(t.at(0, 50 * kMiB), "");
  EXPECT_EQ(t.at(100, 100 * kMiB), "rss");  // crossed upward
  EXPECT_EQ(t.at(200, 120 * kMiB), "");     // still above: once per crossing
  EXPECT_EQ(t.at(300, 95 * kMiB), "");      // below the bound, not below 90%
  EXPECT_EQ(t.at(400, 101 * kMiB), "");     // so not re-armed
  EXPECT_EQ(t.at(500, 89 * kMiB), "");      // below 90%: re-armed
  EXPECT_EQ(t.at(600, 100 * kMiB), "rss");
}

TEST(WatchTriggers, CgroupAboveReArmsBelowNinetyPercent) {
  TriggerSettings s;
  s.cgroup_above = 80;
  s.min_interval_ms = 0;
  Timeline t(s);
  EXPECT_EQ(t.at(0, kMiB, cgroupAt(70, 100)), "");
  EXPECT_EQ(t.at(100, kMiB, cgroupAt(80, 100)), "cgroup");
  EXPECT_EQ(t.at(200, kMiB, cgroupAt(99, 100)), "");
  EXPECT_EQ(t.at(300, kMiB, cgroupAt(73, 100)), "");  // 90% of 80% is 72%
  EXPECT_EQ(t.at(400, kMiB, cgroupAt(85, 100)), "");
  EXPECT_EQ(t.at(500, kMiB, cgroupAt(71, 100)), "");
  EXPECT_EQ(t.at(600, kMiB, cgroupAt(81, 100)), "cgroup");
  // A cgroup without a limit, or none at all, fires nothing.
  acquire::CgroupMemory unlimited = cgroupAt(90, 100);
  unlimited.limit_bytes.reset();
  EXPECT_EQ(t.at(700, kMiB, unlimited), "");
  EXPECT_EQ(t.at(800, kMiB), "");
}

TEST(WatchTriggers, MinIntervalHoldsBackTheBoundsAndGrowthButNotEvery) {
  TriggerSettings s;
  s.every_ms = 10000;
  s.rss_above = 100 * kMiB;
  s.growth = 50;
  s.min_interval_ms = 3000;
  Timeline t(s);
  EXPECT_EQ(t.at(0, 10 * kMiB), "every");
  t.triggers.setReference(10 * kMiB, std::nullopt);
  EXPECT_EQ(t.at(1000, 16 * kMiB), "growth");  // RSS grew 60%
  t.triggers.setReference(16 * kMiB, std::nullopt);
  // 2 s after: the RSS crosses the bound, but a snap was taken 1 s ago.
  EXPECT_EQ(t.at(2000, 110 * kMiB), "");
  EXPECT_EQ(t.at(3999, 110 * kMiB), "");
  // Rested: the crossing, still armed, fires.
  EXPECT_EQ(t.at(4000, 110 * kMiB), "rss");
  t.triggers.setReference(110 * kMiB, std::nullopt);
  EXPECT_EQ(t.at(5000, 200 * kMiB), "");  // growth, held back
  // --every is never delayed by --min-interval.
  EXPECT_EQ(t.at(10000, 200 * kMiB), "every");
  EXPECT_EQ(t.at(10100, 200 * kMiB), "growth");  // 6 s after the rss snap
}

TEST(WatchTriggers, GrowthComparesTheGoHeapOrTheRssWithTheLastSnap) {
  TriggerSettings s;
  s.growth = 20;
  s.min_interval_ms = 0;
  Timeline t(s);
  t.triggers.setReference(100 * kMiB, 10 * kMiB);
  EXPECT_EQ(t.at(100, 100 * kMiB, std::nullopt, 11 * kMiB), "");
  EXPECT_EQ(t.at(200, 100 * kMiB, std::nullopt, 12 * kMiB), "growth");  // the Go heap, 20%
  t.triggers.setReference(100 * kMiB, 12 * kMiB);
  EXPECT_EQ(t.at(300, 119 * kMiB, std::nullopt, 12 * kMiB), "");
  EXPECT_EQ(t.at(400, 120 * kMiB, std::nullopt, 12 * kMiB), "growth");  // the RSS, 20%
}

TEST(WatchTriggers, NapsUntilTheNextPeriodAtMostATenthOfASecond) {
  TriggerSettings s;
  s.every_ms = 1000;
  Timeline t(s);
  EXPECT_EQ(t.at(0, kMiB), "every");
  EXPECT_EQ(t.triggers.napMs(t.start + milliseconds(950)), 50u);
  EXPECT_EQ(t.triggers.napMs(t.start + milliseconds(100)), 100u);
  TriggerSettings bounds;
  bounds.rss_above = kMiB;
  EXPECT_EQ(Triggers(bounds, Clock::now()).napMs(Clock::now()), 100u);
}

}  // namespace
}  // namespace goheap::cli
