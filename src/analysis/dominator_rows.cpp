#include "analysis/dominator_rows.h"

namespace goheap::analysis {

std::vector<DomRow> dominatorRows(const Snapshot& s, uint32_t max_depth, uint64_t min_bytes,
                                  uint32_t max_children, NodeId start) {
  const Csr& children = s.dominatorChildren();
  if (start == kNoNode) start = s.heap.superRoot();
  std::vector<DomRow> rows;
  struct Frame {
    NodeId node;
    uint32_t depth;
  };
  std::vector<Frame> stack{{start, 0}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    DomRow row;
    row.node = labelNode(s, f.node);
    row.depth = f.depth;
    row.retained = s.retained[f.node];
    row.shallow = s.shallowSize(f.node);
    auto kids = children.neighbors(f.node);
    row.children = kids.size();
    // Children come sorted by retained size, biggest first.
    size_t shown = 0;
    if (f.depth < max_depth) {
      while (shown < kids.size() && shown < max_children && s.retained[kids[shown]] >= min_bytes) {
        shown++;
      }
      for (size_t i = shown; i-- > 0;) stack.push_back({kids[i], f.depth + 1});
    }
    row.hidden_children = kids.size() - shown;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace goheap::analysis
