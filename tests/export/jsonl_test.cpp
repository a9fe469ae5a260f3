// --to jsonl read back line by line with the tests' own JSON reader
// (docs/jsonl-format.md) and compared with the heap graph and the
// dominator tree.
#include <gtest/gtest.h>

#include <sstream>

#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

class JsonLinesFile : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonLinesFile, ReadsBackAsTheHeapGraph) {
  const testing::TypedDump loaded =
      testing::loadTypedDump(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam());
  if (!loaded.missing.empty()) GTEST_SKIP() << loaded.missing;
  ASSERT_TRUE(loaded.error.empty()) << loaded.error;
  const analysis::Snapshot& s = *loaded.snapshot;
  const graph::Heap& h = s.heap;
  std::istringstream in(testing::readWholeFile(testing::writeFormat(s, "jsonl")));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const JsonValue header = JsonValue::parse(line);
  EXPECT_EQ(header["kind"].str(), "header");
  EXPECT_EQ(header["format"].str(), "goheap-jsonl");
  EXPECT_EQ(header["objects"].u64(), h.objectCount());
  EXPECT_EQ(header["nodes"].u64(), h.nodeCount());
  EXPECT_EQ(header["super_root"].u64(), h.superRoot());
  EXPECT_TRUE(header["typed"].boolean());

  uint64_t objects = 0, roots = 0, types = 0, goroutines = 0, bytes = 0;
  NodeId expected = 0;  // objects then roots, in node order
  while (std::getline(in, line)) {
    const JsonValue v = JsonValue::parse(line);
    const std::string& kind = v["kind"].str();
    if (kind == "object" || kind == "root") {
      const NodeId n = static_cast<NodeId>(v["id"].u64());
      ASSERT_EQ(n, expected++);
      EXPECT_EQ(kind == "object", h.isObject(n));
      std::vector<NodeId> refs;
      for (const JsonValue& r : v["refs"].items()) refs.push_back(static_cast<NodeId>(r.u64()));
      const auto succ = h.successors.neighbors(n);
      EXPECT_EQ(refs, std::vector<NodeId>(succ.begin(), succ.end())) << "node " << n;
      EXPECT_EQ(v["retained"].u64(), s.retained[n]);
      if (n == h.superRoot() || !s.reachable(n)) {
        EXPECT_TRUE(v["idom"].isNull());
      } else {
        EXPECT_EQ(v["idom"].u64(), s.dom.idom[n]);
      }
      if (kind == "object") {
        objects++;
        bytes += v["size"].u64();
        EXPECT_EQ(v["size"].u64(), s.model.objects.size[n]);
        EXPECT_EQ(v["address"].hexAddress(), s.model.objects.addr[n]);
        EXPECT_EQ(v["reachable"].boolean(), s.reachable(n));
        EXPECT_EQ(v["name"].str(), s.namer().name(n));
      } else {
        roots++;
        EXPECT_EQ(v["root_kind"].str(), graph::rootKindName(h.rootKind(n)));
      }
    } else if (kind == "type") {
      types++;
      EXPECT_GT(v["count"].u64(), 0u);
    } else if (kind == "goroutine") {
      goroutines++;
      EXPECT_FALSE(v["frames"].items().empty());
    } else {
      ADD_FAILURE() << "unknown line kind " << kind;
    }
  }
  EXPECT_EQ(objects, h.objectCount());
  EXPECT_EQ(roots, h.nodeCount() - h.objectCount());
  EXPECT_GT(types, 0u);
  EXPECT_EQ(goroutines, s.model.goroutines.size());
  uint64_t total = 0;
  for (NodeId o = 0; o < h.objectCount(); o++) total += s.model.objects.size[o];
  EXPECT_EQ(bytes, total);
}

INSTANTIATE_TEST_SUITE_P(RealDumps, JsonLinesFile,
                         ::testing::ValuesIn(testing::inEachVersion({"zoo", "retention"})),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
