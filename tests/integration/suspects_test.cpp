// goheap suspects on the dumps of tests/programs/leaks (Go 1.19 and 1.24),
// with and without the executable, against the program's own report: the
// growing sessions map is the first suspect and accumulates exactly the
// sessions it holds; the objects of the global array main.padded are a
// group suspect.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "analysis/slots.h"
#include "analysis/snapshot.h"
#include "analysis/suspects.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct LeaksCase {
  std::string version;  // "go1.24"
  bool with_exe = false;
};

std::string caseName(const ::testing::TestParamInfo<LeaksCase>& p) {
  return testing::testName(p.param.version + (p.param.with_exe ? "_exe" : "_dump_only"));
}

class LeakSuspects : public ::testing::TestWithParam<LeaksCase> {
 protected:
  void SetUp() override {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam().version;
    const std::string dump = dir + "/leaks.dump";
    ASSERT_TRUE(std::filesystem::exists(dump))
        << dump << " is missing: tests/programs/make-dumps.sh makes it";
    report_ = JsonValue::parseFile(dir + "/leaks.json");
    auto snap = goheap::testing::openSnapshot(dump);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    snap_ = snap.take();
    if (GetParam().with_exe) {
      ASSERT_TRUE(goheap::testing::reopenWithExecutable(snap_, dir + "/leaks").ok());
      ASSERT_TRUE(goheap::testing::typesOf(*snap_).ok());
    }
  }

  analysis::SuspectReport suspects(double threshold,
                                   uint32_t accumulation = analysis::kAccumulationPercent) const {
    analysis::SuspectOptions o;
    o.threshold_percent = threshold;
    o.accumulation_percent = accumulation;
    o.limit = 0;
    return analysis::leakSuspects(*snap_, o);
  }

  NodeId objectAt(const JsonValue& hex_address) const {
    auto o = analysis::objectAt(*snap_, hex_address.hexAddress());
    EXPECT_TRUE(o.has_value()) << hex_address.str();
    return o.value_or(kNoNode);
  }

  bool dominates(NodeId a, NodeId v) const {
    for (;; v = snap_->dom.idom[v]) {
      if (v == a) return true;
      if (v == snap_->heap.superRoot() || v == kNoNode) return false;
    }
  }

