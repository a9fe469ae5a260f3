#include "analysis/dominators.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "graph/csr.h"
#include "support/graph_oracles.h"

namespace goheap::analysis {
namespace {

using Edge = std::pair<NodeId, NodeId>;

// Keeps the order in which each source's edges are listed, since that order
// decides the DFS and therefore the preorder.
Csr csrFromEdges(uint32_t node_count, const std::vector<Edge>& edges) {
  Csr g;
  g.begin.assign(static_cast<size_t>(node_count) + 1, 0);
  for (const auto& [from, to] : edges) g.begin[from + 1]++;
  for (uint32_t i = 0; i < node_count; i++) g.begin[i + 1] += g.begin[i];
  g.targets.resize(edges.size());
  std::vector<uint32_t> fill(g.begin.begin(), g.begin.end() - 1);
  for (const auto& [from, to] : edges) g.targets[fill[from]++] = to;
  return g;
}

struct Graph {
  uint32_t node_count = 0;
  NodeId root = 0;
  Csr successors;
  Csr predecessors;
};

Graph makeGraph(uint32_t node_count, NodeId root, const std::vector<Edge>& edges) {
  Graph g;
  g.node_count = node_count;
  g.root = root;
  g.successors = csrFromEdges(node_count, edges);
  g.predecessors = reverseCsr(g.successors);
  return g;
}

DominatorTree dominatorsOf(const Graph& g) {
  return computeDominators(g.successors, g.root);
}

// ---- Brute-force oracle: nothing but reachability with one node removed. ----

using goheap::testing::reachableWithout;

// dominates[d][v]: every path from the root to v passes through d.
std::vector<std::vector<char>> bruteDominates(const Graph& g) {
  const uint32_t n = g.node_count;
  const std::vector<char> reach = reachableWithout(g.successors, g.root, kNoNode);
  std::vector<std::vector<char>> dominates(n, std::vector<char>(n, 0));
  for (NodeId d = 0; d < n; d++) {
    if (!reach[d]) continue;
    const std::vector<char> without = reachableWithout(g.successors, g.root, d);
    for (NodeId v = 0; v < n; v++) dominates[d][v] = reach[v] && !without[v];
  }
  return dominates;
}

// The strict dominator of v that every other strict dominator of v dominates.
std::vector<NodeId> bruteIdom(const Graph& g) {
  const uint32_t n = g.node_count;
  const auto dominates = bruteDominates(g);
  std::vector<NodeId> idom(n, kNoNode);
  idom[g.root] = g.root;
  for (NodeId v = 0; v < n; v++) {
    if (v == g.root || !dominates[g.root][v]) continue;
    std::vector<NodeId> strict;
    for (NodeId d = 0; d < n; d++) {
      if (d != v && dominates[d][v]) strict.push_back(d);
    }
    for (NodeId d : strict) {
      bool all_dominate_d = true;
      for (NodeId other : strict) all_dominate_d = all_dominate_d && dominates[other][d];
      if (all_dominate_d) {
        EXPECT_EQ(idom[v], kNoNode) << "oracle found two idoms for " << v;
        idom[v] = d;
      }
    }
  }
  return idom;
}

uint64_t sizeOf(std::span<const uint64_t> sizes, NodeId n) {
  return n < sizes.size() ? sizes[n] : 0;
}

// v's own size plus the sizes of the nodes that become unreachable without v.
std::vector<uint64_t> bruteRetained(const Graph& g, std::span<const uint64_t> sizes) {
  const uint32_t n = g.node_count;
  const std::vector<char> reach = reachableWithout(g.successors, g.root, kNoNode);
  std::vector<uint64_t> retained(n, 0);
  for (NodeId v = 0; v < n; v++) {
    if (!reach[v]) continue;
    const std::vector<char> without = reachableWithout(g.successors, g.root, v);
    for (NodeId x = 0; x < n; x++) {
      if (reach[x] && !without[x]) retained[v] += sizeOf(sizes, x);
    }
  }
  return retained;
}

// ---- Random graphs ----

enum class Shape {
  kSparse,              // under two edges per node: many unreachable nodes
  kMedium,              // two to four edges per node: mostly reachable, many nontrivial idoms
  kDense,               // up to half of all possible edges
  kDeep,                // a path through every node plus random shortcuts and back edges
  kRootWithoutEdges,    // the root has no outgoing edges at all
  kLoopsAndDuplicates,  // sparse, plus self loops and repeated edges
};

Graph randomGraph(Shape shape, uint64_t seed) {
  std::mt19937_64 rng(seed * 8 + static_cast<uint64_t>(shape));
  auto below = [&](uint64_t bound) { return static_cast<uint32_t>(rng() % bound); };
  const uint32_t n = 1 + below(200);
  const NodeId root = below(n);
  std::vector<Edge> edges;
  auto add_random_edges = [&](uint64_t count) {
    for (uint64_t i = 0; i < count; i++) edges.emplace_back(below(n), below(n));
  };
  switch (shape) {
    case Shape::kSparse:
      add_random_edges(below(3 * n + 1));
      break;
    case Shape::kMedium:
      add_random_edges(2 * n + below(2 * n + 1));
      break;
    case Shape::kDense:
      add_random_edges(n + below(static_cast<uint64_t>(n) * n / 2 + 1));
      break;
    case Shape::kDeep: {
      std::vector<NodeId> order(n);
      for (NodeId i = 0; i < n; i++) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      std::swap(order[0], *std::find(order.begin(), order.end(), root));
      for (NodeId i = 0; i + 1 < n; i++) edges.emplace_back(order[i], order[i + 1]);
      add_random_edges(below(n / 2 + 1));
      break;
    }
    case Shape::kRootWithoutEdges:
      add_random_edges(below(3 * n + 1));
      std::erase_if(edges, [&](const Edge& e) { return e.first == root; });
      break;
    case Shape::kLoopsAndDuplicates: {
      add_random_edges(below(2 * n + 1));
      for (NodeId i = 0; i < n; i++) {
        if (below(3) == 0) edges.emplace_back(i, i);
      }
      const size_t original = edges.size();
      for (size_t i = 0; i < original; i++) {
        if (below(4) == 0) edges.push_back(edges[i]);
      }
      break;
    }
  }
  std::shuffle(edges.begin(), edges.end(), rng);
  return makeGraph(n, root, edges);
}

std::vector<uint64_t> randomSizes(uint32_t node_count, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eed5eedULL);
  // Sometimes shorter than the node count, as when the last nodes are roots.
  const uint32_t count =
      rng() % 3 == 0 ? static_cast<uint32_t>(rng() % (node_count + 1)) : node_count;
  std::vector<uint64_t> sizes(count);
  for (auto& s : sizes) {
    // Some sizes above 32 bits so that narrowing sums would show.
    s = rng() % 5 == 0 ? rng() % (uint64_t{1} << 40) : rng() % 1000;
  }
  return sizes;
}

void expectIdomsMatchBruteForce(Shape shape, uint64_t seeds) {
  for (uint64_t seed = 1; seed <= seeds; seed++) {
    const Graph g = randomGraph(shape, seed);
    const DominatorTree tree = dominatorsOf(g);
    const std::vector<NodeId> expected = bruteIdom(g);
    ASSERT_EQ(tree.idom, expected) << "seed " << seed << ", " << g.node_count << " nodes";
  }
}

TEST(Dominators, MatchBruteForceOnSparseRandomGraphs) {
  expectIdomsMatchBruteForce(Shape::kSparse, 300);
}

TEST(Dominators, MatchBruteForceOnMediumRandomGraphs) {
  expectIdomsMatchBruteForce(Shape::kMedium, 300);
}

TEST(Dominators, MatchBruteForceOnDenseRandomGraphs) {
  expectIdomsMatchBruteForce(Shape::kDense, 200);
}

TEST(Dominators, MatchBruteForceOnDeepRandomGraphs) {
  expectIdomsMatchBruteForce(Shape::kDeep, 300);
}

TEST(Dominators, MatchBruteForceWhenRootHasNoOutgoingEdges) {
  expectIdomsMatchBruteForce(Shape::kRootWithoutEdges, 100);
}

TEST(Dominators, MatchBruteForceWithSelfLoopsAndDuplicateEdges) {
  expectIdomsMatchBruteForce(Shape::kLoopsAndDuplicates, 300);
}

// ---- Hand-checked graphs ----

// Figure 1 of Lengauer and Tarjan (1979), nodes R=0 A B C D E F G H I J K L=12.
// By hand, from the predecessors:
//   A: R->A directly                                 -> R
//   B, C: only predecessor R                         -> R
//   D: R->A->D and R->B->D share only R              -> R
//   E: R->B->E and R->A->D->L->H->E share only R     -> R
//   F, G: only predecessor C                         -> C
//   H: R->B->E->H and R->A->D->L->H share only R     -> R
//   I: R->C->F->I and R->B->E->H->K->I share only R  -> R
//   J: only predecessor G                            -> G
//   K: R->B->E->H->K and R->C->F->I->K share only R  -> R
//   L: only predecessor D                            -> D
TEST(Dominators, LengauerTarjanPaperExample) {
  enum : NodeId { R, A, B, C, D, E, F, G, H, I, J, K, L };
  const Graph g = makeGraph(13, R, {{R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E},
                                    {C, F}, {C, G}, {D, L}, {E, H}, {F, I}, {G, I}, {G, J},
                                    {H, E}, {H, K}, {I, K}, {J, I}, {K, I}, {K, R}, {L, H}});
  const std::vector<NodeId> expected = {R, R, R, R, R, R, C, C, R, R, G, R, D};
  EXPECT_EQ(dominatorsOf(g).idom, expected);
}

// Figure 4 of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
// Algorithm": an irreducible loop 1<->2<->3 entered from 5 (into 1) and from 4
// (into 2 and 3). Each of 1, 2, 3 is reached both through 4 and through 5,
// so all of them, like 4 and 5, have the entry 6 as idom.
TEST(Dominators, IrreducibleLoopIsDominatedByEntryOnly) {
  const Graph g =
      makeGraph(7, 6, {{6, 5}, {6, 4}, {5, 1}, {4, 2}, {4, 3}, {1, 2}, {2, 1}, {2, 3}, {3, 2}});
  const std::vector<NodeId> expected = {kNoNode, 6, 6, 6, 6, 6, 6};
  EXPECT_EQ(dominatorsOf(g).idom, expected);
}

// 0 -> {1, 2} -> 3 -> 4: the join 3 is dominated by the fork 0, not by
// either branch, and 4 only by 3.
TEST(Dominators, DiamondJoinIsDominatedByFork) {
  const Graph g = makeGraph(5, 0, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}});
  const std::vector<NodeId> expected = {0, 0, 0, 0, 3};
  EXPECT_EQ(dominatorsOf(g).idom, expected);
}

