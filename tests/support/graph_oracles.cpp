#include "support/graph_oracles.h"

namespace goheap::testing {

std::vector<char> reachableWithout(const Csr& g, NodeId root, NodeId removed) {
  std::vector<char> seen(g.nodeCount(), 0);
  if (root == removed || root >= g.nodeCount()) return seen;
  std::vector<NodeId> todo = {root};
  seen[root] = 1;
  while (!todo.empty()) {
    const NodeId n = todo.back();
    todo.pop_back();
    for (NodeId t : g.neighbors(n)) {
      if (t == removed || seen[t]) continue;
      seen[t] = 1;
      todo.push_back(t);
    }
  }
  return seen;
}

}  // namespace goheap::testing
