#include "graph/csr.h"

#include "util/large_vector.h"

namespace goheap {

std::string csrProblem(const Csr& csr, uint64_t node_count, uint64_t target_limit) {
  if (csr.begin.size() != node_count + 1) {
    return std::to_string(csr.begin.size()) + " offsets for " + std::to_string(node_count) +
           " nodes";
  }
  if (csr.begin[0] != 0) return "the first offset is not 0";
  // Without an early exit the compiler vectorizes the scan, which restoring
  // a cache entry does for every node; the offset is found after.
  const uint32_t* begin = csr.begin.data();
  bool decreases = false;
  for (uint64_t i = 0; i < node_count; i++) decreases |= begin[i + 1] < begin[i];
  if (decreases) {
    uint64_t i = 0;
    while (begin[i + 1] >= begin[i]) i++;
    return "offset " + std::to_string(i + 1) + " decreases";
  }
  if (csr.begin[node_count] != csr.targets.size()) {
    return "the offsets end at " + std::to_string(csr.begin[node_count]) + " but there are " +
           std::to_string(csr.targets.size()) + " targets";
  }
  NodeId highest = 0;
  for (NodeId t : csr.targets) highest = t > highest ? t : highest;
  if (!csr.targets.empty() && highest >= target_limit) {
    return "a target " + std::to_string(highest) + " is not below " + std::to_string(target_limit);
  }
  return {};
}

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
