// The leak suspects core on small random dominator trees (a parent array and
// sizes), against brute force straight from the definitions: retained sizes
// by summing over descendants, a group's bytes under a node by walking every
// node's ancestors, the accumulation points by looking at every node.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "analysis/dominators.h"
#include "analysis/suspects.h"

namespace goheap {
namespace {

using analysis::kNoGroup;

// Nodes [0, objects) are objects, then `roots` roots, then the super-root.
struct Tree {
  size_t objects = 0;
  std::vector<NodeId> parent;  // the super-root's is itself
  std::vector<uint64_t> size;  // objects only
  std::vector<uint32_t> group_of;
  NodeId root = 0;

  bool isAncestorOrSelf(NodeId a, NodeId v) const {
    for (;; v = parent[v]) {
      if (v == a) return true;
      if (v == root) return false;
    }
  }
  uint32_t depth(NodeId v) const {
    uint32_t d = 0;
    for (; v != root; v = parent[v]) d++;
    return d;
  }
  uint64_t shallow(NodeId v) const { return v < objects ? size[v] : 0; }
};

Tree randomTree(std::mt19937_64& rng) {
  Tree t;
  t.objects = 1 + rng() % 40;
  const size_t roots = 1 + rng() % 3;
  const size_t n = t.objects + roots + 1;
  t.root = static_cast<NodeId>(n - 1);
  t.parent.assign(n, t.root);
  const uint32_t groups = 1 + static_cast<uint32_t>(rng() % 4);
  for (size_t o = 0; o < t.objects; o++) {
    // A root, or an earlier object; chains, fans and mixes.
    const uint64_t pick = rng() % (roots + o);
    t.parent[o] =
        pick < roots ? static_cast<NodeId>(t.objects + pick) : static_cast<NodeId>(pick - roots);
    // Mostly small objects, now and then a big one.
    t.size.push_back(rng() % 8 == 0 ? 500 + rng() % 2000 : 1 + rng() % 100);
    t.group_of.push_back(rng() % 10 == 0 ? kNoGroup : static_cast<uint32_t>(rng() % groups));
  }
  return t;
}

// The core's inputs, built the way Snapshot builds them.
struct Built {
  analysis::DominatorTree dom;
  std::vector<uint64_t> retained;
  Csr children;
  analysis::DomArrays arrays() const {
    return {dom.idom, dom.preorder, &children, retained, static_cast<NodeId>(dom.idom.size() - 1)};
  }
};

Built build(const Tree& t) {
  Built b;
  b.dom.idom = t.parent;
  // Preorder by an explicit depth-first walk.
  std::vector<std::vector<NodeId>> kids(t.parent.size());
  for (NodeId v = 0; v < t.parent.size(); v++) {
    if (v != t.root) kids[t.parent[v]].push_back(v);
  }
  std::vector<NodeId> stack{t.root};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    b.dom.preorder.push_back(v);
    for (NodeId k : kids[v]) stack.push_back(k);
  }
  // Retained by brute force: every node's size goes to each ancestor.
  b.retained.assign(t.parent.size(), 0);
  for (NodeId v = 0; v < t.parent.size(); v++) {
    for (NodeId a = 0; a < t.parent.size(); a++) {
      if (t.isAncestorOrSelf(a, v)) b.retained[a] += t.shallow(v);
    }
  }
  b.children = analysis::dominatorChildren(b.dom, b.retained);
  return b;
}

bool holds(uint64_t part, uint64_t whole, uint32_t percent) {
  return part * 100 >= whole * percent;
}

// Object rule: step to the child retaining the most (the smallest id among
// equals) while it keeps `percent` of its parent.
NodeId oracleObjectPoint(const Tree& t, const std::vector<uint64_t>& retained, NodeId s,
                         uint32_t percent) {
  for (;;) {
    NodeId best = kNoNode;
    for (NodeId v = 0; v < t.parent.size(); v++) {
      if (v == t.root || t.parent[v] != s) continue;
      if (best == kNoNode || retained[v] > retained[best]) best = v;
    }
    if (best == kNoNode || !holds(retained[best], retained[s], percent)) return s;
    s = best;
  }
}

bool memberAtOrAbove(const Tree& t, NodeId v, uint32_t g) {
  for (;; v = t.parent[v]) {
    if (v < t.objects && t.group_of[v] == g) return true;
    if (v == t.root) return false;
  }
}

// The group's bytes under x: nodes below x with a member at or above them.
uint64_t oracleGroupBytes(const Tree& t, NodeId x, uint32_t g) {
  uint64_t sum = 0;
  for (NodeId v = 0; v < t.objects; v++) {
    if (t.isAncestorOrSelf(x, v) && memberAtOrAbove(t, v, g)) sum += t.size[v];
  }
  return sum;
}

TEST(SuspectsCore, HoldsPercentIsExact) {
  EXPECT_TRUE(analysis::holdsPercent(80, 100, 80));
  EXPECT_FALSE(analysis::holdsPercent(79, 100, 80));
  EXPECT_TRUE(analysis::holdsPercent(UINT64_MAX, UINT64_MAX, 80));
  EXPECT_FALSE(analysis::holdsPercent(UINT64_MAX / 2, UINT64_MAX, 80));
}

TEST(SuspectsCore, AccumulationPointsMatchBruteForceOnRandomTrees) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 400; round++) {
    SCOPED_TRACE(round);
    const Tree t = randomTree(rng);
    const Built b = build(t);
    const analysis::DomArrays a = b.arrays();
    const uint32_t percent = round % 3 == 0 ? 60 : analysis::kAccumulationPercent;
    for (NodeId o = 0; o < t.objects; o++) {
      EXPECT_EQ(analysis::objectAccumulationPoint(a, o, percent),
                oracleObjectPoint(t, b.retained, o, percent))
          << "from " << o;
    }
    std::vector<uint64_t> scratch;
    for (uint32_t g = 0; g < 4; g++) {
      const uint64_t total = oracleGroupBytes(t, t.root, g);
      const analysis::GroupPoint p =
          analysis::groupAccumulationPoint(a, t.group_of, g, percent, scratch);
      EXPECT_EQ(p.bytes, oracleGroupBytes(t, p.node, g)) << "group " << g;
      if (total == 0) {
        EXPECT_EQ(p.node, t.root);
        continue;
      }
      // The deepest node holding the share, by looking at every node.
      NodeId deepest = kNoNode;
      for (NodeId x = 0; x < t.parent.size(); x++) {
        if (!holds(oracleGroupBytes(t, x, g), total, percent)) continue;
        if (deepest == kNoNode || t.depth(x) > t.depth(deepest)) deepest = x;
      }
      EXPECT_EQ(p.node, deepest) << "group " << g;
      EXPECT_EQ(p.inside_member, memberAtOrAbove(t, p.node, g));
    }
  }
}