// The loop 1->2->3->4->1 with an inner loop 3<->4 and an exit 3->5: the
// inner back edge 4->3 does not stop 2 from dominating 3, and 3 dominates
// both 4 and the exit.
TEST(Dominators, LoopHeaderDominatesLoopBody) {
  const Graph g = makeGraph(6, 0, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 1}, {4, 3}, {3, 5}});
  const std::vector<NodeId> expected = {0, 0, 1, 2, 3, 3};
  EXPECT_EQ(dominatorsOf(g).idom, expected);
}

TEST(Dominators, UnreachableNodesHaveNoIdomAndNoPreorderPlace) {
  // 3 -> 1 does not make 3 reachable; 4 is isolated.
  const Graph g = makeGraph(5, 0, {{0, 1}, {1, 2}, {3, 1}, {3, 3}});
  const DominatorTree tree = dominatorsOf(g);
  const std::vector<NodeId> expected = {0, 0, 1, kNoNode, kNoNode};
  EXPECT_EQ(tree.idom, expected);
  EXPECT_EQ(tree.preorder, (std::vector<NodeId>{0, 1, 2}));
}

TEST(Dominators, RootWithoutEdgesDominatesOnlyItself) {
  const Graph g = makeGraph(4, 2, {{0, 1}, {1, 2}, {3, 2}});
  const DominatorTree tree = dominatorsOf(g);
  const std::vector<NodeId> expected = {kNoNode, kNoNode, 2, kNoNode};
  EXPECT_EQ(tree.idom, expected);
  EXPECT_EQ(tree.preorder, std::vector<NodeId>{2});
}

