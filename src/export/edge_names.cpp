#include "export/edge_names.h"

#include <algorithm>

#include "analysis/labels.h"
#include "analysis/slots.h"
#include "typing/values.h"
#include "util/format.h"

namespace goheap::exporting {

namespace {

SlotName offsetName(uint64_t offset) {
  return {formatOffset(offset), false, 0};
}

// "[3]" -> element 3; "[3].Next" -> name "[3].Next", or element 3 past
// kMaxNamedElement; ".User.Tags" -> "User.Tags".
SlotName fromFieldPath(std::string path, uint64_t offset) {
  if (path.empty()) return offsetName(offset);
  if (path.front() == '[') {
    const size_t close = path.find(']');
    const std::string digits = path.substr(1, close == std::string::npos ? 0 : close - 1);
    if (!digits.empty() &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      const uint64_t i = std::stoull(digits);
      if (close + 1 == path.size() || i >= kMaxNamedElement) return {"", true, i};
    }
    return {std::move(path), false, 0};
  }
  if (path.front() == '.') path.erase(0, 1);
  return {std::move(path), false, 0};
}

}  // namespace

SlotName EdgeNamer::slotName(NodeId n, uint64_t offset, uint64_t slot_address) const {
  if (s_.heap.isObject(n)) {
    if (!s_.types || !s_.types->typed(n)) return offsetName(offset);
    return fromFieldPath(typing::objectFieldPath(*s_.types, *s_.exe->typeTable(), n, offset,
                                                 s_.model.params.ptr_size),
                         offset);
  }
  if (std::string field = analysis::slotField(s_, n, offset, slot_address); !field.empty()) {
    return {std::move(field), false, 0};
  }
  const graph::RootKind kind = s_.heap.rootKind(n);
  const bool segment = kind == graph::RootKind::DataSegment || kind == graph::RootKind::BssSegment;
  if (segment && s_.exe) {
    // Symbols without DWARF still name the global variable.
    if (std::optional<binding::GlobalSymbol> g = s_.exe->globalAt(slot_address)) {
      std::string name(g->name);
      if (g->offset != 0) name += formatOffset(g->offset);
      return {std::move(name), false, 0};
    }
  }
  return offsetName(offset);
}

const std::vector<NamedEdge>& EdgeNamer::edges(NodeId n) {
  const std::span<const NodeId> targets = s_.heap.successors.neighbors(n);
  edges_.clear();
  first_slot_.assign(targets.size(), std::nullopt);
  size_t unset = targets.size();
  auto note = [&](uint64_t offset, uint64_t value, uint64_t slot_address) {
    if (value == 0 || unset == 0) return;
    const NodeId t = s_.heap.addresses().find(value);
    if (t == kNoNode) return;
    auto it = std::lower_bound(targets.begin(), targets.end(), t);
    if (it == targets.end() || *it != t) return;
    auto& slot = first_slot_[static_cast<size_t>(it - targets.begin())];
    if (slot) return;
    slot = std::make_pair(offset, slot_address);
    unset--;
  };
  analysis::forEachNodeSlot(s_, n, note);
  if (unset > 0 && !s_.heap.isObject(n) && s_.heap.rootKind(n) == graph::RootKind::StackFrame) {
    // Stack objects: words the frame's field list does not name
    // (graph::BuildOptions::conservative_stacks).
    const model::StackFrame& f = s_.model.frames[s_.heap.rootRecord(n)];
    const WordReader words = s_.model.words();
    const uint8_t* base = s_.model.bytes(f.contents).data();
    for (uint64_t off = 0; off + words.ptrSize() <= f.contents.size; off += words.ptrSize()) {
      note(off, words.read(base + off), f.sp + off);
    }
  }
  for (size_t i = 0; i < targets.size(); i++) {
    NamedEdge e;
    e.target = targets[i];
    if (first_slot_[i]) {
      e.label = slotName(n, first_slot_[i]->first, first_slot_[i]->second);
    } else {
      e.label = {"", true, i};
    }
    edges_.push_back(std::move(e));
  }
  return edges_;
}

}  // namespace goheap::exporting
