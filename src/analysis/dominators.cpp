#include "analysis/dominators.h"

#include <algorithm>
#include <cassert>

#include "util/large_vector.h"
#include "util/parallel.h"

// Lengauer and Tarjan, "A fast algorithm for finding dominators in a
// flowgraph" (1979), with simple path compression: O(m log n), no recursion.
// Semi-NCA was the other candidate; it needs no less memory, and its second
// pass is quadratic on shapes a heap can have (a long singly-owned list whose
// nodes each point at an object that a root also reaches), so it is not used.
//
// Inside the computation every reachable node is named by its preorder number
// (0 = root), so that "proper ancestor in the DFS tree" implies "smaller
// number" and every array is dense. The predecessor lists are built in that
// numbering too, from the reachable nodes' successors: the main pass then
// reads no node-indexed array at all, and the graph need not keep
// predecessors of its own.

namespace goheap::analysis {
namespace {

// Swapping with an empty vector is the only way the standard guarantees that
// the memory goes back before the next allocation.
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// One vertex of Lengauer-Tarjan's link-eval forest. The three fields are read
// together at every step of a path walk, so they sit together: one cache miss
// per step instead of three.
//
// Before the vertex is processed: ancestor is its DFS parent, label its DFS
// edge cursor (during the search), and label_semi its node id (during the
// search) and then the head of its bucket (the vertices whose semidominator
// it is). Once processed, it is linked to its
// parent, and label is a vertex of minimum semidominator, label_semi, on the
// DFS tree path from the vertex up to ancestor, that end excluded.
struct ForestVertex {
  uint32_t ancestor;
  uint32_t label;
  uint32_t label_semi;
};

struct Labelled {
  uint32_t vertex;
  uint32_t semi;
};

// On a large graph nearly every node-indexed access is a cache miss; asking
// for the memory before it is needed lets the misses overlap.
inline void prefetch(const void* address) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(address);
#else
  (void)address;
#endif
}

// Depth-first search from the root. Fills number (node -> preorder number,
// kNoNode if unreachable) and the forest's parents, cursors and node ids, and
// returns the number of vertices reached. The DFS stack is the parent chain
// from the current vertex, so the search needs no memory of its own; and the
// reached count is only known at the end, so the preorder is kept in the
// forest until then rather than in a vector of guessed size.
uint32_t depthFirstSearch(const Csr& successors, NodeId root, std::span<uint32_t> number,
                          std::vector<ForestVertex>& forest) {
  number[root] = 0;
  forest[0] = {0, successors.begin[root], root};
  uint32_t reached = 1;
  uint32_t current = 0;
  for (;;) {
    uint32_t& edge = forest[current].label;
    const uint32_t end = successors.begin[forest[current].label_semi + 1];
    while (edge < end && number[successors.targets[edge]] != kNoNode) edge++;
    if (edge == end) {
      if (current == 0) return reached;
      current = forest[current].ancestor;
      continue;
    }
    const NodeId child = successors.targets[edge++];
    const uint32_t child_number = reached++;
    number[child] = child_number;
    forest[child_number] = {current, successors.begin[child], child};
    // The child's edges are about to be tested one by one, each test waiting
    // on a miss unless the targets were requested together here.
    for (NodeId t : successors.neighbors(child)) {
      prefetch(&number[t]);
      prefetch(&successors.begin[t]);
    }
    current = child_number;
  }
}

// The predecessors of the reached vertices, by preorder number: one array of
// sources, the lists in increasing vertex order, without offsets; `last`
// marks each list's final element. Every vertex but the root has one (its
// DFS parent), so the pass that visits vertices in decreasing order can walk
// the lists from the end in step with it. Leaving out the 4-byte offset per
// vertex is what lets this fit where the node -> number map was.
//
// The sources array has one slot more than there are edges, and the main
// pass keeps the vertices' idoms in its end (idomSlot), where the lists it
// has already read were. A separate idom array (and, while the lists were
// built, one of fill cursors) cost 4 bytes a vertex at the computation's
// peak: 12 MiB of the record-shaped benchmark dump's peak.
struct PredecessorLists {
  std::vector<uint32_t> sources;  // edges() sources, then one spare slot
  std::vector<bool> last;