TEST(Dominators, RootOutsideTheGraphReachesNothing) {
  const Graph g = makeGraph(3, 0, {{0, 1}, {1, 2}});
  const DominatorTree tree = computeDominators(g.successors, 3);
  EXPECT_EQ(tree.idom, (std::vector<NodeId>{kNoNode, kNoNode, kNoNode}));
  EXPECT_TRUE(tree.preorder.empty());

  const DominatorTree empty = computeDominators(Csr{}, 0);
  EXPECT_TRUE(empty.idom.empty());
  EXPECT_TRUE(empty.preorder.empty());
}

// Edges are followed in CSR order and the search goes deep before wide:
// from 0, edge 0->1 leads to 3 (via 1->3) before 0->2 is tried.
TEST(Dominators, PreorderIsDepthFirstInEdgeOrder) {
  const Graph g = makeGraph(5, 0, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 1}, {2, 4}});
  EXPECT_EQ(dominatorsOf(g).preorder, (std::vector<NodeId>{0, 1, 3, 2, 4}));
}

// The reference search recurses, which is fine at 200 nodes.
TEST(Dominators, PreorderIsDepthFirstInEdgeOrderOnRandomGraphs) {
  for (uint64_t seed = 1; seed <= 300; seed++) {
    const Graph g = randomGraph(seed % 2 ? Shape::kMedium : Shape::kDeep, seed);
    std::vector<char> seen(g.node_count, 0);
    std::vector<NodeId> expected;
    std::function<void(NodeId)> visit = [&](NodeId n) {
      seen[n] = 1;
      expected.push_back(n);
      for (NodeId t : g.successors.neighbors(n)) {
        if (!seen[t]) visit(t);
      }
    };
    visit(g.root);
    ASSERT_EQ(dominatorsOf(g).preorder, expected) << "seed " << seed;
  }
}

