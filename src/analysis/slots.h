// The pointer slots of a node, shared by the queries and the exporters
// (moved here from queries.cpp so that src/export/ names edges the way
// `goheap obj` and `paths` do).
#pragma once

#include <cstdint>

#include "analysis/snapshot.h"

namespace goheap::analysis {

// Calls fn(offset, word, slot_address) for every pointer slot of a node that
// has contents (object, stack frame, data or bss segment). Other roots hold
// their pointers in record fields and have no slots.
template <class Fn>
inline void forEachNodeSlot(const Snapshot& s, NodeId n, Fn&& fn) {
  const model::HeapModel& d = s.model;
  const WordReader words = d.words();
  if (s.heap.isObject(n)) {
    const uint8_t* contents = d.objectData(n);
    const uint64_t base = d.objects.addr[n];
    d.forEachObjectSlot(n, [&](uint64_t off) { fn(off, words.read(contents + off), base + off); });
    return;
  }
  auto range = [&](model::ByteRange contents, uint32_t layout, uint64_t base) {
    const uint8_t* p = d.bytes(contents).data();
    d.forEachSlot(layout, [&](uint64_t off) { fn(off, words.read(p + off), base + off); });
  };
  switch (s.heap.rootKind(n)) {
    case graph::RootKind::DataSegment:
      range(d.data.contents, d.data.layout, d.data.addr);
      break;
    case graph::RootKind::BssSegment:
      range(d.bss.contents, d.bss.layout, d.bss.addr);
      break;
    case graph::RootKind::StackFrame: {
      const model::StackFrame& f = d.frames[s.heap.rootRecord(n)];
      range(f.contents, f.layout, f.sp);
      break;
    }
    default:
      break;
  }
}

}  // namespace goheap::analysis
