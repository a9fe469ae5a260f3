#include "support/goleak_truth.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/goroutine_leaks.h"

namespace goheap::testing {

namespace {

using Counts = std::map<std::string, uint64_t>;

// Leaked goroutines by blocking function.
Counts leakedByFunction(const analysis::Snapshot& s, const analysis::GoroutineLeaks& leaks) {
  Counts found;
  for (uint32_t i = 0; i < s.model.goroutines.size(); i++) {
    if (leaks.leaked[i] != 0) {
      found[std::string(analysis::blockingFunction(s.model, s.model.goroutines[i]))]++;
    }
  }
  return found;
}

}  // namespace

void expectGoleakTruth(const analysis::Snapshot& s, const JsonValue& truth, bool with_dwarf) {
  const analysis::GoroutineLeaks leaks = analysis::findGoroutineLeaks(s);
  ASSERT_TRUE(leaks.problem.empty()) << leaks.problem;
  EXPECT_EQ(leaks.layout_source.starts_with("DWARF"), with_dwarf) << leaks.layout_source;
  Counts expected;
  for (const auto& [fn, n] : truth["leaked"].members()) expected[fn] = n.u64();
  const Counts found = leakedByFunction(s, leaks);
  // The Mutex in a tiny block with a global slice's array: leaked where the
  // slice's type is known (always with DWARF). Where it is not, the
  // goroutine may be left able to run, as the runtime leaves it, but only
  // with the reason said; no other goroutine gets one.
  const std::string tiny = truth["tiny_shared"]["function"].str();
  ASSERT_FALSE(tiny.empty()) << "the report has no tiny_shared";
  const bool tiny_explained = !with_dwarf && found.count(tiny) == 0;
  if (tiny_explained) expected.erase(tiny);
  uint64_t explained = 0;
  for (const auto& [record, why] : leaks.not_leaked_because) {
    explained++;
    EXPECT_EQ(analysis::blockingFunction(s.model, s.model.goroutines[record]), tiny) << why;
    EXPECT_TRUE(why.starts_with("its Mutex shares an allocation with memory that ")) << why;
  }
  EXPECT_EQ(explained, tiny_explained ? 1u : 0u);
  EXPECT_EQ(found, expected);
  // Where the runtime has a goroutineleak profile, every leak it reports is
  // found (the program records it just after its dump).
  if (truth.has("runtime_profile")) {
    for (const auto& [fn, n] : truth["runtime_profile"].members()) {
      EXPECT_GE(found.count(fn) != 0 ? found.at(fn) : 0, n.u64())
          << fn << ": the runtime's profile reports more";
    }
  }
  uint64_t expected_count = 0;
  for (const auto& [fn, k] : expected) expected_count += k;
  EXPECT_EQ(leaks.leaked_count, expected_count);
  // Go 1.25 and older link no sync wait through g.waiting: their sudogs are
  // found by their g, and the Cond decoy's Cond is a global.
  EXPECT_EQ(leaks.unlinked_sync_waits, 0u);
  EXPECT_FALSE(leaks.main_in_select_forever);
  // Each leaked goroutine but those in no_buffer keeps a buffer of
  // leak_bytes alive from its stack alone; the rest they hold together is
  // small (their channels are still reachable through allgs, g.waiting and
  // the sudogs).
  uint64_t holders = leaks.leaked_count;
  for (const JsonValue& fn : truth["no_buffer"].items()) {
    holders -= expected.count(fn.str()) != 0 ? expected[fn.str()] : 0;
  }
  const uint64_t buffers = holders * truth["leak_bytes"].u64();
  EXPECT_GE(leaks.leaked_retained, buffers);
  EXPECT_LE(leaks.leaked_retained, buffers + leaks.leaked_count * 2048);
}

}  // namespace goheap::testing