// ---- Large graphs: no recursion, no per-node stack ----

constexpr uint32_t kMillion = 1'000'000;

TEST(Dominators, MillionNodeChainIsItsOwnDominatorTree) {
  std::vector<Edge> edges;
  for (NodeId i = 0; i + 1 < kMillion; i++) edges.emplace_back(i, i + 1);
  const DominatorTree tree = dominatorsOf(makeGraph(kMillion, 0, edges));
  ASSERT_EQ(tree.idom.size(), kMillion);
  ASSERT_EQ(tree.preorder.size(), kMillion);
  EXPECT_EQ(tree.idom[0], 0u);
  for (NodeId i = 1; i < kMillion; i++) ASSERT_EQ(tree.idom[i], i - 1) << i;
  for (NodeId i = 0; i < kMillion; i++) ASSERT_EQ(tree.preorder[i], i) << i;
}

// Back edges from the tail to the middle and to the second node make the
// semidominator search walk, and compress, forest paths half a million and
// then a million long; back edges leave the chain's idoms unchanged.
TEST(Dominators, MillionNodeChainWithLongBackEdgesKeepsChainIdoms) {
  std::vector<Edge> edges;
  for (NodeId i = 0; i + 1 < kMillion; i++) edges.emplace_back(i, i + 1);
  edges.emplace_back(kMillion - 1, kMillion / 2);
  edges.emplace_back(kMillion - 1, 1);
  edges.emplace_back(kMillion - 2, 0);
  const DominatorTree tree = dominatorsOf(makeGraph(kMillion, 0, edges));
  EXPECT_EQ(tree.idom[0], 0u);
  for (NodeId i = 1; i < kMillion; i++) ASSERT_EQ(tree.idom[i], i - 1) << i;
}

// A long list whose tail points at many nodes that the root also points at:
// all of those are dominated by the root alone, however deep the DFS found
// them.
TEST(Dominators, LongListWhoseTailSharesNodesWithRoot) {
  const uint32_t list = kMillion / 2;
  std::vector<Edge> edges;
  for (NodeId i = 0; i < list; i++) edges.emplace_back(i, i + 1);
  for (NodeId shared = list + 1; shared < kMillion; shared++) {
    edges.emplace_back(list, shared);
    edges.emplace_back(0, shared);
  }
  const DominatorTree tree = dominatorsOf(makeGraph(kMillion, 0, edges));
  for (NodeId i = 1; i <= list; i++) ASSERT_EQ(tree.idom[i], i - 1) << i;
  for (NodeId shared = list + 1; shared < kMillion; shared++) {
    ASSERT_EQ(tree.idom[shared], 0u) << shared;
  }
}

