// goheap dups against tests/programs/leaks: the program reports the copies
// of one string, one []byte and one Config it made, by address; goheap must
// find exactly those groups, with and (strings, bytes) without the
// executable.
#include <gtest/gtest.h>

#include "analysis/duplicates.h"
#include "leaks_dump.h"

namespace goheap {
namespace {

using testing::JsonValue;
using testing::LeaksDump;

class Dups : public ::testing::TestWithParam<std::string> {
 protected:
  const LeaksDump* load(bool with_exe) { return testing::requireLeaksDump(GetParam(), with_exe); }
  static std::set<uint64_t> addresses(const analysis::Snapshot& s, const analysis::DupGroup& g) {
    std::set<uint64_t> out;
    for (NodeId o : g.objects) out.insert(s.address(o));
    return out;
  }
  // The one group whose copies are the report's addresses.
  static const analysis::DupGroup* groupOf(const analysis::Snapshot& s,
                                           const analysis::Duplicates& d,
                                           const std::set<uint64_t>& want) {
    const analysis::DupGroup* found = nullptr;
    for (const analysis::DupGroup& g : d.groups) {
      if (s.heap.isObject(g.objects.front()) && want.contains(s.address(g.objects.front()))) {
        EXPECT_EQ(found, nullptr) << "two groups hold the report's copies";
        found = &g;
      }
    }
    return found;
  }
  static analysis::Duplicates all(const analysis::Snapshot& s) {
    analysis::DupOptions o;
    o.limit = 0;
    return analysis::findDuplicates(s, o);
  }
};

void expectCopies(const analysis::Snapshot& s, const analysis::DupGroup* g, const JsonValue& rep,
                  analysis::DupKind kind) {
  ASSERT_NE(g, nullptr) << "no duplicate group holds the report's copies";
  const std::set<uint64_t> want = testing::reportAddresses(rep["addrs"]);
  EXPECT_EQ(g->kind, kind);
  EXPECT_EQ(g->copies, rep["copies"].u64());
  EXPECT_EQ(g->size, rep["size"].u64());
  EXPECT_EQ(g->wasted, (rep["copies"].u64() - 1) * rep["size"].u64());
  std::set<uint64_t> got;
  for (NodeId o : g->objects) got.insert(s.address(o));
  EXPECT_EQ(got, want);
}

bool holdersName(const analysis::DupGroup& g, const std::string& global) {
  for (const analysis::DupHolder& h : g.holders) {
    if (h.name.find(global) != std::string::npos) return true;
  }
  return false;
}

TEST_P(Dups, FindsTheDuplicatedStringWithTypes) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  const analysis::Duplicates dups = all(*d->snap);
  EXPECT_TRUE(dups.typed);
  const JsonValue& rep = d->report["dup_string"];
  const analysis::DupGroup* g = groupOf(*d->snap, dups, testing::reportAddresses(rep["addrs"]));
  expectCopies(*d->snap, g, rep, analysis::DupKind::String);
  if (g == nullptr) return;
  EXPECT_TRUE(holdersName(*g, rep["holder"].str())) << g->holders.front().name;
}

TEST_P(Dups, FindsTheDuplicatedStringWithoutTypes) {
  const LeaksDump* d = load(false);
  ASSERT_NE(d, nullptr);
  const analysis::Duplicates dups = all(*d->snap);
  EXPECT_FALSE(dups.typed);
  const JsonValue& rep = d->report["dup_string"];
  expectCopies(*d->snap, groupOf(*d->snap, dups, testing::reportAddresses(rep["addrs"])), rep,
               analysis::DupKind::Bytes);
}

TEST_P(Dups, FindsTheDuplicatedBytes) {
  for (bool with_exe : {true, false}) {
    SCOPED_TRACE(with_exe ? "with the executable" : "without");
    const LeaksDump* d = load(with_exe);
    ASSERT_NE(d, nullptr);
    const JsonValue& rep = d->report["dup_bytes"];
    const analysis::Duplicates dups = all(*d->snap);
    const analysis::DupGroup* g = groupOf(*d->snap, dups, testing::reportAddresses(rep["addrs"]));
    expectCopies(*d->snap, g, rep, analysis::DupKind::Bytes);
    if (with_exe && g != nullptr) {
      EXPECT_TRUE(holdersName(*g, rep["holder"].str()));
    }
  }
}

TEST_P(Dups, FindsTheIdenticalConfigs) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  const JsonValue& rep = d->report["identical_configs"];
  const analysis::Duplicates dups = all(*d->snap);
  const analysis::DupGroup* g = groupOf(*d->snap, dups, testing::reportAddresses(rep["addrs"]));
  expectCopies(*d->snap, g, rep, analysis::DupKind::Object);
  if (g == nullptr) return;
  EXPECT_EQ(g->name, "main.Config");
  EXPECT_TRUE(holdersName(*g, rep["holder"].str())) << g->holders.front().name;
}

TEST_P(Dups, KindFilterAndLimitAndTotals) {
  const LeaksDump* d = load(true);
  ASSERT_NE(d, nullptr);
  analysis::DupOptions o;
  o.bytes = o.objects = false;
  o.limit = 1;
  const analysis::Duplicates only = analysis::findDuplicates(*d->snap, o);
  ASSERT_EQ(only.groups.size(), 1u);
  EXPECT_EQ(only.groups[0].kind, analysis::DupKind::String);
  const analysis::Duplicates every = all(*d->snap);
  uint64_t wasted = 0;
  for (const analysis::DupGroup& g : every.groups) {
    if (g.kind == analysis::DupKind::String) wasted += g.wasted;
  }
  EXPECT_EQ(wasted, every.totals[0].wasted);
  EXPECT_EQ(only.totals[0].wasted, wasted);
  for (size_t i = 1; i < every.groups.size(); i++) {
    EXPECT_GE(every.groups[i - 1].wasted, every.groups[i].wasted);
  }
}

// Hashing and sorting on several threads find the same groups, in the same
// order, with the same holders.
TEST_P(Dups, TheSameOnAnyNumberOfThreads) {
  for (const bool with_exe : {true, false}) {
    const LeaksDump* d = load(with_exe);
    ASSERT_NE(d, nullptr);
    auto describe = [&](unsigned threads) {
      analysis::DupOptions o;
      o.limit = 0;
      o.threads = threads;
      const analysis::Duplicates dups = analysis::findDuplicates(*d->snap, o);
      std::string out = std::to_string(dups.matching_groups) + " groups\n";
      for (const analysis::DupGroup& g : dups.groups) {
        out += g.name + " " + std::to_string(g.copies) + " " + std::to_string(g.wasted) + ":";
        for (NodeId o2 : g.objects) out += " " + std::to_string(o2);
        for (const analysis::DupHolder& h : g.holders) out += " <" + h.name + ">";
        out += "\n";
      }
      return out;
    };
    const std::string one = describe(1);
    EXPECT_GT(one.size(), 100u);
    EXPECT_EQ(describe(2), one);
    EXPECT_EQ(describe(3), one);
  }
}

INSTANTIATE_TEST_SUITE_P(Leaks, Dups, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
