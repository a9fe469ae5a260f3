// Compressed sparse rows: the neighbours of node n are
// targets[begin[n] .. begin[n+1]). Used for edges in both directions and for
// the dominator tree's children.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/column.h"

namespace goheap {

using NodeId = uint32_t;
constexpr NodeId kNoNode = UINT32_MAX;

struct Csr {
  Column<uint32_t> begin;  // size nodeCount() + 1
  Column<NodeId> targets;

  uint32_t nodeCount() const { return begin.empty() ? 0 : static_cast<uint32_t>(begin.size() - 1); }
  uint32_t edgeCount() const { return static_cast<uint32_t>(targets.size()); }
  std::span<const NodeId> neighbors(NodeId n) const {
    return {targets.data() + begin[n], targets.data() + begin[n + 1]};
  }
};

// Why `csr` is not a well-formed CSR of `node_count` nodes whose targets are
// all below `target_limit` (begin has node_count + 1 offsets, starts at 0,
// never decreases and ends at the target count); empty when it is. For
// arrays that come from a file rather than from this process.
std::string csrProblem(const Csr& csr, uint64_t node_count, uint64_t target_limit);

// The reverse of `forward`: for every edge a->b, an edge b->a. Within each
// node, sources come in increasing order.
Csr reverseCsr(const Csr& forward);

}  // namespace goheap
