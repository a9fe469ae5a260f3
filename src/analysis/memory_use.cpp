#include "analysis/memory_use.h"

#include <algorithm>

#include "util/column.h"

namespace goheap::analysis {

namespace {

template <class T>
uint64_t held(const Column<T>& c) {
  return c.ownedBytes();
}
template <class T>
uint64_t held(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
template <class V, class D>
uint64_t held(const BasicPackedColumn<V, D>& c) {
  return c.ownedBytes();
}
uint64_t held(const Csr& c) {
  return held(c.begin) + held(c.targets);
}

}  // namespace

uint64_t go13Columns(const model::HeapModel& m) {
  if (!m.heap_dump) return 0;
  const model::HeapDumpFacts& f = *m.heap_dump;
  return held(f.object_type_addr) + held(f.object_type_index) + held(f.object_kind);
}

std::vector<HeldArray> heldArrays(const Snapshot& s) {
  const model::Objects& o = s.model.objects;
  const model::PointerLayouts& l = s.model.layouts;
  const graph::Heap& h = s.heap;
  std::vector<HeldArray> arrays = {
      {"objects.addr", held(o.addr)},
      {"objects.size", held(o.size)},
      {"objects.offset", o.offset.ownedBytes()},
      {"objects.region", held(o.region)},
      {"objects.layout", held(o.layout)},
      {"heap dump's go1.3 object columns", go13Columns(s.model)},
      {"objects.span_metadata", held(o.span_metadata)},
      {"pointer layouts", held(l.begin) + held(l.offsets) + held(l.stride) + held(l.repeats)},
      {"records (goroutines, frames, types...)",
       held(s.model.types) + held(s.model.itabs) + held(s.model.other_roots) +
           held(s.model.goroutines) + held(s.model.frames) + held(s.model.finalizers) +
           held(s.model.threads) + held(s.model.defers) + held(s.model.panics) +
           held(s.model.buckets) + held(s.model.profile_frames) + held(s.model.alloc_samples)},
      {"graph.successors", held(h.successors)},
      {"graph.predecessors",
       h.predecessorsIfComputed() != nullptr ? held(*h.predecessorsIfComputed()) : 0},
      {"graph.address index", h.addresses().tableBytes()},
      {"graph.roots",
       held(h.root_kind) + held(h.root_record) + held(h.goroutine_node) + held(h.frame_node)},
      {"dominators.idom", held(s.dom.idom)},
      {"dominators.children", held(s.dominatorChildren())},
      {"retained", held(s.retained)},
      {"names", s.namer().heldBytes()},
  };
  if (s.types) {
    const typing::HeapTypes& t = *s.types;
    arrays.push_back({"types.assignment", held(t.assignment)});
    arrays.push_back({"types.assignments", held(t.assignments)});
  }
  std::erase_if(arrays, [](const HeldArray& a) { return a.bytes < 1024; });
  std::stable_sort(arrays.begin(), arrays.end(),
                   [](const HeldArray& a, const HeldArray& b) { return a.bytes > b.bytes; });
  return arrays;
}

}  // namespace goheap::analysis