  size_t edges() const { return sources.size() - 1; }
  // Where the list that ends just before `end` starts.
  size_t startOfListEndingAt(size_t end) const {
    size_t start = end - 1;
    while (start > 0 && !last[start - 1]) start--;
    return start;
  }
  // The slot that holds vertex v's idom, once the lists of v and of every
  // vertex above it have been read, of `reached` vertices: the last
  // reached - v slots of `sources`. These lists hold at least reached - v - 1
  // edges (each vertex's DFS parent), so with the spare slot they are free.
  uint32_t& idomSlot(uint32_t v, uint32_t reached) { return sources[sources.size() - reached + v]; }
};

// The reached vertices' predecessor lists, from the successors of the
// reached nodes; forest[x].label_semi is node x's preorder number or
// kNoNode. Edges from unreachable nodes and self edges are left out: the
// semidominator pass would skip them. Nodes are read in id order, so that
// the successor lists and the sources' numbers are read sequentially and
// only each edge's target number is a random access.
//
// The reached vertices' label fields are free between the search and the
// main pass, so they serve as the lists' fill cursors rather than an array
// of their own.
PredecessorLists predecessorLists(const Csr& successors, uint32_t reached,
                                  std::vector<ForestVertex>& forest) {
  const uint32_t node_count = successors.nodeCount();
  auto for_each_edge = [&](auto&& fn) {
    for (NodeId x = 0; x < node_count; x++) {
      const uint32_t u = forest[x].label_semi;
      if (u == kNoNode) continue;
      for (NodeId t : successors.neighbors(x)) {
        const uint32_t v = forest[t].label_semi;
        if (v != kNoNode && v != u) fn(u, v);
      }
    }
  };
  // forest[v].label: first v's predecessor count, then where its next source
  // goes, and at the end the list's end.
  for (uint32_t v = 0; v < reached; v++) forest[v].label = 0;
  for_each_edge([&](uint32_t, uint32_t v) { forest[v].label++; });
  uint32_t edges = 0;
  for (uint32_t v = 0; v < reached; v++) {
    const uint32_t count = forest[v].label;
    forest[v].label = edges;
    edges += count;
  }
  PredecessorLists lists;
  resizeLarge(lists.sources, static_cast<size_t>(edges) + 1);
  for_each_edge([&](uint32_t u, uint32_t v) { lists.sources[forest[v].label++] = u; });
  lists.last.assign(lists.sources.size(), false);
  for (uint32_t v = 0; v < reached; v++) {
    const uint32_t list_start = v == 0 ? 0 : forest[v - 1].label;
    if (forest[v].label > list_start) lists.last[forest[v].label - 1] = true;
  }
  return lists;
}

// Processing runs in decreasing preorder and links each vertex to its parent
// right after, so "linked" is simply "numbered above the vertex being
// processed" and needs no flag.
//
// Returns a vertex of minimum semidominator on the path from the linked vertex
// v up to its first ancestor numbered <= last_unlinked, that ancestor
// excluded, and points every vertex on the path straight at that ancestor.
// The path can be millions long, so instead of a stack the ancestor links are
// reversed on the way up and restored, compressed, on the way down.
Labelled eval(std::vector<ForestVertex>& forest, uint32_t v, uint32_t last_unlinked) {
  uint32_t below = kNoNode;
  uint32_t x = v;
  while (forest[x].ancestor > last_unlinked) {
    const uint32_t above = forest[x].ancestor;
    forest[x].ancestor = below;
    below = x;
    x = above;
  }
  const uint32_t top = forest[x].ancestor;
  Labelled best{forest[x].label, forest[x].label_semi};
  while (below != kNoNode) {
    ForestVertex& f = forest[below];
    below = f.ancestor;
    if (best.semi < f.label_semi) {
      f.label = best.vertex;
      f.label_semi = best.semi;
    } else {
      best = {f.label, f.label_semi};
    }
    f.ancestor = top;
  }
  return best;
}

}  // namespace

