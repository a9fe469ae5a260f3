#include "analysis/labels.h"

#include <cstdio>

#include "analysis/slots.h"
#include "goruntime/goroutine_status.h"
#include "typing/values.h"

namespace goheap::analysis {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "main.closeFile", or "fn pc 0x4a1b20" without the executable.
std::string functionName(const Snapshot& s, uint64_t pc) {
  if (s.exe) {
    if (const bin::Func* f = s.exe->functionAt(pc)) return std::string(f->name);
  }
  return "fn pc " + hex(pc);
}

std::string goroutineTitle(const model::Goroutine& g) {
  std::string state = g.wait_reason.empty() ? std::string(goruntime::gStatusDescription(g.status))
                                            : std::string(g.wait_reason);
  return "goroutine " + std::to_string(g.goid) + " (" + state + ")";
}

}  // namespace

NodeLabel labelNode(const Snapshot& s, NodeId n) {
  NodeLabel l;
  l.node = n;
  if (n == kNoNode) {
    l.kind = "none";
    return l;
  }
  if (s.heap.isObject(n)) {
    typing::NameSource source{};
    l.kind = "object";
    l.name = s.namer().name(n, &source);
    l.source = std::string(typing::nameSourceName(source));
    l.address = s.model.objects.addr[n];
    if (s.types && s.types->typed(n)) {
      l.type_evidence = std::string(typing::typeEvidenceName(
          s.types->evidence(n), s.exe && s.exe->typeTableSource() == "DWARF"));
    }
    return l;
  }
  const model::HeapModel& d = s.model;
  const uint32_t rec = s.heap.rootRecord(n);
  const graph::RootKind kind = s.heap.rootKind(n);
  l.kind = std::string(graph::rootKindName(kind));
  switch (kind) {
    case graph::RootKind::SuperRoot:
      // Objects it dominates directly are reached from more than one root.
      l.name = "several roots";
      break;
    case graph::RootKind::DataSegment:
      l.name = "data segment at " + hex(d.data.addr);
      break;
    case graph::RootKind::BssSegment:
      l.name = "bss segment at " + hex(d.bss.addr);
      break;
    case graph::RootKind::Goroutine:
      l.name = goroutineTitle(d.goroutines[rec]);
      break;
    case graph::RootKind::StackFrame: {
      const model::StackFrame& f = d.frames[rec];
      l.name = std::string(f.function);
      if (s.exe) {
        if (std::string where = s.exe->describeReturnAddress(f.pc); !where.empty()) l.name = where;
      }
      if (f.goroutine != UINT32_MAX) {
        l.name += " in goroutine " + std::to_string(d.goroutines[f.goroutine].goid);
      }
      l.name += " (depth " + std::to_string(f.depth) + ")";
      l.short_name = f.goroutine == UINT32_MAX
                         ? std::string(f.function)
                         : "goroutine " + std::to_string(d.goroutines[f.goroutine].goid) + " stack";
      break;
    }
    case graph::RootKind::Finalizer:
    case graph::RootKind::QueuedFinalizer:
      l.name = "finalizer of " + hex(d.finalizers[rec].obj) + " (" +
               functionName(s, d.finalizers[rec].fn_pc) + ")";
      break;
    case graph::RootKind::Defer: {
      const model::Defer& df = d.defers[rec];
      l.name = "defer " + functionName(s, df.fn_pc);
      std::string where = s.exe ? s.exe->describeReturnAddress(df.pc) : "";
      l.name += " in " + (where.empty() ? "pc " + hex(df.pc) : where);
      break;
    }
    case graph::RootKind::Panic:
      l.name = "panic value";
      break;
    case graph::RootKind::OtherRoot:
      l.name = std::string(d.other_roots[rec].description);
      break;
  }
  return l;
}

namespace {

// " → *T": what the word of a global without a symbol points at; empty
// when it points at no object.
std::string holderlessGlobalTarget(const Snapshot& s, graph::RootKind kind, uint64_t slot_address) {
  const model::Segment& seg = kind == graph::RootKind::DataSegment ? s.model.data : s.model.bss;
  const WordReader words = s.model.words();
  if (!seg.present || slot_address < seg.addr ||
      slot_address - seg.addr + words.ptrSize() > seg.contents.size) {
    return {};
  }
  const uint64_t value = words.read(s.model.bytes(seg.contents).data() + (slot_address - seg.addr));
  const std::optional<NodeId> o = objectAt(s, value);
  if (!o) return {};
  typing::NameSource source = typing::NameSource::Shape;
  const std::string target = s.namer().name(*o, &source);
  // A map, chan, func or string value is itself the pointer to its runtime
  // object; any other typed word points at a value of that type.
  const bool is_value = target.starts_with("map[") || target.starts_with("chan ") ||
                        target.starts_with("closure ") || target == "string";
  const bool pointer = source == typing::NameSource::Type && !is_value;
  const bool inside = value != s.model.objects.addr[*o] + (s.types ? s.types->dataOffset(*o) : 0);
  return std::string(" \u2192 ") + (inside ? "inside " : "") + (pointer && !inside ? "*" : "") +
         target;
}

}  // namespace

NodeLabel labelHolder(const Snapshot& s, NodeId n, uint64_t slot_address) {
  NodeLabel l = labelNode(s, n);
  if (s.heap.isObject(n) || n == kNoNode) return l;
  const graph::RootKind kind = s.heap.rootKind(n);
  if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) return l;
  std::optional<binding::GlobalSymbol> g;
  if (s.exe) g = s.exe->globalAt(slot_address);
  if (!g) {
    // No symbol (a stripped binary, or no executable): the global by its
    // address and what its word points at, "data 0x5881de0 → *scrape.Manager".
    l.short_name = (kind == graph::RootKind::DataSegment ? "data " : "bss ") + hex(slot_address);
    l.name = l.short_name + holderlessGlobalTarget(s, kind, slot_address);
    return l;
  }
  l.global = std::string(g->name);
  l.global_offset = g->offset;
  l.name = "global " + l.global;
  if (g->offset != 0) l.name += " +" + std::to_string(g->offset);
  l.short_name = l.name;
  return l;
}

std::string slotField(const Snapshot& s, NodeId n, uint64_t offset, uint64_t slot_address) {
  if (!s.types || n == kNoNode) return {};
  const bin::DebugInfo& dwarf = *s.exe->typeTable();
  if (s.heap.isObject(n)) {
    return typing::slotPath(s.model, s.heap, *s.types, dwarf, *s.exe, n, offset);
  }
  const std::optional<SlotOwner> owner = rootSlotOwner(s, n, slot_address);
  if (!owner) return {};
  return owner->name +
         typing::fieldPathAt(dwarf, owner->type, owner->offset, s.model.params.ptr_size);
}

}  // namespace goheap::analysis