TEST(SuspectsCore, SuspectsMatchTheDefinitionsOnRandomTrees) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 400; round++) {
    SCOPED_TRACE(round);
    const Tree t = randomTree(rng);
    const Built b = build(t);
    const analysis::DomArrays a = b.arrays();
    const uint64_t reachable = b.retained[t.root];
    const uint64_t threshold = std::max<uint64_t>(1, reachable * (5 + rng() % 30) / 100);
    const std::vector<analysis::GroupTotals> totals = analysis::groupTotals(a, t.group_of, 4);

    // Group totals: members, and top members' retained bytes.
    for (uint32_t g = 0; g < 4; g++) {
      uint64_t count = 0, retained = 0, biggest = 0;
      for (NodeId v = 0; v < t.objects; v++) {
        if (t.group_of[v] != g) continue;
        count++;
        biggest = std::max(biggest, b.retained[v]);
        if (v == t.root || !memberAtOrAbove(t, t.parent[v], g)) retained += b.retained[v];
      }
      EXPECT_EQ(totals[g].count, count);
      EXPECT_EQ(totals[g].retained, retained);
      EXPECT_EQ(totals[g].retained, oracleGroupBytes(t, t.root, g));
      EXPECT_EQ(totals[g].biggest_retained, biggest);
    }

    const auto cores = analysis::findSuspectCores(a, t.group_of, totals, threshold,
                                                  analysis::kAccumulationPercent);
    // Single objects: retaining the threshold, no object above them.
    std::set<NodeId> singles, got_singles;
    for (NodeId v = 0; v < t.objects; v++) {
      if (b.retained[v] >= threshold && t.parent[v] >= t.objects) singles.insert(v);
    }
    // Groups: retaining the threshold together, no member alone.
    std::set<uint32_t> groups, got_groups;
    for (uint32_t g = 0; g < 4; g++) {
      bool big_member = false;
      for (NodeId v = 0; v < t.objects; v++) {
        big_member |= t.group_of[v] == g && b.retained[v] >= threshold;
      }
      if (totals[g].retained >= threshold && !big_member) groups.insert(g);
    }
    for (size_t i = 0; i < cores.size(); i++) {
      const analysis::SuspectCore& c = cores[i];
      if (i > 0) {
        EXPECT_GE(cores[i - 1].retained, c.retained);
      }
      if (!c.is_group) {
        got_singles.insert(c.object);
        EXPECT_EQ(c.point.node, oracleObjectPoint(t, b.retained, c.object, 80));
        EXPECT_EQ(c.merged_into, SIZE_MAX);
        continue;
      }
      got_groups.insert(c.group);
      // Merged exactly when its point lies in a single suspect's subtree.
      size_t owner = SIZE_MAX;
      for (size_t j = 0; j < cores.size(); j++) {
        if (!cores[j].is_group && t.isAncestorOrSelf(cores[j].object, c.point.node)) owner = j;
      }
      EXPECT_EQ(c.merged_into, owner) << "group " << c.group;
    }
    EXPECT_EQ(got_singles, singles);
    EXPECT_EQ(got_groups, groups);
  }
}

}  // namespace
}  // namespace goheap
