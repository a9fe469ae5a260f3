// The dominator tree as rows to print (`goheap dom`): a pruned pre-order walk.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/labels.h"
#include "analysis/snapshot.h"

namespace goheap::analysis {

struct DomRow {
  NodeLabel node;
  uint32_t depth = 0;
  uint64_t retained = 0;
  uint64_t shallow = 0;
  uint64_t children = 0;         // in the dominator tree
  uint64_t hidden_children = 0;  // below --min-bytes or beyond --max-children
};
// Pre-order walk from the super-root, `max_depth` levels, skipping subtrees
// retaining less than `min_bytes`, at most `max_children` per node.
std::vector<DomRow> dominatorRows(const Snapshot& s, uint32_t max_depth, uint64_t min_bytes,
                                  uint32_t max_children, NodeId start = kNoNode);

}  // namespace goheap::analysis
