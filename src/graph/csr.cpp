#include "graph/csr.h"

#include "util/large_vector.h"

namespace goheap {

Csr reverseCsr(const Csr& forward) {
  const uint32_t n = forward.nodeCount();
  Csr reverse;
  assignLarge(reverse.begin, static_cast<size_t>(n) + 1, 0u);
  for (NodeId t : forward.targets) reverse.begin[t + 1]++;
  for (uint32_t i = 0; i < n; i++) reverse.begin[i + 1] += reverse.begin[i];
  resizeLarge(reverse.targets, forward.targets.size());
  std::vector<uint32_t> fill;
  reserveLarge(fill, n);
  fill.assign(reverse.begin.begin(), reverse.begin.end() - 1);
  for (NodeId src = 0; src < n; src++) {
    for (NodeId t : forward.neighbors(src)) reverse.targets[fill[t]++] = src;
  }
  return reverse;
}

}  // namespace goheap
