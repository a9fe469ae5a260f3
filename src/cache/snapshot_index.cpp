#include "cache/snapshot_index.h"

#include <array>
#include <cstring>
#include <string>

namespace goheap::cache {

namespace {

template <class T>
void addColumn(IndexWriter& writer, uint32_t id, const Column<T>& column) {
  writer.addArray<T>(id, column.span());
}

template <size_t N>
void addCounters(IndexWriter& writer, uint32_t id, const std::array<uint64_t, N>& values) {
  std::vector<uint8_t> bytes(sizeof values);
  std::memcpy(bytes.data(), values.data(), sizeof values);
  writer.addOwned(id, sizeof(uint64_t), std::move(bytes));
}

template <size_t N>
Status readCounters(const IndexFile& index, uint32_t id, std::array<uint64_t, N>& out) {
  Expected<std::span<const uint64_t>> values = index.array<uint64_t>(id);
  if (!values) return Error("section " + std::to_string(id) + ": " + values.error().message());
  if (values->size() != N) return Error("section " + std::to_string(id) + ": wrong length");
  std::memcpy(out.data(), values->data(), sizeof out);
  return Status::success();
}

}  // namespace

void addSnapshotSections(const analysis::ComputedParts& parts, IndexWriter& writer) {
  const graph::HeapParts& h = parts.heap;
  addColumn(writer, kSuccessorsBegin, h.successors.begin);
  addColumn(writer, kSuccessorsTargets, h.successors.targets);
  addColumn(writer, kRootKind, h.root_kind);
  addColumn(writer, kRootRecord, h.root_record);
  addColumn(writer, kGoroutineNode, h.goroutine_node);
  addColumn(writer, kFrameNode, h.frame_node);
  addCounters(writer, kHeapCounters,
              std::array<uint64_t, 3>{h.non_heap_refs, h.nil_slots, h.conservative_stack_edges});
  addColumn(writer, kIdom, parts.dom.idom);
  writer.addPacked(kRetained, kRetainedPacking, parts.retained);
  addColumn(writer, kChildrenBegin, parts.dominator_children.begin);
  addColumn(writer, kChildrenTargets, parts.dominator_children.targets);
  if (parts.types) {
    const typing::HeapTypes& t = *parts.types;
    writer.addPacked(kTypeAssignment, kTypeAssignmentPacking, t.assignment);
    addColumn(writer, kTypeAssignments, t.assignments);
    addCounters(writer, kTypeCounters,
                std::array<uint64_t, 4>{t.typed_objects, t.conflicts, t.typed_from_roots,
                                        t.typed_from_headers});
  }
}

Expected<analysis::ComputedParts> readSnapshotSections(const IndexFile& index) {
  analysis::ComputedParts parts;
  graph::HeapParts& h = parts.heap;
  std::array<uint64_t, 3> heap_counters{};
  for (Status s :
       {index.column(kSuccessorsBegin, h.successors.begin),
        index.column(kSuccessorsTargets, h.successors.targets),
        index.column(kRootKind, h.root_kind), index.column(kRootRecord, h.root_record),
        index.column(kGoroutineNode, h.goroutine_node), index.column(kFrameNode, h.frame_node),
        readCounters(index, kHeapCounters, heap_counters), index.column(kIdom, parts.dom.idom),
        index.packedColumn(kRetained, kRetainedPacking, parts.retained),
        index.column(kChildrenBegin, parts.dominator_children.begin),
        index.column(kChildrenTargets, parts.dominator_children.targets)}) {
    if (!s) return s.error();
  }
  h.non_heap_refs = heap_counters[0];
  h.nil_slots = heap_counters[1];
  h.conservative_stack_edges = heap_counters[2];
  if (index.has(kTypeAssignment)) {
    typing::HeapTypes t;
    std::array<uint64_t, 4> counters{};
    for (Status s : {index.packedColumn(kTypeAssignment, kTypeAssignmentPacking, t.assignment),
                     index.column(kTypeAssignments, t.assignments),
                     readCounters(index, kTypeCounters, counters)}) {
      if (!s) return s.error();
    }
    t.typed_objects = counters[0];
    t.conflicts = counters[1];
    t.typed_from_roots = counters[2];
    t.typed_from_headers = counters[3];
    parts.types = std::move(t);
  }
  return parts;
}

}  // namespace goheap::cache
