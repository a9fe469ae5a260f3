// What of a Snapshot goes into an index file, and back: the parts
// buildSnapshot takes time to compute (analysis::ComputedParts: the graph
// both ways, the roots, the dominator tree and its children, retained sizes,
// the DWARF types), one section per column. Read back, every column is a
// view of the mapped file; nothing is parsed or copied.
//
// The model the reader makes (objects, goroutines, frames, ...) is not
// stored: it points into the heap file, which is mapped again and read
// anew, and restoreSnapshot checks every part against it.
#pragma once

#include <cstdint>
#include <memory>

#include "analysis/snapshot.h"
#include "cache/index_file.h"
#include "util/error.h"

namespace goheap::cache {

// Section ids of the snapshot's columns. Changing what one holds, or adding
// one that a reader must have, bumps kIndexFormatVersion (cache_key.h).
enum SnapshotSection : uint32_t {
  kSuccessorsBegin = 1,
  kSuccessorsTargets,
  // Format 7 kept the graph's predecessors, so that no open computed them
  // again; format 8 does not: writing them cost more than computing them
  // when a query first asks (Heap::predecessors), and they doubled the
  // memory the first write needed.
  kUnusedPredecessorsBegin,
  kUnusedPredecessorsTargets,
  kRootKind,
  kRootRecord,
  kGoroutineNode,
  kFrameNode,
  kHeapCounters,  // u64: non-heap refs, nil slots, conservative stack edges
  kIdom,
  kUnusedPreorder,  // format 1 kept the dominator tree's preorder; format 2 does not
  kRetained,
  kChildrenBegin,
  kChildrenTargets,
  // The type sections are there exactly when the heap was typed. Format 2
  // kept five columns per object; format 3 keeps each object's index into
  // a table of the distinct assignments.
  kTypeAssignment,   // per object, packed (kTypeAssignmentPacking)
  kTypeAssignments,  // typing::TypeAssignment
  kUnusedTypeCount,
  kUnusedTypeForm,
  kUnusedTypeDataOffset,
  kTypeCounters,     // u64: typed objects, conflicts, typed from roots, from headers
  kRetainedPacking,  // how kRetained is packed (IndexWriter::addPacked)
  kTypeAssignmentPacking,
  kGoroutineLeaks,  // JSON (leaks_index.h); format 8 on
};

// Adds `parts`' sections to `writer`. The columns must stay alive until the
// writer has written (they are written from where they are).
void addSnapshotSections(const analysis::ComputedParts& parts, IndexWriter& writer);

// The parts in `index`, as views into it (hold `index` while they live).
// An Error names the section that is missing or of the wrong element size.
Expected<analysis::ComputedParts> readSnapshotSections(const IndexFile& index);

}  // namespace goheap::cache
