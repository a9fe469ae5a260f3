// Retained bytes by chain of types: the dominator tree with every node
// replaced by its name (an object's type or core name, a root's kind or
// function), siblings of one name merged. A flame graph of it shows where
// memory is kept alive, by what, through what: widths are retained bytes.
// The same view as `goheap convert --to pprof-retention`, built for the web
// UI in one pass and pruned to what a screen can show.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/snapshot.h"

namespace goheap::analysis {

struct FlameNode {
  std::string name;
  uint64_t value = 0;  // retained bytes below (and in) this frame
  uint64_t self = 0;   // bytes of the objects named here
  uint64_t count = 0;  // objects named here
  uint32_t parent = UINT32_MAX;
  std::vector<uint32_t> children;  // biggest value first
};

struct Flame {
  std::vector<FlameNode> nodes;  // nodes[0] is the root, "all"
};

// Frames whose value is below `min_bytes` are folded into their parent's
// self; chains deeper than `max_depth` likewise. A run of frames of one name
// (a linked list) is one frame.
// `full`, when given, is fullFlame(s), which a server keeps: the default
// depth is then pruned from it instead of walking the heap again.
Flame retentionFlame(const Snapshot& s, uint64_t min_bytes, uint32_t max_depth,
                     const Flame* full = nullptr);

// The whole flame (nothing folded, chains to kMaxFlameDepth): a server keeps
// it (query::Session) and prunes it per request instead of walking the heap
// again.
constexpr uint32_t kMaxFlameDepth = 64;
Flame fullFlame(const Snapshot& s);
// `full` with frames below `min_bytes` folded into their parents.
Flame pruneFlame(const Flame& full, uint64_t min_bytes);

}  // namespace goheap::analysis