TEST(Dominators, MillionNodeStarHasRootAsEveryIdom) {
  std::vector<Edge> edges;
  for (NodeId i = 1; i < kMillion; i++) edges.emplace_back(0, i);
  const DominatorTree tree = dominatorsOf(makeGraph(kMillion, 0, edges));
  ASSERT_EQ(tree.preorder.size(), kMillion);
  for (NodeId i = 0; i < kMillion; i++) ASSERT_EQ(tree.idom[i], 0u) << i;
}

// Two million nodes, eight million random edges. Checked cheaply instead of
// by brute force: the reachable set agrees with a plain search, every node
// comes after its idom in the preorder (so the idoms form a tree), and the
// parent property holds: for every edge u->v, idom(v) is an ancestor of u in
// the tree, which proves every claimed dominator is a real one.
TEST(Dominators, TwoMillionNodeRandomGraphPassesTreeAndParentChecks) {
  constexpr uint32_t kNodes = 2'000'000;
  constexpr uint32_t kEdges = 8'000'000;
  std::mt19937_64 rng(2024);
  std::vector<Edge> edges;
  edges.reserve(kEdges);
  for (uint32_t i = 0; i < kEdges; i++) {
    edges.emplace_back(static_cast<NodeId>(rng() % kNodes), static_cast<NodeId>(rng() % kNodes));
  }
  const Graph g = makeGraph(kNodes, 0, edges);
  edges = {};
  const DominatorTree tree = dominatorsOf(g);

  const std::vector<char> reach = reachableWithout(g.successors, g.root, kNoNode);
  ASSERT_FALSE(tree.preorder.empty());
  ASSERT_EQ(tree.preorder[0], g.root);
  ASSERT_EQ(tree.idom[g.root], g.root);
  std::vector<uint32_t> position(kNodes, kNoNode);
  for (uint32_t i = 0; i < tree.preorder.size(); i++) {
    ASSERT_EQ(position[tree.preorder[i]], kNoNode) << "listed twice: " << tree.preorder[i];
    position[tree.preorder[i]] = i;
  }
  for (NodeId v = 0; v < kNodes; v++) {
    ASSERT_EQ(reach[v] != 0, tree.idom[v] != kNoNode) << v;
    ASSERT_EQ(reach[v] != 0, position[v] != kNoNode) << v;
    if (reach[v] && v != g.root) {
      ASSERT_LT(position[tree.idom[v]], position[v]) << v;
    }
  }

  // Entry and exit times of a walk of the tree, for ancestor tests.
  std::vector<Edge> tree_edges;
  for (NodeId v = 0; v < kNodes; v++) {
    if (reach[v] && v != g.root) tree_edges.emplace_back(tree.idom[v], v);
  }
  const Csr kids = csrFromEdges(kNodes, tree_edges);
  tree_edges = {};
  std::vector<uint32_t> enter(kNodes, 0);
  std::vector<uint32_t> leave(kNodes, 0);
  uint32_t clock = 0;
  std::vector<std::pair<NodeId, size_t>> stack = {{g.root, 0}};
  enter[g.root] = clock++;
  while (!stack.empty()) {
    auto& [node, next_kid] = stack.back();
    if (next_kid < kids.neighbors(node).size()) {
      const NodeId kid = kids.neighbors(node)[next_kid++];
      enter[kid] = clock++;
      stack.emplace_back(kid, 0);
    } else {
      leave[node] = clock++;
      stack.pop_back();
    }
  }
  auto is_ancestor_or_self = [&](NodeId a, NodeId d) {
    return enter[a] <= enter[d] && leave[d] <= leave[a];
  };
  for (NodeId u = 0; u < kNodes; u++) {
    if (!reach[u]) continue;
    for (NodeId v : g.successors.neighbors(u)) {
      if (v == g.root) continue;
      ASSERT_TRUE(is_ancestor_or_self(tree.idom[v], u)) << u << "->" << v;
    }
  }
}

// ---- Retained sizes ----

