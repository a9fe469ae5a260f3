// Shortest paths from the roots to an object (`goheap paths`), each step
// with the word that points on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/labels.h"
#include "analysis/snapshot.h"

namespace goheap::analysis {

struct PathStep {
  NodeLabel node;
  // The reference to the next step: byte offset within this node's contents
  // (object, frame, data or bss), or nothing for root-to-root links.
  std::optional<uint64_t> offset;
  uint64_t slot_address = 0;  // address of that word, when the node has one
  // With DWARF types: what that word is in the node: a field path in an
  // object (".User.Tags", "[3]"), a global's ("main.cache.items"), a
  // frame's local or parameter ("local buf"). Empty when unknown.
  std::string field;
};
struct Path {
  std::vector<PathStep> steps;  // root first, the target last
};
// Up to `limit` shortest paths from distinct roots to `target`.
std::vector<Path> pathsToRoots(const Snapshot& s, NodeId target, size_t limit);

}  // namespace goheap::analysis
