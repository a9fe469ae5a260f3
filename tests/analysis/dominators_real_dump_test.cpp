// Dominators and retained sizes of a real dump's graph against brute force.
//
// The random graphs in dominators_test.cpp are small and shapeless; a real
// heap has roots with hundreds of edges, long singly-owned chains, shared
// type-less blobs and garbage. Here the whole graph of a committed fixture
// (a few thousand objects, the roots and the super-root) is checked node by
// node against the definition: d dominates v when v is reachable from the
// super-root but not once d is removed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "graph/csr.h"
#include "support/go_versions.h"
#include "support/graph_oracles.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap::analysis {
namespace {

using goheap::testing::reachableWithout;

struct BruteForce {
  std::vector<NodeId> idom;
  std::vector<uint64_t> retained;
};

// O(N * (N + E)): one search per reachable node. The strict dominators of v
// form a chain, so v's idom is the one that is itself dominated by the most
// nodes; that count replaces the quadratic "dominated by all the others" test
// of the small-graph oracle, which long chains of a real heap would make slow.
BruteForce bruteForce(const Csr& successors, NodeId root, PackedView sizes) {
  const uint32_t n = successors.nodeCount();
  const std::vector<char> reach = reachableWithout(successors, root, kNoNode);
  // dominated[d] lists the nodes d strictly dominates.
  std::vector<std::vector<NodeId>> dominated(n);
  std::vector<uint32_t> dominator_count(n, 0);  // strict dominators of each node
  BruteForce out;
  out.retained.assign(n, 0);
  for (NodeId d = 0; d < n; d++) {
    if (!reach[d]) continue;
    const std::vector<char> without = reachableWithout(successors, root, d);
    out.retained[d] = d < sizes.size() ? sizes[d] : 0;
    for (NodeId v = 0; v < n; v++) {
      if (v == d || !reach[v] || without[v]) continue;
      dominated[d].push_back(v);
      dominator_count[v]++;
      out.retained[d] += v < sizes.size() ? sizes[v] : 0;
    }
  }
  out.idom.assign(n, kNoNode);
  out.idom[root] = root;
  std::vector<uint32_t> best(n, 0);  // dominator_count of the idom candidate so far
  for (NodeId d = 0; d < n; d++) {
    for (NodeId v : dominated[d]) {
      if (out.idom[v] == kNoNode || dominator_count[d] > best[v]) {
        out.idom[v] = d;
        best[v] = dominator_count[d];
      }
    }
  }
  return out;
}

class RealDumpDominators : public ::testing::TestWithParam<std::string> {};

TEST_P(RealDumpDominators, AgreeWithBruteForce) {
  const std::string path =
      std::string(GOHEAP_SOURCE_DIR) + "/tests/fixtures/" + GetParam() + "/retention.dump";
  auto loaded = goheap::testing::openSnapshot(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  const Snapshot& snap = **loaded;
  const graph::Heap& heap = snap.heap;
  const uint32_t n = heap.nodeCount();
  // A sanity floor: the fixture is the retention program's heap, not a
  // degenerate graph on which agreement would prove little.
  ASSERT_GT(heap.objectCount(), 1000u);
  ASSERT_GT(n, heap.objectCount());
  // Loading computes no predecessors (the dominators make their own); a
  // referrer lookup then reads every edge, and must list what the
  // predecessors list once computed.
  ASSERT_EQ(heap.predecessorsIfComputed(), nullptr);
  std::vector<std::vector<NodeId>> scanned;
  for (NodeId v = 0; v < n; v += 97) scanned.push_back(heap.referrersOf(v));
  ASSERT_EQ(heap.predecessors().nodeCount(), n);
  ASSERT_NE(heap.predecessorsIfComputed(), nullptr);
  for (NodeId v = 0, i = 0; v < n; v += 97, i++) {
    const auto from_csr = heap.predecessors().neighbors(v);
    ASSERT_EQ(scanned[i], std::vector<NodeId>(from_csr.begin(), from_csr.end())) << "node " << v;
  }
  ASSERT_EQ(snap.dom.idom.size(), n);
  ASSERT_EQ(snap.retained.size(), n);

  const auto started = std::chrono::steady_clock::now();
  const BruteForce brute = bruteForce(heap.successors, heap.superRoot(), snap.model.objects.size);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The whole graph is affordable; if a fixture grows so that it is not,
  // this says so rather than the test silently becoming slow.
  EXPECT_LT(seconds, 20.0) << n << " nodes, " << heap.successors.edgeCount() << " edges";

  // The graph is the same in both directions, as computeDominators assumes.
  const Csr reversed = reverseCsr(heap.successors);
  EXPECT_EQ(reversed.begin, heap.predecessors().begin);
  EXPECT_EQ(reversed.targets, heap.predecessors().targets);

  uint32_t reachable = 0, nontrivial = 0, mismatched_idom = 0, mismatched_retained = 0;
  for (NodeId v = 0; v < n; v++) {
    if (brute.idom[v] != kNoNode) reachable++;
    if (brute.idom[v] != kNoNode && brute.idom[v] != heap.superRoot() &&
        heap.isObject(brute.idom[v])) {
      nontrivial++;
    }
    if (snap.dom.idom[v] != brute.idom[v] && mismatched_idom++ < 10) {
      ADD_FAILURE() << "idom of node " << v << ": " << snap.dom.idom[v] << ", brute force says "
                    << brute.idom[v];
    }
    if (snap.retained[v] != brute.retained[v] && mismatched_retained++ < 10) {
      ADD_FAILURE() << "retained size of node " << v << ": " << snap.retained[v]
                    << ", brute force says " << brute.retained[v];
    }
  }
  EXPECT_EQ(mismatched_idom, 0u);
  EXPECT_EQ(mismatched_retained, 0u);
  // The graph exercises what it should: garbage, and objects owned by
  // other objects rather than straight by roots.
  EXPECT_LT(reachable, n);
  EXPECT_GT(nontrivial, 100u);
  // Every reachable node but the root is one node's child.
  EXPECT_EQ(snap.dominatorChildren().targets.size() + 1, reachable);
  EXPECT_EQ(snap.retained[heap.superRoot()], snap.reachable_bytes);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RealDumpDominators,
                         ::testing::ValuesIn(goheap::testing::fixtureNames()),
                         goheap::testing::pathParamName);

}  // namespace
}  // namespace goheap::analysis
