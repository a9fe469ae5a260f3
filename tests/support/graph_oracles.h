// Plain, obviously-correct graph searches that the dominator tests use as
// oracles. Written independently of the code under test: no ordering, no
// numbering, no cleverness.
#pragma once

#include <vector>

#include "graph/csr.h"

namespace goheap::testing {

// Nodes reachable from `root` when `removed` is taken out of the graph
// (kNoNode: nothing removed); 1 for reachable.
std::vector<char> reachableWithout(const Csr& g, NodeId root, NodeId removed);

}  // namespace goheap::testing
