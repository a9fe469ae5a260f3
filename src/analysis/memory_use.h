// What a snapshot's arrays hold: the anonymous memory of each, by name, so
// that --timings and the benchmark say where the bytes per object go.
// Arrays that are views of a mapped file (the index cache's) count 0: the
// page cache holds them, not this process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/snapshot.h"

namespace goheap::analysis {

struct HeldArray {
  std::string name;  // "objects.addr", "graph.successors", ...
  uint64_t bytes = 0;
};

// The snapshot's arrays, biggest first; those under 1 KiB are left out.
std::vector<HeldArray> heldArrays(const Snapshot& s);

}  // namespace goheap::analysis
