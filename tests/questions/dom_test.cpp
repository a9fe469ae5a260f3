// dom, asked through the question table of tests/programs/retention's heap:
// the retained sizes it shows against a naive dominator (the objects that
// nothing reaches once a node is taken out of the graph), from the
// super-root and from the tree the program built.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class DomQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(DomQuestion, TheSuperRootRetainsEveryReachableByte) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue dom = testing::askQuestion("dom", {{"depth", "1"}}, *heap.session);
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  EXPECT_EQ(dom["total_retained"].u64(), reached.bytes);
  EXPECT_EQ(dom["rows"][size_t{0}]["node"]["kind"].str(), "super-root");
  EXPECT_EQ(dom["rows"][size_t{0}]["retained"].u64(), reached.bytes);
}

TEST_P(DomQuestion, TheTreeRootRetainsWhatOnlyItReaches) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const analysis::Snapshot& s = heap.session->snapshot();
  const std::string root = heap.report["objects"]["tree_root"]["addr"].str();
  const JsonValue dom = testing::askQuestion(
      "dom", {{"from", root}, {"depth", "1"}, {"min_bytes", "0"}}, *heap.session);
  const NodeId node = s.heap.addresses().find(std::stoull(root, nullptr, 16));
  ASSERT_NE(node, kNoNode);
  const uint64_t dominated =
      testing::reachedObjects(s).bytes - testing::reachedObjects(s, node).bytes;
  const JsonValue& top = dom["rows"][size_t{0}];
  EXPECT_EQ(top["node"]["address"].str(), root);
  EXPECT_EQ(top["retained"].u64(), dominated);
  EXPECT_EQ(dominated, heap.report["structures"]["retained_tree"]["bytes"].u64());
  // A binary tree: the root dominates its two subtrees, each shown.
  EXPECT_EQ(top["children"].u64(), 2u);
  EXPECT_EQ(dom["rows"].size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Questions, DomQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
