#include "analysis/paths.h"

#include <deque>

#include "analysis/slots.h"

namespace goheap::analysis {

std::vector<Path> pathsToRoots(const Snapshot& s, NodeId target, size_t limit) {
  const graph::Heap& h = s.heap;
  const NodeId super = h.superRoot();
  // Breadth-first over referrers from the target; `toward[n]` is the next
  // node on n's shortest path to the target. A path ends at a root the
  // super-root points at directly.
  std::vector<NodeId> toward(h.nodeCount(), kNoNode);
  std::deque<NodeId> queue{target};
  toward[target] = target;
  std::vector<NodeId> ends;
  while (!queue.empty() && ends.size() < limit) {
    NodeId n = queue.front();
    queue.pop_front();
    bool top_level_root = false;
    for (NodeId p : h.predecessors().neighbors(n)) {
      if (p == super) {
        top_level_root = true;
        continue;
      }
      if (toward[p] != kNoNode) continue;
      toward[p] = n;
      queue.push_back(p);
    }
    if (top_level_root) ends.push_back(n);
  }
  std::vector<Path> paths;
  for (NodeId end : ends) {
    Path path;
    for (NodeId n = end;; n = toward[n]) {
      PathStep step;
      step.node = labelNode(s, n);
      if (n != target) {
        if (auto slot = slotPointingTo(s, n, toward[n])) {
          step.offset = slot->first;
          step.slot_address = slot->second;
          step.node = labelHolder(s, n, slot->second);
          step.field = slotField(s, n, slot->first, slot->second);
        }
      }
      path.steps.push_back(std::move(step));
      if (n == target) break;
    }
    paths.push_back(std::move(path));
  }
  return paths;
}

}  // namespace goheap::analysis
