// goheap against real dumps of tests/programs/retention: the program reports
// what it built (addresses by %p, sizes, counts, goroutines), and goheap must
// agree. Runs on the dumps made at test time by every Go release of
// support/go_versions.h (amd64) and on the committed fixtures for arm64,
// s390x (big-endian) and arm (32-bit).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "analysis/goroutine_info.h"
#include "analysis/paths.h"
#include "analysis/slots.h"
#include "analysis/snapshot.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct DumpCase {
  std::string name;  // "go1_24_amd64_built_now"
  std::string dump;
  std::string report;
};

void PrintTo(const DumpCase& c, std::ostream* os) {
  *os << c.dump;
}

std::vector<DumpCase> retentionDumps() {
  std::vector<DumpCase> cases;
  for (const std::string& v : testing::goVersionsWithReleaseTier()) {
    std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v;
    cases.push_back({testing::testName(v + "_amd64_built_now"), dir + "/retention.dump",
                     dir + "/retention.json"});
  }
  for (const std::string& f : testing::fixtureNames()) {
    std::string dir = std::string(GOHEAP_SOURCE_DIR) + "/tests/fixtures/" + f;
    cases.push_back(
        {testing::testName(f + "_fixture"), dir + "/retention.dump", dir + "/retention.json"});
  }
  return cases;
}

class RetentionDump : public ::testing::TestWithParam<DumpCase> {
 protected:
  void SetUp() override {
    const DumpCase& c = GetParam();
    ASSERT_TRUE(std::filesystem::exists(c.dump))
        << c.dump << " is missing: tests/programs/make-dumps.sh makes it";
    report_ = JsonValue::parseFile(c.report);
    auto snap = goheap::testing::openSnapshot(c.dump);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    snap_ = snap.take();
  }

  uint64_t addr(const std::string& label) const {
    return report_["objects"][label]["addr"].hexAddress();
  }
  NodeId object(const std::string& label) const {
    auto o = analysis::objectAt(*snap_, addr(label));
    EXPECT_TRUE(o.has_value()) << label << " at " << std::hex << addr(label) << " not found";
    return o.value_or(kNoNode);
  }

  JsonValue report_;
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(RetentionDump, ParamsAgreeWithTheProgram) {
  const model::Params& p = snap_->model.params;
  EXPECT_EQ(p.ptr_size, report_["ptr_size"].u64());
  EXPECT_EQ(p.big_endian, report_["big_endian"].boolean());
  EXPECT_EQ(std::string(p.arch), report_["goarch"].str());
  EXPECT_EQ(std::string(p.go_version), report_["go_version"].str());
}

TEST_P(RetentionDump, EveryReportedObjectIsInTheDumpAtItsAddressAndReachable) {
  ASSERT_GT(report_["objects"].size(), 0u);
  for (const auto& [label, obj] : report_["objects"].members()) {
    auto o = analysis::objectAt(*snap_, obj["addr"].hexAddress());
    ASSERT_TRUE(o.has_value()) << label;
    EXPECT_TRUE(snap_->reachable(*o)) << label;
    if (label.starts_with("str_")) continue;  // string data may share a slot
    EXPECT_EQ(snap_->address(*o), obj["addr"].hexAddress()) << label << " starts elsewhere";
    EXPECT_EQ(snap_->shallowSize(*o), obj["size"].u64()) << label;
  }
}

TEST_P(RetentionDump, TreeHeldOnlyByAGlobalRetainsExactlyItsNodes) {
  const JsonValue& tree = report_["structures"]["retained_tree"];
  auto root = analysis::objectAt(*snap_, tree["root_addr"].hexAddress());
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(snap_->retained[*root], tree["bytes"].u64());
  // Its dominator is the segment holding the global: no object shares it.
  EXPECT_FALSE(snap_->heap.isObject(snap_->dom.idom[*root]));
  // The dominator subtree holds exactly the tree's nodes.
  uint64_t count = 0;
  std::vector<NodeId> stack{*root};
  const Csr& children = snap_->dominatorChildren();
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    count++;
    for (NodeId c : children.neighbors(n)) stack.push_back(c);
  }
  EXPECT_EQ(count, tree["count"].u64());
}

TEST_P(RetentionDump, SessionMapRetainsAtLeastItsSessions) {
  const JsonValue& cache = report_["structures"]["session_cache"];
  auto map = analysis::objectAt(*snap_, cache["root_addr"].hexAddress());
  ASSERT_TRUE(map.has_value());
  EXPECT_GE(snap_->retained[*map], cache["bytes"].u64());
  // Every Session in the map is dominated by the map header.
  for (int i = 0; i < 100; i++) {
    NodeId s = object("session_" + std::to_string(i));
    NodeId d = s;
    while (d != kNoNode && d != *map && d != snap_->heap.superRoot()) d = snap_->dom.idom[d];
    EXPECT_EQ(d, *map) << "session_" << i;
  }
}

