#include "analysis/slots.h"

#include <algorithm>

#include "typing/values.h"

namespace goheap::analysis {

std::span<const uint8_t> nodeContents(const Snapshot& s, NodeId n) {
  const model::HeapModel& d = s.model;
  if (n == kNoNode) return {};
  if (s.heap.isObject(n)) return d.objectBytes(n);
  switch (s.heap.rootKind(n)) {
    case graph::RootKind::DataSegment:
      return d.bytes(d.data.contents);
    case graph::RootKind::BssSegment:
      return d.bytes(d.bss.contents);
    case graph::RootKind::StackFrame:
      return d.bytes(d.frames[s.heap.rootRecord(n)].contents);
    default:
      return {};
  }
}

std::optional<NodeId> objectAt(const Snapshot& s, uint64_t address) {
  NodeId n = s.heap.addresses().find(address);
  if (n == kNoNode) return std::nullopt;
  return n;
}

std::optional<std::pair<uint64_t, uint64_t>> slotPointingTo(const Snapshot& s, NodeId from,
                                                            NodeId to) {
  std::optional<std::pair<uint64_t, uint64_t>> found;
  forEachNodeSlot(s, from, [&](uint64_t off, uint64_t value, uint64_t slot_addr) {
    if (!found && value != 0 && s.heap.addresses().find(value) == to) found = {off, slot_addr};
  });
  if (found || s.heap.isObject(from) || s.heap.rootKind(from) != graph::RootKind::StackFrame) {
    return found;
  }
  // A frame's edge may come from a stack object, whose words its field list
  // does not name (graph::BuildOptions::conservative_stacks): look at them all.
  const model::StackFrame& f = s.model.frames[s.heap.rootRecord(from)];
  const WordReader words = s.model.words();
  const uint8_t* base = s.model.bytes(f.contents).data();
  for (uint64_t off = 0; off + words.ptrSize() <= f.contents.size; off += words.ptrSize()) {
    uint64_t value = words.read(base + off);
    if (value != 0 && s.heap.addresses().find(value) == to) return std::make_pair(off, f.sp + off);
  }
  return found;
}

std::optional<SlotOwner> rootSlotOwner(const Snapshot& s, NodeId n, uint64_t slot_address) {
  if (!s.types || !s.exe || n == kNoNode || s.heap.isObject(n)) return std::nullopt;
  const bin::DebugInfo* table = s.exe->typeTable();
  if (table == nullptr) return std::nullopt;
  const bin::DebugInfo& dwarf = *table;
  const uint32_t ptr = s.model.params.ptr_size;
  const uint64_t bias = s.exe->loadBias();
  switch (s.heap.rootKind(n)) {
    case graph::RootKind::DataSegment:
    case graph::RootKind::BssSegment: {
      const bin::GlobalVariable* g = dwarf.globalAt(slot_address - bias);
      if (g == nullptr) return std::nullopt;
      return SlotOwner{std::string(g->name), g->type, slot_address - bias - g->address};
    }
    case graph::RootKind::StackFrame: {
      const model::StackFrame& f = s.model.frames[s.heap.rootRecord(n)];
      const uint64_t pc = f.pc - bias;
      const bin::Function* fn = dwarf.functionAt(f.pc == f.entry_pc ? pc : pc - 1);
      if (fn == nullptr) return std::nullopt;
      const uint64_t cfa = f.sp + f.contents.size;
      for (const bin::FrameVariable& v : dwarf.variables(*fn)) {
        if (!v.cfa_offset) continue;
        const uint64_t at = cfa + static_cast<uint64_t>(*v.cfa_offset);
        const uint64_t size = typing::typeSize(dwarf, v.type, ptr);
        if (slot_address >= at && slot_address < at + std::max<uint64_t>(size, 1)) {
          return SlotOwner{std::string(v.parameter ? "param " : "local ") + std::string(v.name),
                           v.type, slot_address - at};
        }
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> typedReach(const Snapshot& s, NodeId holder, uint64_t offset,
                                   uint64_t slot_address) {
  if (!s.types || !s.exe || holder == kNoNode) return std::nullopt;
  const bin::DebugInfo* table = s.exe->typeTable();
  if (table == nullptr) return std::nullopt;
  const bin::DebugInfo& dwarf = *table;
  const uint32_t ptr = s.model.params.ptr_size;
  std::optional<typing::InnermostValue> value;
  if (s.heap.isObject(holder)) {
    value = typing::objectValueAt(*s.types, dwarf, holder, offset, ptr);
  } else if (std::optional<SlotOwner> owner = rootSlotOwner(s, holder, slot_address)) {
    value = typing::InnermostValue{owner->type, owner->offset};
  }
  if (!value) return std::nullopt;
  const typing::InnermostValue leaf = typing::innermostAt(dwarf, value->type, value->offset, ptr);
  if (leaf.type == bin::kNoType || leaf.offset != 0) return std::nullopt;
  const bin::TypeId r = dwarf.resolve(leaf.type);
  if (r == bin::kNoType) return std::nullopt;
  const bin::Type& rt = dwarf.type(r);
  // The header word after the data pointer: a string's length, a slice's
  // length and then its capacity.
  const std::span<const uint8_t> contents = nodeContents(s, holder);
  const WordReader words = s.model.words();
  auto wordAfter = [&](uint64_t words_after) -> std::optional<uint64_t> {
    const uint64_t at = offset + words_after * ptr;
    if (at + ptr > contents.size()) return std::nullopt;
    return words.read(contents.data() + at);
  };
  switch (typing::goKind(dwarf, leaf.type)) {
    case bin::GoKind::Pointer:
      if (rt.elem == bin::kNoType) return std::nullopt;  // unsafe.Pointer
      return std::max<uint64_t>(typing::typeSize(dwarf, rt.elem, ptr), 1);
    case bin::GoKind::String:
      return wordAfter(1);
    case bin::GoKind::Slice: {
      const std::optional<uint64_t> cap = wordAfter(2);
      if (!cap || rt.elem == bin::kNoType) return std::nullopt;
      return *cap * typing::typeSize(dwarf, rt.elem, ptr);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace goheap::analysis
