// Dominator tree and retained sizes of the object graph.
//
// A node d dominates v when every path from the root to v passes through d;
// freeing d would free v, which is why the retained size of d counts v. The
// dominators are computed with Lengauer-Tarjan (simple path compression),
// without recursion, so that graphs with tens of millions of nodes and
// arbitrarily long chains fit in memory and never overflow the stack.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/csr.h"
#include "util/column.h"
#include "util/packed_column.h"

namespace goheap::analysis {

struct DominatorTree {
  // Size = node count. idom[root] == root; kNoNode for nodes not reachable
  // from the root.
  Column<NodeId> idom;
  // The nodes reachable from the root in depth-first preorder, root first.
  // Successors are followed in CSR order, so the order is deterministic.
  // Every node comes after its immediate dominator.
  Column<NodeId> preorder;
};

// A root outside the graph reaches nothing: every idom is kNoNode and the
// preorder is empty.
//
// Memory: besides the outputs (4 bytes per node and 4 per reachable node),
// the temporaries at their peak take 12 bytes per node, 4 1/8 per reachable
// node and 4 1/8 per edge between reachable nodes (their predecessor
// lists), all freed before returning. The node-indexed output is allocated
// last, once the 12 bytes per node are gone. Nothing recurses.
DominatorTree computeDominators(const Csr& successors, NodeId root);

// Retained size of every node: its own size plus the sizes of all nodes it
// dominates. shallow_sizes[n] is node n's size for n < shallow_sizes.size();
// nodes beyond that (root nodes) count 0. Unreachable nodes get 0. Packed
// (util/packed_column.h): 4 bytes a node below 32 GiB of heap.
PackedColumn computeRetainedSizes(const DominatorTree& tree, PackedView shallow_sizes);

// The dominator tree's children as CSR (node count = idom.size()); each
// node's children sorted by retained size descending, ties by id ascending.
// The root is not its own child; unreachable nodes have no parent and no
// children. Nodes beyond retained.size() sort as if they retained 0. The
// rows are sorted on up to `threads` threads, with the same result.
Csr dominatorChildren(const DominatorTree& tree, PackedView retained, unsigned threads = 1);

}  // namespace goheap::analysis