TEST(DominatorRetainedSizes, MatchBruteForceOnRandomGraphs) {
  const Shape shapes[] = {Shape::kSparse, Shape::kMedium,           Shape::kDense,
                          Shape::kDeep,   Shape::kRootWithoutEdges, Shape::kLoopsAndDuplicates};
  for (uint64_t seed = 1; seed <= 600; seed++) {
    const Graph g = randomGraph(shapes[seed % 6], seed);
    const std::vector<uint64_t> sizes = randomSizes(g.node_count, seed);
    const std::vector<uint64_t> retained = computeRetainedSizes(dominatorsOf(g), sizes).values();
    ASSERT_EQ(retained, bruteRetained(g, sizes)) << "seed " << seed;
  }
}

// 0 -> 1 -> 2, 0 -> 3 -> 2: node 2 is shared, so only the root retains it.
TEST(DominatorRetainedSizes, SharedNodeIsRetainedOnlyByCommonDominator) {
  const Graph g = makeGraph(4, 0, {{0, 1}, {1, 2}, {0, 3}, {3, 2}});
  const std::vector<uint64_t> sizes = {1, 10, 100, 1000};
  const std::vector<uint64_t> expected = {1111, 10, 100, 1000};
  EXPECT_EQ(computeRetainedSizes(dominatorsOf(g), sizes).values(), expected);
}

TEST(DominatorRetainedSizes, NodesBeyondShallowSizesCountZero) {
  // Nodes 2 and 3 are root nodes past the end of the size array.
  const Graph g = makeGraph(4, 3, {{3, 2}, {2, 0}, {2, 1}});
  const std::vector<uint64_t> sizes = {5, 7};
  const std::vector<uint64_t> expected = {5, 7, 12, 12};
  EXPECT_EQ(computeRetainedSizes(dominatorsOf(g), sizes).values(), expected);
}

TEST(DominatorRetainedSizes, UnreachableNodesRetainNothing) {
  const Graph g = makeGraph(4, 0, {{0, 1}, {2, 1}, {2, 3}});
  const std::vector<uint64_t> sizes = {1, 2, 4, 8};
  const std::vector<uint64_t> expected = {3, 2, 0, 0};
  EXPECT_EQ(computeRetainedSizes(dominatorsOf(g), sizes).values(), expected);
}

TEST(DominatorRetainedSizes, MillionNodeChainRetainsItsTail) {
  std::vector<Edge> edges;
  for (NodeId i = 0; i + 1 < kMillion; i++) edges.emplace_back(i, i + 1);
  const DominatorTree tree = dominatorsOf(makeGraph(kMillion, 0, edges));
  const std::vector<uint64_t> sizes(kMillion, 3);
  const std::vector<uint64_t> retained = computeRetainedSizes(tree, sizes).values();
  for (NodeId i = 0; i < kMillion; i++) ASSERT_EQ(retained[i], 3 * uint64_t{kMillion - i}) << i;
}

// ---- Children ----

std::vector<NodeId> childrenOf(const Csr& children, NodeId n) {
  const auto kids = children.neighbors(n);
  return {kids.begin(), kids.end()};
}

TEST(DominatorChildren, SortedByRetainedDescendingThenIdAscending) {
  const Graph g = makeGraph(6, 0, {{0, 5}, {0, 4}, {0, 3}, {0, 2}, {0, 1}});
  const DominatorTree tree = dominatorsOf(g);
  const std::vector<uint64_t> retained = {100, 5, 10, 5, 10, 7};
  const Csr children = dominatorChildren(tree, retained);
  EXPECT_EQ(childrenOf(children, 0), (std::vector<NodeId>{2, 4, 5, 1, 3}));
}

TEST(DominatorChildren, RootIsNotItsOwnChildAndUnreachableNodesHaveNoPlace) {
  // 3 is unreachable and points at 2.
  const Graph g = makeGraph(4, 1, {{1, 0}, {0, 2}, {3, 2}, {1, 1}});
  const DominatorTree tree = dominatorsOf(g);
  const std::vector<uint64_t> retained =
      computeRetainedSizes(tree, std::vector<uint64_t>{1, 1, 1, 1}).values();
  const Csr children = dominatorChildren(tree, retained);
  ASSERT_EQ(children.nodeCount(), 4u);
  EXPECT_EQ(childrenOf(children, 1), std::vector<NodeId>{0});
  EXPECT_EQ(childrenOf(children, 0), std::vector<NodeId>{2});
  EXPECT_TRUE(childrenOf(children, 2).empty());
  EXPECT_TRUE(childrenOf(children, 3).empty());
  EXPECT_EQ(children.edgeCount(), 2u);
}