DominatorTree computeDominators(const Csr& successors, NodeId root) {
  const uint32_t node_count = successors.nodeCount();
  DominatorTree tree;
  assignLarge(tree.idom, node_count, kNoNode);
  if (root >= node_count) return tree;

  // The output array doubles as node -> preorder number during the search,
  // which saves a node-indexed temporary.
  const std::span<uint32_t> number(tree.idom.data(), tree.idom.size());
  // The reachable count is unknown until the search ends. Cutting the forest
  // down to it afterwards would need old and new copies at once, more than
  // the unused tail costs, so it keeps the node count.
  std::vector<ForestVertex> forest;
  resizeLarge(forest, node_count);
  const uint32_t reached = depthFirstSearch(successors, root, number, forest);
  resizeLarge(tree.preorder, reached);
  for (uint32_t w = 0; w < reached; w++) tree.preorder[w] = forest[w].label_semi;
  // Each forest entry's label_semi is free until the pass below, and the
  // forest has an entry per node: it holds the node -> number map while the
  // predecessor lists are built, so that the output array can go first.
  for (NodeId x = 0; x < node_count; x++) forest[x].label_semi = number[x];
  tree.idom = Column<NodeId>();  // allocated again at the end, after the forest is gone
  PredecessorLists predecessors = predecessorLists(successors, reached, forest);
  for (uint32_t w = 0; w < reached; w++) forest[w].label_semi = kNoNode;  // empty buckets
  // idom(v) is v's link in its bucket until v leaves it, so buckets cost no
  // memory of their own. deferred[v]: idom(v) holds a vertex whose idom is
  // v's idom, to be resolved in the final pass. It is first written once v's
  // predecessors have been read.
  auto idom = [&](uint32_t v) -> uint32_t& { return predecessors.idomSlot(v, reached); };
  std::vector<bool> deferred(reached, false);

  // Once everything numbered above s is linked, eval(v) for v in bucket(s)
  // covers exactly the path from s (excluded) down to v. If a vertex u on it
  // has a smaller semidominator than v's, v has the same idom as u;
  // otherwise s is v's idom.
  auto empty_bucket = [&](uint32_t s) {
    for (uint32_t v = forest[s].label_semi; v != kNoNode;) {
      const uint32_t next_in_bucket = idom(v);
      const Labelled u = eval(forest, v, s);
      if (u.semi < s) {
        idom(v) = u.vertex;
        deferred[v] = true;
      } else {
        idom(v) = s;
      }
      v = next_in_bucket;
    }
  };

  // w's predecessors end at list_end; those of w - kAhead at ahead_end,
  // whose forest entries are requested early: each is a likely cache miss.
  constexpr uint32_t kAhead = 4;
  size_t list_end = predecessors.edges();
  size_t ahead_end = list_end;
  for (uint32_t w = reached - 1; w > 0 && w + kAhead > reached - 1; w--) {
    ahead_end = predecessors.startOfListEndingAt(ahead_end);
  }
  for (uint32_t w = reached - 1; w > 0; w--) {
    empty_bucket(w);
    if (w > kAhead) {
      const size_t ahead_start = predecessors.startOfListEndingAt(ahead_end);
      for (size_t i = ahead_start; i < ahead_end; i++) {
        prefetch(&forest[predecessors.sources[i]]);
      }
      ahead_end = ahead_start;
    }
    // The tree edge makes the parent a candidate (and is among the
    // predecessors anyway).
    uint32_t semi = forest[w].ancestor;
    const size_t list_start = predecessors.startOfListEndingAt(list_end);
    for (size_t i = list_start; i < list_end; i++) {
      const uint32_t v = predecessors.sources[i];
      semi = std::min(semi, v < w ? v : eval(forest, v, w).semi);
    }
    list_end = list_start;
    idom(w) = forest[semi].label_semi;
    forest[semi].label_semi = w;
    forest[w].label = w;
    forest[w].label_semi = semi;
  }
  empty_bucket(0);
  idom(0) = 0;
  release(forest);
  release(predecessors.last);

  // Preorder guarantees idom(idom(w)) is final before w is visited.
  for (uint32_t w = 1; w < reached; w++) {
    if (deferred[w]) idom(w) = idom(idom(w));
  }
  release(deferred);

  // Back from preorder numbers to node ids.
  assignLarge(tree.idom, node_count, kNoNode);
  for (uint32_t w = 0; w < reached; w++) tree.idom[tree.preorder[w]] = tree.preorder[idom(w)];
  release(predecessors.sources);
  return tree;
}

