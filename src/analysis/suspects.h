// Leak suspects, in the spirit of Eclipse MAT's report: the objects, and the
// groups of like objects, that keep a large share of the reachable heap
// alive, each with the place below it where the memory accumulates, the
// shortest path that holds it, and the kinds of objects piled up there.
//
// The core works on plain arrays (dominator tree, retained sizes, a group id
// per object) so that it can be checked against a brute-force oracle on
// small trees; leakSuspects() dresses its answer with names for a Snapshot.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/goroutine_info.h"
#include "analysis/goroutine_leaks.h"
#include "analysis/labels.h"
#include "analysis/paths.h"
#include "analysis/snapshot.h"
#include "graph/csr.h"

namespace goheap::analysis {

// The accumulation point is found by descending while the next node keeps
// at least this share of the bytes: a map header whose bucket array holds
// 99% of what it retains accumulates in the bucket array, a struct whose
// biggest field holds 60% accumulates in the struct itself. MAT uses 80%.
constexpr uint32_t kAccumulationPercent = 80;

// part >= whole * percent / 100, computed exactly.
bool holdsPercent(uint64_t part, uint64_t whole, uint32_t percent);

constexpr uint32_t kNoGroup = UINT32_MAX;

// The dominator tree as the core reads it. Nodes [0, group_of.size()) are
// objects (they have a group, possibly kNoGroup); the others are roots and
// the super-root, which are never suspects themselves.
struct DomArrays {
  std::span<const NodeId> idom;      // per node; kNoNode when unreachable
  std::span<const NodeId> preorder;  // the reachable nodes, `root` first, parents first
  const Csr* children = nullptr;     // per node, biggest retained first
  PackedView retained;               // per node
  NodeId root = kNoNode;             // the super-root
};

// From `start` down the dominator tree: while the child retaining the most
// retains at least `percent` of its parent, step to it. Returns the last
// node reached (`start` itself when no child qualifies).
NodeId objectAccumulationPoint(const DomArrays& t, NodeId start, uint32_t percent);

// Per group: its reachable members, and the bytes they retain counting each
// member only when no other member of its group dominates it ("top"
// members), as `goheap top` counts a group's retained size.
struct GroupTotals {
  uint64_t count = 0;
  uint64_t retained = 0;
  uint64_t top_members = 0;
  NodeId biggest = kNoNode;  // the member retaining the most
  uint64_t biggest_retained = 0;
};
std::vector<GroupTotals> groupTotals(const DomArrays& t, std::span<const uint32_t> group_of,
                                     size_t group_count);

// Where a group's memory accumulates: the deepest node that dominates at
// least `percent` of the bytes the group retains. The bytes a node dominates
// are the group's retained set (its top members' subtrees) within the
// node's subtree; such nodes form one chain from the root, as two disjoint
// subtrees cannot both hold more than half. `inside_member`: the node is a
// top member or below one (then every byte below it counts).
struct GroupPoint {
  NodeId node = kNoNode;
  uint64_t bytes = 0;  // the group's bytes the node dominates
  bool inside_member = false;
};
// `scratch` (resized to the node count) is reused between calls; one
// bottom-up pass over the preorder per call.
GroupPoint groupAccumulationPoint(const DomArrays& t, std::span<const uint32_t> group_of,
                                  uint32_t group, uint32_t percent, std::vector<uint64_t>& scratch);

// The suspects before naming: single objects, then groups, each with its
// accumulation point; groups whose point lies inside a single object's
// subtree carry that suspect's index in merged_into.
struct SuspectCore {
  bool is_group = false;
  NodeId object = kNoNode;    // single object: the suspect
  uint32_t group = kNoGroup;  // group: its id
  uint64_t retained = 0;
  GroupPoint point;  // for a single object: node and bytes = its retained
  size_t merged_into = SIZE_MAX;
};
// Single objects: those retaining at least `threshold_bytes` that no other
// such object dominates (as retained sizes only grow upwards, those whose
// immediate dominator is not an object). Groups: those retaining at least
// `threshold_bytes` together though no member does. Order: single objects
// then groups, each by retained bytes, biggest first (ties by id).
std::vector<SuspectCore> findSuspectCores(const DomArrays& t, std::span<const uint32_t> group_of,
                                          const std::vector<GroupTotals>& totals,
                                          uint64_t threshold_bytes, uint32_t percent);

// ---- the report --------------------------------------------------------------

struct SuspectOptions {
  double threshold_percent = 10;  // of the reachable heap, > 0 and <= 100
  uint32_t accumulation_percent = kAccumulationPercent;
  size_t limit = 10;      // suspects to describe; 0: all
  size_t max_types = 10;  // rows of `accumulated`
};

struct AccumulatedType {
  std::string name;
  std::string source;
  uint64_t count = 0;
  uint64_t bytes = 0;  // shallow
};

struct SuspectGroupRef {
  std::string name;
  std::string source;
  uint64_t count = 0;
  uint64_t retained = 0;
};

struct HolderCount {
  std::string holder;    // "stack frames of main.holdBuffer", "global variables", ...
  uint64_t members = 0;  // top members held there
};

struct Suspect {
  bool is_group = false;
  std::string description;  // one line for a developer
  // A single object: the suspect. A group: its member retaining the most.
  NodeLabel object;
  SuspectGroupRef group;  // a group suspect's group (count: reachable members)
  uint64_t retained = 0;
  double share = 0;  // of the reachable heap, 0..1
  NodeLabel accumulation_point;
  uint64_t accumulation_retained = 0;        // the bytes of the suspect the point holds
  uint64_t accumulation_children = 0;        // in the dominator tree
  Path path;                                 // shortest, from a root to `object`
  std::vector<AccumulatedType> accumulated;  // top max_types by bytes
  uint64_t accumulated_count = 0, accumulated_bytes = 0, accumulated_types = 0;
  std::vector<HolderCount> holders;            // group: who holds its top members
  std::vector<SuspectGroupRef> merged_groups;  // single: group suspects found inside it
};

struct SuspectReport {
  double threshold_percent = 0;
  uint64_t threshold_bytes = 0;
  uint32_t accumulation_percent = 0;
  uint64_t reachable_bytes = 0;
  std::string by;      // "type" or "site": how objects are grouped
  uint64_t total = 0;  // suspects found, before the limit
  std::vector<Suspect> suspects;
  // Goroutines blocked forever, by blocking function (goroutine_leaks.h):
  // leaks whatever they retain.
  std::vector<GoroutineGroup> leaked_goroutines;
};

SuspectReport leakSuspects(const Snapshot& s, const SuspectOptions& options);
// The same with the heap's goroutines listed before (query::Session keeps
// them): the leaked ones are reported.
SuspectReport leakSuspects(const Snapshot& s, const SuspectOptions& options,
                           const std::vector<GoroutineInfo>& all_goroutines);

}  // namespace goheap::analysis
