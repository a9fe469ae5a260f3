// summary, asked through the question table of tests/programs/retention's
// heap: the counts against a plain walk of the graph, the top retainers
// against the structures the program built and the holder it says keeps each;
// the roots named for a retainer several roots hold, against a forward walk
// from every root.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <vector>

#include "analysis/summary.h"

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SummaryQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(SummaryQuestion, CountsWhatTheRootsReach) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue summary = testing::askQuestion("summary", {}, *heap.session);
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  EXPECT_EQ(summary["objects"]["reachable_count"].u64(), reached.objects);
  EXPECT_EQ(summary["objects"]["reachable_bytes"].u64(), reached.bytes);
  EXPECT_GE(summary["objects"]["garbage_count"].u64(),
            heap.report["garbage"]["count_at_least"].u64());
}

TEST_P(SummaryQuestion, TopRetainersAreTheProgramsStructures) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue summary = testing::askQuestion("summary", {{"top", "50"}}, *heap.session);
  for (const auto& [label, structure] : heap.report["structures"].members()) {
    SCOPED_TRACE(label);
    const JsonValue* found = nullptr;
    for (const JsonValue& r : summary["top_retainers"].items()) {
      if (r["object"]["address"].str() == structure["root_addr"].str()) found = &r;
    }
    ASSERT_NE(found, nullptr) << "not a top retainer: " << structure["root_addr"].str();
    EXPECT_GE((*found)["retained"].u64(), structure["bytes"].u64());
    // Its holder is the global or the function the program says keeps it.
    const JsonValue& held_by = (*found)["held_by"];
    const std::string holder = structure["holder"].str();
    if (held_by["kind"].str() == "stack frame") {
      EXPECT_EQ(held_by["name"].str().rfind(holder, 0), 0u) << held_by["name"].str();
    } else {
      EXPECT_EQ(held_by["global"].str(), holder) << held_by["name"].str();
    }
  }
}

// The roots with an edge to `target`, and the holding roots that reach it: a
// walk forward from each root no other root points at (a goroutine, not its
// frames, which the goroutine's root points at), through objects and the
// roots they lead to. No dominators, no predecessors.
struct RootsOf {
  std::set<NodeId> pointing, reaching;
};
RootsOf rootsOf(const analysis::Snapshot& s, NodeId target) {
  RootsOf out;
  const graph::Heap& h = s.heap;
  std::vector<bool> pointed_at_by_a_root(h.nodeCount());
  for (NodeId root = h.objectCount(); root < h.nodeCount(); root++) {
    if (root == h.superRoot()) continue;
    for (NodeId to : h.successors.neighbors(root)) {
      if (to == target) out.pointing.insert(root);
      if (!h.isObject(to) && to != root) pointed_at_by_a_root[to] = true;
    }
  }
  for (NodeId root = h.objectCount(); root < h.nodeCount(); root++) {
    if (root == h.superRoot() || pointed_at_by_a_root[root]) continue;
    std::vector<bool> seen(h.nodeCount());
    std::vector<NodeId> stack{root};
    seen[root] = true;
    while (!stack.empty() && !seen[target]) {
      const NodeId n = stack.back();
      stack.pop_back();
      for (NodeId to : h.successors.neighbors(n)) {
        if (to != h.superRoot() && !seen[to]) {
          seen[to] = true;
          stack.push_back(to);
        }
      }
    }
    if (seen[target]) out.reaching.insert(root);
  }
  return out;
}

TEST_P(SummaryQuestion, NamesEveryRootOfASharedRetainer) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const analysis::Snapshot& s = heap.session->snapshot();
  const analysis::Summary sum = analysis::summarize(s, 50);
  size_t shared = 0, through_objects = 0;
  for (const analysis::Retainer& r : sum.top_retainers) {
    if (r.held_by.node != s.heap.superRoot()) continue;
    SCOPED_TRACE(r.object.name + ": " + analysis::rootHoldersText(r));
    shared++;
    const RootsOf roots = rootsOf(s, r.object.node);
    ASSERT_GE(roots.reaching.size(), 2u);  // else a root would dominate it
    EXPECT_TRUE(r.root_holders_complete);
    EXPECT_FALSE(r.root_holders.empty());
    const uint64_t named = r.root_holders.size() + r.more_root_holders;
    if (!roots.pointing.empty()) {
      EXPECT_FALSE(r.root_holders_through_objects);
      EXPECT_EQ(named, roots.pointing.size());
      EXPECT_LE(r.root_holders.size(), analysis::kMaxRootHolders);
    } else {
      through_objects++;
      EXPECT_TRUE(r.root_holders_through_objects);
      EXPECT_EQ(named, roots.reaching.size());
      EXPECT_LE(r.root_holders.size(), analysis::kMaxIndirectRootHolders);
    }
  }
  // Every Go heap has some: the runtime's Ms and Ps, which globals and
  // goroutines reach.
  EXPECT_GT(shared, 0u);
  std::printf("%zu retainers held by several roots, %zu of them through objects\n", shared,
              through_objects);
}

INSTANTIATE_TEST_SUITE_P(Questions, SummaryQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
