// goheap waste against tests/programs/leaks: the program reports the Padded
// values it rounded up, the arrays it re-sliced to 16 bytes, the map it
// shrank and the garbage it dropped; goheap must find each.
#include <gtest/gtest.h>

#include "analysis/summary.h"
#include "analysis/waste.h"
#include "leaks_dump.h"

namespace goheap {
namespace {

using testing::JsonValue;
using testing::LeaksDump;

class Waste : public ::testing::TestWithParam<std::string> {
 protected:
  const LeaksDump* load(bool with_exe) { return testing::requireLeaksDump(GetParam(), with_exe); }
  static analysis::Waste all(const analysis::Snapshot& s) {
    analysis::WasteOptions o;
    o.limit = 0;
    return analysis::findWaste(s, o);
  }
};

TEST_P(Waste, SizeClassRoundingOfPadded) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  const JsonValue& rep = d->report["padded"];
  const analysis::Waste w = all(*d->snap);
  ASSERT_TRUE(w.typed);
  const analysis::RoundingRow* row = nullptr;
  for (const analysis::RoundingRow& r : w.rounding) {
    if (r.type == rep["type"].str()) {
      EXPECT_EQ(row, nullptr) << "two rows for " << r.type;
      row = &r;
    }
  }
  ASSERT_NE(row, nullptr) << "no rounding row for " << rep["type"].str();
  EXPECT_EQ(row->count, rep["count"].u64());
  EXPECT_EQ(row->type_size, rep["type_size"].u64());
  EXPECT_EQ(row->slot_size, rep["slot_size"].u64());
  EXPECT_EQ(row->wasted, rep["wasted"].u64());
  uint64_t total = 0;
  for (const analysis::RoundingRow& r : w.rounding) total += r.wasted;
  EXPECT_EQ(total, w.rounding_wasted);
}

TEST_P(Waste, ArraysKeptAliveByShortSlices) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  const JsonValue& heads = d->report["heads"];
  const analysis::Waste w = all(*d->snap);
  uint64_t sum = 0;
  for (const JsonValue& a : heads["arrays"].items()) {
    SCOPED_TRACE(a["addr"].str());
    const uint64_t addr = a["addr"].hexAddress();
    const analysis::HiddenArrayRow* row = nullptr;
    for (const analysis::HiddenArrayRow& r : w.hidden) {
      if (d->snap->address(r.object) == addr) row = &r;
    }
    ASSERT_NE(row, nullptr) << "array not found";
    EXPECT_EQ(row->size, a["size"].u64());
    EXPECT_EQ(row->hidden, a["size"].u64() - a["len"].u64());
    EXPECT_TRUE(row->flagged);
    EXPECT_NE(row->holder.find(heads["global"].str()), std::string::npos) << row->holder;
    sum += row->hidden;
  }
  EXPECT_EQ(sum, heads["hidden_bytes"].u64());
}

TEST_P(Waste, TheShrunkMapKeepsItsPeakCapacity) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  const JsonValue& rep = d->report["shrunk"];
  const analysis::Waste w = all(*d->snap);
  const analysis::MapRow* row = nullptr;
  for (const analysis::MapRow& r : w.maps) {
    if (d->snap->address(r.map) == rep["map_addr"].hexAddress()) row = &r;
  }
  ASSERT_NE(row, nullptr) << "map " << rep["map_addr"].str() << " not found";
  EXPECT_EQ(row->len, rep["len"].u64());
  EXPECT_GE(row->capacity, rep["peak"].u64());
  EXPECT_TRUE(row->sparse);
  EXPECT_NE(row->holder.find(rep["global"].str()), std::string::npos) << row->holder;
  // The map's storage is far more than its header: the buckets or groups.
  EXPECT_GT(row->storage, rep["peak"].u64());
}

TEST_P(Waste, GarbageWithAndWithoutTypes) {
  for (bool with_exe : {true, false}) {
    SCOPED_TRACE(with_exe ? "with the executable" : "without");
    const LeaksDump* d = load(with_exe);
    ASSERT_NE(d, nullptr);
    const JsonValue& rep = d->report["garbage"];
    const analysis::Waste w = all(*d->snap);
    EXPECT_EQ(w.typed, with_exe);
    const analysis::Summary sum = analysis::summarize(*d->snap, 1);
    EXPECT_EQ(w.garbage_objects, sum.garbage_objects);
    EXPECT_EQ(w.garbage_bytes, sum.garbage_bytes);
    // The main.garbage96 objects: by their allocation site (main.main), or
    // by their type when typed.
    bool found = false;
    for (const analysis::GarbageRow& r : w.garbage) {
      const bool named = r.name.find("garbage96") != std::string::npos ||
                         r.name.find("main.main") != std::string::npos;
      if (named && r.count >= rep["count"].u64() &&
          r.bytes >= rep["count"].u64() * rep["size"].u64()) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << "no garbage group of " << rep["count"].u64() << " objects";
    if (!with_exe) {
      EXPECT_TRUE(w.rounding.empty() && w.hidden.empty() && w.maps.empty());
    }
  }
}

// The scans split over several threads count the same.
TEST_P(Waste, TheSameOnAnyNumberOfThreads) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  auto describe = [&](unsigned threads) {
    analysis::WasteOptions o;
    o.limit = 0;
    o.threads = threads;
    const analysis::Waste w = analysis::findWaste(*d->snap, o);
    std::string out = std::to_string(w.hidden_arrays) + " " + std::to_string(w.hidden_bytes) + " " +
                      std::to_string(w.hidden_flagged) + "\n";
    for (const analysis::HiddenArrayRow& r : w.hidden) {
      out += std::to_string(r.object) + " " + std::to_string(r.hidden) + " " + r.type + " " +
             r.holder + "\n";
    }
    return out;
  };
  const std::string one = describe(1);
  EXPECT_NE(one.find('\n'), one.size() - 1) << "no hidden arrays to compare";
  EXPECT_EQ(describe(2), one);
  EXPECT_EQ(describe(3), one);
}

INSTANTIATE_TEST_SUITE_P(Leaks, Waste, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
