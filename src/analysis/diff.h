// What grew between two dumps of the same program, OLD and NEW: the groups
// (type, allocation site or shape) whose count and bytes changed, and the
// objects of NEW that OLD did not have, by what holds them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/histogram.h"
#include "analysis/labels.h"
#include "analysis/snapshot.h"
#include "typing/names.h"

namespace goheap::analysis {

// ---- by group ----------------------------------------------------------------

struct DiffGroupRow {
  std::string name;
  std::string source;  // of the NEW group when NEW has it, else OLD's
  uint64_t old_count = 0, old_shallow = 0, old_retained = 0;
  uint64_t new_count = 0, new_shallow = 0, new_retained = 0;
  int64_t countDelta() const { return delta(new_count, old_count); }
  int64_t shallowDelta() const { return delta(new_shallow, old_shallow); }
  int64_t retainedDelta() const { return delta(new_retained, old_retained); }
  static int64_t delta(uint64_t now, uint64_t before) {
    return now >= before ? static_cast<int64_t>(now - before) : -static_cast<int64_t>(before - now);
  }
};
// Every group of either snapshot (groupTotals of both, matched by name), the
// biggest growth of `sort` first: groups only OLD has come last, negative.
std::vector<DiffGroupRow> diffGroups(const Snapshot& old_snap, const Snapshot& new_snap,
                                     typing::GroupKind by, SortKey sort);
// The same from both snapshots' groupTotals, which a server keeps.
std::vector<DiffGroupRow> diffGroups(const Histogram& before, const Histogram& after, SortKey sort);

// ---- new since OLD -----------------------------------------------------------

// Per object of NEW: 1 when it is reachable and OLD had no reachable object
// at the same address with the same size and the same identity (see
// diff.cpp: the allocation site or shape, and the DWARF type when both
// dumps type the object).
std::vector<uint8_t> newObjects(const Snapshot& old_snap, const Snapshot& new_snap);

struct NewObjectsRow {
  // What holds the new objects: their nearest ancestor in NEW's dominator
  // tree that is not new (an old object, a root, or the super-root). For a
  // data or bss segment, the global variable pointing at them (labelHolder).
  NodeLabel holder;
  // Holders merged into this row: frames of the same function (say six
  // goroutines' main.holdBuffer frames) make one row.
  uint64_t holders = 1;
  // For merged frames and goroutines: their function ("main.holdBuffer").
  std::string function;
  std::string group;   // the new objects' group under the diff's grouping
  std::string source;  // "type", "site", "shape", ...
  uint64_t count = 0, bytes = 0;
  std::vector<NodeId> members;  // the new objects, in pre-order of the dominator tree
};
struct NewSince {
  uint64_t count = 0, bytes = 0;    // every new reachable object
  std::vector<NewObjectsRow> rows;  // the most bytes first
};
NewSince newSince(const Snapshot& old_snap, const Snapshot& new_snap, typing::GroupKind by);

// For an object holder: the root end of its shortest path from a root, as
// pathsToRoots names it ("global main.sessions"; for a goroutine, the frame
// on the path).
// Nothing for roots, or when no path is found.
std::optional<NodeLabel> reachedFrom(const Snapshot& s, NodeId holder);

// ---- warnings ----------------------------------------------------------------

// Signs that OLD and NEW come from different executables (pointer size,
// architecture, Go version, data and bss segments, the entry PCs frames give
// for the same function), and an executable that matches one dump only.
std::vector<std::string> diffWarnings(const Snapshot& old_snap, const Snapshot& new_snap);

}  // namespace goheap::analysis