TEST_P(RetentionDump, PathFromGlobalToChainEndHasTheReportedHops) {
  ASSERT_GT(report_["paths"].size(), 0u);
  for (const JsonValue& p : report_["paths"].items()) {
    auto target = analysis::objectAt(*snap_, p["target_addr"].hexAddress());
    ASSERT_TRUE(target.has_value());
    auto paths = analysis::pathsToRoots(*snap_, *target, 3);
    ASSERT_FALSE(paths.empty());
    const analysis::Path& shortest = paths.front();
    // Steps: the segment holding the global, then one per hop.
    EXPECT_EQ(shortest.steps.size(), p["hops"].u64() + 1);
    EXPECT_TRUE(shortest.steps.front().node.kind == "bss segment" ||
                shortest.steps.front().node.kind == "data segment");
    for (size_t i = 1; i < shortest.steps.size(); i++) {
      EXPECT_EQ(shortest.steps[i].node.address, addr("chain_" + std::to_string(i - 1)));
    }
    // Each step names the word that points on: the chain's next pointer.
    for (size_t i = 1; i + 1 < shortest.steps.size(); i++) {
      ASSERT_TRUE(shortest.steps[i].offset.has_value());
      EXPECT_EQ(shortest.steps[i].slot_address,
                shortest.steps[i].node.address + *shortest.steps[i].offset);
    }
  }
}

TEST_P(RetentionDump, GoroutinesMatchTheProgramsTraceback) {
  std::map<uint64_t, const model::Goroutine*> by_id;
  for (const model::Goroutine& g : snap_->model.goroutines) by_id[g.goid] = &g;
  ASSERT_GT(report_["goroutines"].size(), 1u) << "the program's goroutines besides the dumping one";
  for (const JsonValue& g : report_["goroutines"].items()) {
    auto it = by_id.find(g["id"].u64());
    ASSERT_NE(it, by_id.end()) << "goroutine " << g["id"].u64() << " missing";
    if (g["state"].str() == "running") continue;  // the one writing the dump
    EXPECT_EQ(std::string(it->second->wait_reason), g["state"].str())
        << "goroutine " << g["id"].u64();
  }
}

TEST_P(RetentionDump, GoroutineStackAloneRetainsItsBuffer) {
  const JsonValue& buf = report_["structures"]["held_buffer"];
  NodeId b = object("held_buffer");
  ASSERT_NE(b, kNoNode);
  // Its immediate dominator is a stack frame of main.holdBuffer.
  NodeId d = snap_->dom.idom[b];
  ASSERT_FALSE(snap_->heap.isObject(d));
  ASSERT_EQ(snap_->heap.rootKind(d), graph::RootKind::StackFrame);
  const model::StackFrame& f = snap_->model.frames[snap_->heap.rootRecord(d)];
  EXPECT_EQ(std::string(f.function), buf["holder"].str());
  // And its goroutine's stack retains at least the buffer.
  uint64_t goid = 0;
  for (const JsonValue& g : report_["goroutines"].items()) {
    if (g.has("label") && g["label"].str() == "hold_buffer") goid = g["id"].u64();
  }
  bool found = false;
  for (const analysis::GoroutineInfo& g : analysis::goroutines(*snap_)) {
    if (g.id != goid) continue;
    found = true;
    EXPECT_GE(g.retained, buf["bytes"].u64());
  }
  EXPECT_TRUE(found);
}

TEST_P(RetentionDump, GarbageMadeAfterTheLastGcIsCountedAsGarbage) {
  const JsonValue& garbage = report_["garbage"];
  uint64_t unreachable_of_size = 0;
  for (NodeId o = 0; o < snap_->heap.objectCount(); o++) {
    if (!snap_->reachable(o) && snap_->shallowSize(o) == garbage["size"].u64()) {
      unreachable_of_size++;
    }
  }
  EXPECT_GE(unreachable_of_size, garbage["count_at_least"].u64());
  EXPECT_GE(snap_->garbage_objects, garbage["count_at_least"].u64());
}

TEST_P(RetentionDump, FinalizersNameTheProgramsObjects) {
  std::set<uint64_t> objs;
  for (const model::Finalizer& f : snap_->model.finalizers) objs.insert(f.obj);
  ASSERT_GT(report_["finalizers"].size(), 0u);
  for (const JsonValue& a : report_["finalizers"].items()) {
    EXPECT_TRUE(objs.count(a.hexAddress())) << a.str();
  }
}

TEST_P(RetentionDump, AllocationSitesNameTheProgramsFunctions) {
  // MemProfileRate = 1: every object the program made has a sample; the
  // site is a main.* function in main.go.
  for (const char* label : {"tree_root", "chain_0", "session_0", "held_buffer"}) {
    NodeId o = object(label);
    ASSERT_NE(o, kNoNode);
    typing::NameSource source{};
    std::string name = snap_->namer().name(o, &source);
    EXPECT_EQ(source, typing::NameSource::Site) << label << ": " << name;
    EXPECT_TRUE(name.starts_with("main.")) << label << ": " << name;
    EXPECT_NE(name.find("main.go:"), std::string::npos) << label << ": " << name;
  }
}

TEST_P(RetentionDump, InterfaceWordNamesThePackageOfTheDynamicType) {
  // sink holds *main.Dog in a Speaker: the itab's type is main's pointer type.
  NodeId dog = object("dog");
  ASSERT_NE(dog, kNoNode);
  std::string_view t = snap_->namer().interfaceTypeOf(dog);
  EXPECT_TRUE(t.starts_with("main.")) << t;
}

INSTANTIATE_TEST_SUITE_P(RealDumps, RetentionDump, ::testing::ValuesIn(retentionDumps()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace goheap