  JsonValue report_;
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(LeakSuspects, TheSessionsMapComesFirst) {
  const analysis::SuspectReport r = suspects(10);
  ASSERT_FALSE(r.suspects.empty());
  const analysis::Suspect& s = r.suspects[0];
  const JsonValue& sessions = report_["sessions"];
  EXPECT_FALSE(s.is_group);
  EXPECT_EQ(s.object.address, sessions["map_addr"].hexAddress()) << s.description;
  ASSERT_GE(s.path.steps.size(), 2u);
  EXPECT_EQ(s.path.steps.back().node.node, s.object.node);
  if (GetParam().with_exe) {
    // Held by the global variable the program names.
    EXPECT_EQ(s.path.steps.front().node.global, sessions["global"].str());
    EXPECT_NE(s.description.find(sessions["global"].str()), std::string::npos) << s.description;
  }
  // Sorted biggest first, each above the threshold.
  for (size_t i = 0; i < r.suspects.size(); i++) {
    EXPECT_GE(r.suspects[i].retained, r.threshold_bytes);
    if (i > 0) {
      EXPECT_GE(r.suspects[i - 1].retained, r.suspects[i].retained);
    }
  }
}

TEST_P(LeakSuspects, TheMapAccumulatesEverySession) {
  const analysis::Suspect s = suspects(10).suspects.at(0);
  const JsonValue& sessions = report_["sessions"];
  const uint64_t count = sessions["sessions_old"].u64() + sessions["sessions_added"].u64();
  // The sessions' group: their type, or without the executable the
  // allocation site in main.newSession.
  const analysis::AccumulatedType* found = nullptr;
  for (const analysis::AccumulatedType& a : s.accumulated) {
    const bool match = GetParam().with_exe ? a.name == sessions["type"].str()
                                           : a.name.find("main.newSession") != std::string::npos;
    if (match) found = &a;
  }
  ASSERT_NE(found, nullptr) << s.description;
  EXPECT_EQ(found->count, count);
  EXPECT_EQ(found->bytes, count * sessions["size"].u64());
  // And every session the report lists is in the map's subtree.
  const NodeId point = s.accumulation_point.node;
  for (const JsonValue& a : sessions["new_addrs"].items()) {
    ASSERT_TRUE(dominates(point, objectAt(a))) << a.str();
  }
}

TEST_P(LeakSuspects, TheAccumulationPointIsWhereTheBytesAre) {
  const analysis::Suspect s = suspects(10).suspects.at(0);
  const NodeId top = s.object.node;
  const NodeId point = s.accumulation_point.node;
  ASSERT_TRUE(dominates(top, point));
  // Every step from the suspect down to the point keeps 80% of its parent's
  // bytes, and no child of the point does.
  const PackedColumn& retained = snap_->retained;
  for (NodeId v = point; v != top; v = snap_->dom.idom[v]) {
    EXPECT_GE(retained[v] * 100, retained[snap_->dom.idom[v]] * analysis::kAccumulationPercent);
  }
  for (NodeId c : snap_->dominatorChildren().neighbors(point)) {
    EXPECT_LT(retained[c] * 100, retained[point] * analysis::kAccumulationPercent);
  }
  EXPECT_EQ(s.accumulation_retained, retained[point]);
  EXPECT_EQ(s.accumulation_children, snap_->dominatorChildren().neighbors(point).size());
  // The point is below the map header: the bucket array or the directory
  // of tables, which holds the sessions.
  EXPECT_NE(point, top);
}

// Another share for the walk down (--accumulation): the same rule holds
// with it, at every step and below the point.
TEST_P(LeakSuspects, TheAccumulationShareIsAnOption) {
  for (uint32_t share : {50u, 100u}) {
    SCOPED_TRACE(share);
    const analysis::SuspectReport r = suspects(10, share);
    EXPECT_EQ(r.accumulation_percent, share);
    const analysis::Suspect& s = r.suspects.at(0);
    const NodeId top = s.object.node;
    const NodeId point = s.accumulation_point.node;
    ASSERT_TRUE(dominates(top, point));
    const PackedColumn& retained = snap_->retained;
    for (NodeId v = point; v != top; v = snap_->dom.idom[v]) {
      EXPECT_GE(retained[v] * 100, retained[snap_->dom.idom[v]] * share);
    }
    for (NodeId c : snap_->dominatorChildren().neighbors(point)) {
      EXPECT_LT(retained[c] * 100, retained[point] * share);
    }
  }
}

TEST_P(LeakSuspects, AHighThresholdFindsNothing) {
  const analysis::SuspectReport r = suspects(95);
  EXPECT_EQ(r.total, 0u);
  EXPECT_TRUE(r.suspects.empty());
}

// main.padded, a global array of pointers to 1,000 small objects: no one
// object is big, together they are a group suspect at a 1% threshold.
TEST_P(LeakSuspects, ALowThresholdFindsTheGroupOfPaddedObjects) {
  const JsonValue& padded = report_["padded"];
  const uint64_t count = padded["count"].u64();
  EXPECT_TRUE(suspects(5).suspects.size() < suspects(1).suspects.size());
  const analysis::SuspectReport r = suspects(1);
  const analysis::Suspect* found = nullptr;
  for (const analysis::Suspect& s : r.suspects) {
    if (!s.is_group) continue;
    const bool match = GetParam().with_exe ? s.group.name == padded["type"].str()
                                           : s.group.name.starts_with("main.main ");
    if (match && s.group.count == count) found = &s;
  }
  ASSERT_NE(found, nullptr) << "no group suspect of " << count << " objects";
  // Each object retains its slot, which the runtime rounded up.
  EXPECT_EQ(found->retained, count * padded["slot_size"].u64());
  ASSERT_EQ(found->holders.size(), 1u);
  EXPECT_EQ(found->holders[0].holder, "global variables");
  EXPECT_EQ(found->holders[0].members, count);
  // Spread over the global's words: no one object holds them, so the point
  // is the root side (the segment, or the super-root).
  EXPECT_NE(found->accumulation_point.kind, "object");
  EXPECT_EQ(found->accumulation_retained, found->retained);
  ASSERT_EQ(found->accumulated.size(), 1u);
  EXPECT_EQ(found->accumulated[0].count, count);
  ASSERT_FALSE(found->path.steps.empty());
  if (GetParam().with_exe) {
    EXPECT_EQ(found->path.steps.front().node.global, padded["global"].str());
  }
}

// The goroutines running main.holdBuffer each keep one 64 KiB buffer alive
// from their stack: no one buffer is a suspect, together they are one, held
// by the stack frames of main.holdBuffer.
TEST_P(LeakSuspects, TheHeldBuffersAreAGroupHeldByTheFramesOfHoldBuffer) {
  const JsonValue& buffers = report_["buffers"];
  const uint64_t count = buffers["buffers_old"].u64() + buffers["buffers_added"].u64();
  const analysis::SuspectReport r = suspects(5);
  const analysis::Suspect* found = nullptr;
  for (const analysis::Suspect& s : r.suspects) {
    if (s.is_group && s.group.count == count && !s.holders.empty() &&
        s.holders[0].holder.find(buffers["function"].str()) != std::string::npos) {
      found = &s;
    }
  }
  ASSERT_NE(found, nullptr) << "no group suspect of " << count << " buffers";
  EXPECT_EQ(found->retained, count * buffers["size"].u64());
  EXPECT_EQ(found->holders[0].members, count);
  for (const JsonValue& a : buffers["new_addrs"].items()) {
    const NodeId n = objectAt(a);
    ASSERT_NE(n, kNoNode);
    EXPECT_EQ(snap_->shallowSize(n), buffers["size"].u64()) << a.str();
  }
}

std::vector<LeaksCase> leaksCases() {
  std::vector<LeaksCase> out;
  for (const std::string& v : testing::everyGoVersion()) {
    out.push_back({v, true});
    out.push_back({v, false});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Leaks, LeakSuspects, ::testing::ValuesIn(leaksCases()), caseName);

// ---- the command ---------------------------------------------------------------

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr
};

CliRun runGoheap(const std::string& args) {
  CliRun r;
  FILE* pipe = ::popen((std::string("'") + GOHEAP_BINARY + "' " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(SuspectsCli, HelpAndMistakes) {
  CliRun help = runGoheap("suspects --help");
  EXPECT_EQ(help.code, 0) << help.out;
  EXPECT_NE(help.out.find("usage: goheap suspects"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("examples:"), std::string::npos) << help.out;
  const std::string dump = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/leaks.dump";
  for (const char* bad : {"0", "100.5", "-3", "ten", "5%%"}) {
    CliRun r = runGoheap("suspects '" + dump + "' --no-progress --threshold '" + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--threshold"), std::string::npos) << r.out;
  }
  CliRun missing = runGoheap("suspects /nonexistent/heap.dump --no-progress");
  EXPECT_EQ(missing.code, 1) << missing.out;
}

class SuspectsCliOn : public ::testing::TestWithParam<std::string> {};

TEST_P(SuspectsCliOn, TheTextReportReadsLikeMats) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  if (!std::filesystem::exists(dir + "/leaks.dump")) GTEST_SKIP() << "no leaks.dump";
  const JsonValue report = JsonValue::parseFile(dir + "/leaks.json");
  CliRun r = runGoheap("suspects '" + dir + "/leaks.dump' '" + dir + "/leaks' --no-progress -n 1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const std::string& part :
       {std::string("Suspect 1\n"), report["sessions"]["map_addr"].str(),
        "global " + report["sessions"]["global"].str(), std::string("Accumulation point: "),
        report["sessions"]["type"].str(), std::string("shows all")}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("Suspect 2"), std::string::npos) << r.out;
  CliRun none = runGoheap("suspects '" + dir + "/leaks.dump' --no-progress --threshold 95");
  ASSERT_EQ(none.code, 0) << none.out;
  EXPECT_NE(none.out.find("No suspects"), std::string::npos) << none.out;
}

INSTANTIATE_TEST_SUITE_P(Leaks, SuspectsCliOn, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
