// The pointer slots of a node and where they point, shared by the analyses
// (summary, paths, obj, labels) and the exporters (moved here from
// queries.cpp so that src/export/ names edges the way `goheap obj` and
// `paths` do).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "analysis/snapshot.h"

namespace goheap::analysis {

// The bytes of a node that has contents: an object, a stack frame, the data
// or bss segment; empty for every other node.
std::span<const uint8_t> nodeContents(const Snapshot& s, NodeId n);

// The object containing `address`, or nullopt.
std::optional<NodeId> objectAt(const Snapshot& s, uint64_t address);

// The first slot of `from` that points into `to`: its offset in `from` and
// its address.
std::optional<std::pair<uint64_t, uint64_t>> slotPointingTo(const Snapshot& s, NodeId from,
                                                            NodeId to);

// Where the executable's types say a root's word at `slot_address` is
// declared: the global variable (data, bss) or the frame's parameter or
// local holding it, its type in the type table, and the word's offset in
// it. None without types, or where nothing is declared.
struct SlotOwner {
  std::string name;  // "main.cache", "param ctx", "local buf"
  bin::TypeId type = bin::kNoType;
  uint64_t offset = 0;  // of the slot within the variable
};
std::optional<SlotOwner> rootSlotOwner(const Snapshot& s, NodeId n, uint64_t slot_address);

// How many bytes from where it points a pointer slot keeps alive, by the
// slot's static type: a *T the size of T, a slice's data pointer its
// capacity's elements, a string's its length. The garbage collector keeps a
// whole object for any pointer into it; this is what the program itself
// can reach through the pointer, which matters where unrelated values
// share one allocation (the tiny allocator packs small pointer-free values
// into one 16-byte block). None when the holder or the slot is untyped, or
// its type says no extent (unsafe.Pointer, an interface's data word, a
// closure's context).
std::optional<uint64_t> typedReach(const Snapshot& s, NodeId holder, uint64_t offset,
                                   uint64_t slot_address);

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
  // Each segment and frame with its own layout of slots.
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
