// The goroutine leak analysis kept in an index entry (cache/leaks_index.h):
// on the goleak program's real dumps, what is read back equals what
// findGoroutineLeaks computes afresh (the oracle), leaked records, counts
// and reasons alike; a section that does not fit the heap is refused.
#include "cache/leaks_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/snapshot_index.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/index_samples.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::testKey;

// Writes `leaks` (as addGoroutineLeaks does, or `raw` bytes in its place)
// into an index file and reads it back for a heap of `goroutines` records.
Expected<std::optional<analysis::GoroutineLeaks>> roundTrip(const analysis::GoroutineLeaks* leaks,
                                                            const std::string& raw,
                                                            size_t goroutines,
                                                            const std::string& name) {
  cache::IndexWriter writer;
  if (leaks != nullptr) {
    cache::addGoroutineLeaks([leaks]() -> const analysis::GoroutineLeaks& { return *leaks; },
                             writer);
  } else {
    writer.addOwned(cache::kGoroutineLeaks, 1, std::vector<uint8_t>(raw.begin(), raw.end()));
  }
  const std::string path = testing::scratch().file(name);
  Status written = writer.write(path, testKey(3));
  if (!written) return written.error();
  auto index = cache::IndexFile::open(path, testKey(3));
  if (!index) return index.error();
  return cache::readGoroutineLeaks(**index, goroutines);
}

void expectSameLeaks(const analysis::GoroutineLeaks& a, const analysis::GoroutineLeaks& b) {
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.layout_source, b.layout_source);
  EXPECT_EQ(a.leaked, b.leaked);
  EXPECT_EQ(a.leaked_count, b.leaked_count);
  EXPECT_EQ(a.leaked_retained, b.leaked_retained);
  EXPECT_EQ(a.unlinked_sync_waits, b.unlinked_sync_waits);
  EXPECT_EQ(a.main_in_select_forever, b.main_in_select_forever);
  EXPECT_EQ(a.not_leaked_because, b.not_leaked_because);
}

class LeaksIndex : public ::testing::TestWithParam<std::string> {};

TEST_P(LeaksIndex, ReadsBackWhatTheAnalysisComputes) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  // Typed, and untyped: without the executable the tiny block's Mutex is
  // explained in not_leaked_because rather than leaked.
  for (const std::string& exe : {dir + "/goleak", std::string()}) {
    SCOPED_TRACE(exe.empty() ? "without the executable" : exe);
    auto snap = testing::openSnapshot(dir + "/goleak.dump", exe);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    const analysis::GoroutineLeaks fresh = analysis::findGoroutineLeaks(**snap);
    ASSERT_GE(fresh.leaked_count, 8u) << "goleak leaks two of each primitive, and channels";
    if (exe.empty()) {
      EXPECT_FALSE(fresh.not_leaked_because.empty());
    }
    auto back = roundTrip(&fresh, {}, (*snap)->model.goroutines.size(),
                          "leaks-" + testing::testName(GetParam()) + (exe.empty() ? "-u" : "-t"));
    ASSERT_TRUE(back.ok()) << back.error().message();
    ASSERT_TRUE(back->has_value());
    expectSameLeaks(**back, fresh);
  }
}

INSTANTIATE_TEST_SUITE_P(GoVersions, LeaksIndex, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

TEST(LeaksIndexChecks, AnEntryWithoutTheSectionHasNone) {
  cache::IndexWriter writer;
  writer.addOwned(cache::kHeapCounters, 8, std::vector<uint8_t>(24, 0));
  const std::string path = testing::scratch().file("leaks-none.ghx");
  ASSERT_TRUE(writer.write(path, testKey(3)).ok());
  auto index = cache::IndexFile::open(path, testKey(3));
  ASSERT_TRUE(index.ok()) << index.error().message();
  auto leaks = cache::readGoroutineLeaks(**index, 4);
  ASSERT_TRUE(leaks.ok()) << leaks.error().message();
  EXPECT_FALSE(leaks->has_value());
}

TEST(LeaksIndexChecks, ASectionThatDoesNotFitTheHeapIsRefused) {
  analysis::GoroutineLeaks leaks;
  leaks.layout_source = "DWARF";
  leaks.leaked = {0, 1, 0, 1};
  leaks.leaked_count = 2;
  leaks.leaked_retained = 4096;
  leaks.not_leaked_because = {{2, "its Mutex shares an allocation"}};
  auto good = roundTrip(&leaks, {}, 4, "leaks-good.ghx");
  ASSERT_TRUE(good.ok()) << good.error().message();
  expectSameLeaks(**good, leaks);

  // Another heap's: more goroutine records than this one has.
  auto fewer = roundTrip(&leaks, {}, 3, "leaks-fewer.ghx");
  EXPECT_FALSE(fewer.ok());
  const std::string ok_rest =
      R"("leaked_retained":1,"unlinked_sync_waits":0,"main_in_select_forever":false,)"
      R"("not_leaked_because":[])";
  const std::vector<std::pair<std::string, std::string>> bad{
      {"not JSON", "{\"problem\":"},
      {"not an object", "[1,2]"},
      {"a leaked record past the heap's",
       R"({"problem":"","layout_source":"","records":4,"leaked":[4],)" + ok_rest + "}"},
      {"a negative record",
       R"({"problem":"","layout_source":"","records":4,"leaked":[-1],)" + ok_rest + "}"},
      {"a member missing", R"({"problem":"","layout_source":"","records":4,"leaked":[]})"},
      {"a reason past the heap's",
       R"({"problem":"","layout_source":"","records":4,"leaked":[],"leaked_retained":1,)"
       R"("unlinked_sync_waits":0,"main_in_select_forever":false,)"
       R"("not_leaked_because":[{"record":9,"why":"x"}]})"},
  };
  for (const auto& [what, text] : bad) {
    SCOPED_TRACE(what);
    auto read = roundTrip(nullptr, text, 4, "leaks-bad.ghx");
    EXPECT_FALSE(read.ok());
    if (!read.ok()) {
      EXPECT_NE(read.error().message().find("goroutine leaks"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace goheap
