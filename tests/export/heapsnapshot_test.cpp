// --to heapsnapshot against the heap graph, and against memlab: memlab
// (@memlab/core, installed by scripts/install-npm-tools.sh into the build
// directory) loads the file and computes dominators and retained sizes on
// its own; they must be goheap's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

constexpr size_t kNodeFields = 7, kEdgeFields = 3;

std::string testExe(const std::string& name) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + name;
}

// goheap's node for a .heapsnapshot node id (2n+1).
NodeId nodeOfId(uint64_t id) {
  return static_cast<NodeId>((id - 1) / 2);
}

class HeapSnapshotFile : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    testing::TypedDump loaded = testing::loadTypedDump(testExe(GetParam()));
    if (!loaded.missing.empty()) GTEST_SKIP() << loaded.missing;
    ASSERT_TRUE(loaded.error.empty()) << loaded.error;
    snap_ = std::move(loaded.snapshot);
  }
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(HeapSnapshotFile, NodesAndEdgesAreTheHeapGraph) {
  const analysis::Snapshot& s = *snap_;
  const JsonValue doc = JsonValue::parseFile(testing::writeFormat(s, "heapsnapshot"));
  const JsonValue& meta = doc["snapshot"]["meta"];
  ASSERT_EQ(meta["node_fields"].size(), kNodeFields);
  ASSERT_EQ(meta["edge_fields"].size(), kEdgeFields);
  const uint32_t n = s.heap.nodeCount();
  EXPECT_EQ(doc["snapshot"]["node_count"].u64(), n);
  const JsonValue& nodes = doc["nodes"];
  const JsonValue& edges = doc["edges"];
  const JsonValue& strings = doc["strings"];
  ASSERT_EQ(nodes.size(), size_t{n} * kNodeFields);
  ASSERT_EQ(edges.size(), size_t{s.heap.successors.edgeCount()} * kEdgeFields);
  // The first node is the synthetic root, and it is goheap's super-root.
  const std::string synthetic = meta["node_types"][0][nodes[0].u64()].str();
  EXPECT_EQ(synthetic, "synthetic");
  EXPECT_EQ(nodeOfId(nodes[2].u64()), s.heap.superRoot());

  size_t edge = 0, named_fields = 0;
  std::set<uint64_t> ids;
  for (size_t i = 0; i < n; i++) {
    const uint64_t id = nodes[i * kNodeFields + 2].u64();
    ASSERT_TRUE(ids.insert(id).second) << "duplicate id " << id;
    const NodeId node = nodeOfId(id);
    ASSERT_LT(node, n);
    EXPECT_EQ(nodes[i * kNodeFields + 3].u64(), s.shallowSize(node));
    const std::string type = meta["node_types"][0][nodes[i * kNodeFields].u64()].str();
    EXPECT_EQ(type, s.heap.isObject(node) ? "object" : "synthetic");
    if (s.heap.isObject(node)) {
      EXPECT_EQ(strings[nodes[i * kNodeFields + 1].u64()].str(), s.namer().name(node));
    }
    const uint64_t count = nodes[i * kNodeFields + 4].u64();
    const auto succ = s.heap.successors.neighbors(node);
    ASSERT_EQ(count, succ.size()) << "node " << node;
    for (size_t k = 0; k < count; k++, edge++) {
      const uint64_t to = edges[edge * kEdgeFields + 2].u64();
      ASSERT_EQ(to % kNodeFields, 0u);
      const NodeId target = nodeOfId(nodes[to + 2].u64());
      EXPECT_EQ(target, succ[k]) << "edge " << k << " of node " << node;
      const std::string etype = meta["edge_types"][0][edges[edge * kEdgeFields].u64()].str();
      if (etype == "property") {
        const std::string& name = strings[edges[edge * kEdgeFields + 1].u64()].str();
        if (!name.starts_with("+")) named_fields++;
      } else {
        EXPECT_EQ(etype, "element");
      }
    }
  }
  // With DWARF, references are named by fields, globals and locals.
  EXPECT_GT(named_fields, s.heap.successors.edgeCount() / 4);
}

// ---- memlab ----------------------------------------------------------------

struct MemlabView {
  uint64_t nodes = 0, self = 0;
  std::map<uint64_t, uint64_t> retained;  // by node id
};

// Runs tests/export/memlab_retained.js; false when node or memlab is missing.
bool memlabAvailable(std::string& why) {
  why = testing::missingNodePackage("@memlab/core");
  return why.empty();
}

MemlabView runMemlab(const std::string& snapshot) {
  const std::string out = snapshot + ".memlab";
  const std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) +
                          "/tests/export/memlab_retained.js " + std::string(GOHEAP_NPM_DIR) +
                          "/node_modules " + snapshot + " " + out;
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
  MemlabView v;
  std::ifstream in(out);
  std::string word;
  in >> word >> v.nodes >> word >> v.self;
  uint64_t id = 0, size = 0;
  while (in >> id >> size) v.retained[id] = size;
  return v;
}

TEST_P(HeapSnapshotFile, MemlabComputesGoheapsRetainedSizes) {
  std::string why;
  GOHEAP_REQUIRE_TOOL(memlabAvailable(why), why);
  const analysis::Snapshot& s = *snap_;
  const MemlabView m = runMemlab(testing::writeFormat(s, "heapsnapshot"));
  EXPECT_EQ(m.nodes, s.heap.nodeCount());
  uint64_t self = 0;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) self += s.model.objects.size[o];
  EXPECT_EQ(m.self, self);

  // The 20 objects retaining most, by goheap.
  std::vector<NodeId> objects;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (s.reachable(o)) objects.push_back(o);
  }
  std::sort(objects.begin(), objects.end(),
            [&](NodeId a, NodeId b) { return s.retained[a] > s.retained[b]; });
  objects.resize(std::min<size_t>(objects.size(), 20));
  ASSERT_FALSE(objects.empty());
  for (NodeId o : objects) {
    auto it = m.retained.find(uint64_t{o} * 2 + 1);
    ASSERT_NE(it, m.retained.end()) << "object " << o;
    EXPECT_EQ(it->second, s.retained[o]) << "object " << o << " " << s.namer().name(o);
  }
  // Every other reachable node too: goheap and memlab agree on the
  // dominator tree below the root.
  size_t differ = 0;
  for (NodeId n = 0; n < s.heap.nodeCount(); n++) {
    if (n == s.heap.superRoot() || !s.reachable(n)) continue;
    if (m.retained.at(uint64_t{n} * 2 + 1) != s.retained[n]) differ++;
  }
  EXPECT_EQ(differ, 0u);
  // The one principled difference: memlab makes the root the dominator of
  // unreachable nodes (garbage not yet swept), so the root retains the
  // whole file; goheap's super-root retains only the reachable heap.
  EXPECT_EQ(m.retained.at(uint64_t{s.heap.superRoot()} * 2 + 1), self);
  EXPECT_EQ(s.retained[s.heap.superRoot()], s.reachable_bytes);
}

INSTANTIATE_TEST_SUITE_P(RealDumps, HeapSnapshotFile,
                         ::testing::ValuesIn(testing::inEachVersion({"zoo", "retention"})),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