TEST(DominatorChildren, NodesWithoutRetainedSizeSortAsZero) {
  const Graph g = makeGraph(4, 0, {{0, 3}, {0, 2}, {0, 1}});
  const std::vector<uint64_t> retained = {9, 0, 4};  // node 3 has none
  const Csr children = dominatorChildren(dominatorsOf(g), retained);
  EXPECT_EQ(childrenOf(children, 0), (std::vector<NodeId>{2, 1, 3}));
}

TEST(DominatorChildren, ListEachNodeUnderItsIdomOnRandomGraphs) {
  for (uint64_t seed = 1; seed <= 100; seed++) {
    const Graph g = randomGraph(Shape::kMedium, seed);
    const DominatorTree tree = dominatorsOf(g);
    const std::vector<uint64_t> retained =
        computeRetainedSizes(tree, randomSizes(g.node_count, seed)).values();
    const Csr children = dominatorChildren(tree, retained);
    ASSERT_EQ(children.nodeCount(), g.node_count);
    size_t listed = 0;
    for (NodeId p = 0; p < g.node_count; p++) {
      const auto kids = children.neighbors(p);
      for (size_t i = 0; i < kids.size(); i++) {
        ASSERT_EQ(tree.idom[kids[i]], p) << "seed " << seed;
        ASSERT_NE(kids[i], p) << "seed " << seed;
        if (i > 0) {
          const bool ordered =
              retained[kids[i - 1]] > retained[kids[i]] ||
              (retained[kids[i - 1]] == retained[kids[i]] && kids[i - 1] < kids[i]);
          ASSERT_TRUE(ordered) << "seed " << seed << " parent " << p;
        }
      }
      listed += kids.size();
    }
    ASSERT_EQ(listed, tree.preorder.size() - 1) << "seed " << seed;
  }
}

// The rows are sorted by ranges of parents, one a thread, and the long ones
// (here the root's 200,000 children, many with the same retained size) on
// every thread: each row must come out as a plain sort of the idom
// relation by the rule, on any number of threads.
TEST(DominatorChildren, TheSameOnAnyNumberOfThreads) {
  constexpr uint32_t kNodes = 400'000;
  std::vector<Edge> edges;
  for (NodeId i = 1; i < kNodes / 2; i++) edges.emplace_back(0, i);
  for (NodeId i = kNodes / 2; i < kNodes; i++) edges.emplace_back((i * 7919) % (kNodes / 2), i);
  const Graph g = makeGraph(kNodes, 0, edges);
  const DominatorTree tree = dominatorsOf(g);
  std::vector<uint64_t> sizes = randomSizes(kNodes, 7);
  for (uint64_t& size : sizes) size %= 64;  // ties
  const std::vector<uint64_t> retained = computeRetainedSizes(tree, sizes).values();
  // The oracle: each node's children gathered from idom and sorted whole.
  std::vector<std::vector<NodeId>> expected(kNodes);
  for (NodeId c = 0; c < kNodes; c++) {
    if (tree.idom[c] != kNoNode && tree.idom[c] != c) expected[tree.idom[c]].push_back(c);
  }
  for (std::vector<NodeId>& row : expected) {
    std::sort(row.begin(), row.end(), [&](NodeId a, NodeId b) {
      return retained[a] != retained[b] ? retained[a] > retained[b] : a < b;
    });
  }
  ASSERT_GE(expected[0].size(), kNodes / 2 - 1);  // a long row
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    SCOPED_TRACE(threads);
    const Csr children = dominatorChildren(tree, retained, threads);
    ASSERT_EQ(children.nodeCount(), kNodes);
    for (NodeId p = 0; p < kNodes; p++) ASSERT_EQ(childrenOf(children, p), expected[p]) << p;
  }
}

}  // namespace
}  // namespace goheap::analysis
