// The object graph: one node per heap object (dense ids in address order),
// then one node per root (goroutine, stack frame, data and bss segment,
// finalizer, defer, panic, other root), then a super-root that points at
// every root. Edges are CSR in both directions. Built from a model::HeapModel whose
// objects are sorted by address; reads its columns, never its file format.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/address_index.h"
#include "graph/csr.h"
#include "model/heap_model.h"
#include "util/column.h"
#include "util/error.h"

namespace goheap::graph {

enum class RootKind : uint8_t {
  SuperRoot,
  DataSegment,
  BssSegment,
  Goroutine,
  StackFrame,
  Finalizer,
  QueuedFinalizer,
  Defer,
  Panic,
  OtherRoot,
};
std::string_view rootKindName(RootKind kind);  // "goroutine", "stack frame", ...

// How many words from a stack pointer's target are scanned as a stack
// object, when the executable does not say its size.
constexpr uint32_t kStackObjectWords = 16;

struct BuildOptions {
  // Split edge extraction over this many threads (1 = none), each given at
  // least min_objects_per_thread objects: below that a thread costs more
  // than it saves. Tests lower it to check that the split changes nothing.
  unsigned threads = 2;
  uint32_t min_objects_per_thread = 65536;
  // Find stack objects as the collector does. The runtime writes a frame's
  // field list from its liveness bitmaps alone, which leave out address-taken
  // locals ("stack objects", such as a value being sent on a channel); the
  // collector scans one when a live pointer points at it. So does goheap:
  // a listed pointer into the goroutine's own stack marks a stack object,
  // and its words (up to kStackObjectWords, as the dump does not give its
  // size) are scanned for heap pointers, repeatedly, as they may point at
  // further stack objects. Off: only the listed words.
  bool conservative_stacks = true;
};

// The graph's arrays: what buildHeap computes from a dump, and what the
// index cache keeps of it and hands back to restoreHeap.
struct HeapParts {
  Csr successors;
  Column<RootKind> root_kind;
  Column<uint32_t> root_record;
  Column<NodeId> goroutine_node;
  Column<NodeId> frame_node;

  // Words in pointer slots that are neither nil nor inside a heap object
  // (pointers to globals, stacks, code, read-only data or freed memory).
  uint64_t non_heap_refs = 0;
  uint64_t nil_slots = 0;
  // Edges from stack objects: words no field list names (conservative_stacks).
  uint64_t conservative_stack_edges = 0;
};

class Heap : public HeapParts {
 public:
  uint32_t objectCount() const { return object_count_; }
  uint32_t nodeCount() const { return static_cast<uint32_t>(successors.nodeCount()); }
  NodeId superRoot() const { return super_root_; }
  bool isObject(NodeId n) const { return n < object_count_; }

  // Root nodes: node id = objectCount() + root index.
  RootKind rootKind(NodeId n) const { return root_kind[n - object_count_]; }
  // Index of the root's record in the Dump (goroutines, frames, finalizers,
  // defers, panics, other_roots); 0 for the segments and the super-root.
  uint32_t rootRecord(NodeId n) const { return root_record[n - object_count_]; }
  // The root node of goroutine record `g` and of stack frame record `f`.
  NodeId goroutineNode(uint32_t g) const { return goroutine_node[g]; }
  NodeId frameNode(uint32_t f) const { return frame_node[f]; }

  const AddressIndex& addresses() const { return index_; }

  // Every node's predecessors (the reverse of successors; sources in
  // increasing order), computed when first asked for and then kept: 4 bytes
  // per node and per edge that a load which never needs them does not
  // spend. Any number of threads may ask at once.
  const Csr& predecessors() const;
  // The nodes with an edge to `target`, in increasing order (a node once per
  // edge, as in predecessors()). Without computing the predecessors: when
  // they are not there, every edge is read, which for a few lookups costs
  // far less time and memory than computing them.
  std::vector<NodeId> referrersOf(NodeId target) const;
  // The predecessors if computed already, else null: for
  // accounts of memory, which must not compute them.
  const Csr* predecessorsIfComputed() const {
    return predecessors_->ready.load(std::memory_order_acquire) ? &predecessors_->csr : nullptr;
  }

 private:
  struct Predecessors {
    std::once_flag once;
    std::atomic<bool> ready{false};
    Csr csr;
  };
  friend Expected<Heap> buildHeap(const model::HeapModel& model, const BuildOptions& options);
  friend Expected<Heap> restoreHeap(const model::HeapModel& model, HeapParts parts);
  uint32_t object_count_ = 0;
  NodeId super_root_ = kNoNode;
  AddressIndex index_;
  // Behind a pointer, so that the Heap stays movable.
  std::unique_ptr<Predecessors> predecessors_ = std::make_unique<Predecessors>();
};

// `model`'s objects must be sorted by address (model::sortObjectsByAddress).
Expected<Heap> buildHeap(const model::HeapModel& model, const BuildOptions& options = {});

// The Heap buildHeap made from this `model` (sorted likewise), from its parts.
// Every part is checked against the dump and against each other (sizes, CSR
// offsets, node ids in range, the super-root's place), so parts from another
// heap or damaged on disk are an Error, never a Heap that reads out of bounds.
Expected<Heap> restoreHeap(const model::HeapModel& model, HeapParts parts);

}  // namespace goheap::graph
