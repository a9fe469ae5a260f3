// Depth-first walk of a tree stored as a Csr of children (the dominator
// tree's, in practice), with an explicit stack: a heap's dominator tree can
// be as deep as its longest linked list, too deep for recursion.
#pragma once

#include <utility>
#include <vector>

#include "graph/csr.h"

namespace goheap {

// Walks the tree below `root`. Each node under it is entered once, after its
// parent: `enter(child, parent, parent_state)` returns the child's state.
// Each node, `root` included, is left once its whole subtree has been:
// `leave(node, node_state)`. Children are taken in their Csr order.
template <class State, class Enter, class Leave>
void walkTreeDepthFirst(const Csr& children, NodeId root, State root_state, Enter&& enter,
                        Leave&& leave) {
  struct Frame {
    NodeId node;
    uint32_t next;  // the next child's index in children.targets
    State state;
  };
  std::vector<Frame> stack;
  stack.push_back({root, children.begin[root], std::move(root_state)});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == children.begin[top.node + 1]) {
      leave(top.node, top.state);
      stack.pop_back();
      continue;
    }
    const NodeId child = children.targets[top.next++];
    State state = enter(child, top.node, top.state);
    stack.push_back({child, children.begin[child], std::move(state)});
  }
}

// The same for a walk that keeps no state per node: `enter(child)` and
// `leave(node)`.
template <class Enter, class Leave>
void walkTreeDepthFirst(const Csr& children, NodeId root, Enter&& enter, Leave&& leave) {
  struct NoState {};
  walkTreeDepthFirst(
      children, root, NoState{},
      [&](NodeId child, NodeId, const NoState&) {
        enter(child);
        return NoState{};
      },
      [&](NodeId node, const NoState&) { leave(node); });
}

}  // namespace goheap