PackedColumn computeRetainedSizes(const DominatorTree& tree, PackedView shallow_sizes) {
  std::vector<uint64_t> retained;
  assignLarge(retained, tree.idom.size(), uint64_t{0});
  for (NodeId n : tree.preorder) {
    if (n < shallow_sizes.size()) retained[n] = shallow_sizes[n];
  }
  // Reverse preorder visits every node after all the nodes it dominates, so
  // its total is complete when it is handed to its idom.
  for (size_t i = tree.preorder.size(); i-- > 1;) {
    const NodeId n = tree.preorder[i];
    retained[tree.idom[n]] += retained[n];
  }
  PackedColumn packed(std::move(retained));
  packed.pack();
  return packed;
}

Csr dominatorChildren(const DominatorTree& tree, PackedView retained, unsigned threads) {
  const auto node_count = static_cast<uint32_t>(tree.idom.size());
  Csr children;
  assignLarge(children.begin, static_cast<size_t>(node_count) + 1, 0u);
  for (NodeId c = 0; c < node_count; c++) {
    const NodeId p = tree.idom[c];
    if (p != kNoNode && p != c) children.begin[p]++;
  }
  // begin[p] is first made the end of p's range; filling each range from its
  // end leaves begin[p] at its start, with no separate fill cursor.
  uint32_t total = 0;
  for (NodeId p = 0; p < node_count; p++) {
    total += children.begin[p];
    children.begin[p] = total;
  }
  children.begin[node_count] = total;
  resizeLarge(children.targets, total);
  for (NodeId c = node_count; c-- > 0;) {
    const NodeId p = tree.idom[c];
    if (p != kNoNode && p != c) children.targets[--children.begin[p]] = c;
  }

  // Ties go to the smaller id, so the order is total and the same on any
  // number of threads. The rows are sorted by ranges of parents, one a
  // thread, but a row of many children (the super-root's, a big map's)
  // would hold up its range: those are sorted after, each on every thread.
  auto retained_of = [&](NodeId n) -> uint64_t { return n < retained.size() ? retained[n] : 0; };
  auto more_retained = [&](NodeId a, NodeId b) {
    const uint64_t ra = retained_of(a);
    const uint64_t rb = retained_of(b);
    return ra != rb ? ra > rb : a < b;
  };
  constexpr uint32_t kLongRow = 1 << 16;
  auto row = [&](NodeId p) {
    return std::pair(children.targets.begin() + children.begin[p],
                     children.targets.begin() + children.begin[p + 1]);
  };
  std::vector<std::vector<NodeId>> long_rows(std::max(1u, threads));
  forEachRange(node_count, std::max(1u, threads), [&](unsigned part, size_t first, size_t last) {
    for (auto p = static_cast<NodeId>(first); p < last; p++) {
      auto [begin, end] = row(p);
      if (end - begin < 2) continue;
      if (end - begin >= kLongRow) {
        long_rows[part].push_back(p);
      } else {
        // std::sort rather than stable_sort: the latter allocates a buffer per call.
        std::sort(begin, end, more_retained);
      }
    }
  });
  for (const std::vector<NodeId>& rows : long_rows) {
    for (NodeId p : rows) {
      auto [begin, end] = row(p);
      sortOnThreads(begin, end, more_retained, threads);
    }
  }
  return children;
}

}  // namespace goheap::analysis
