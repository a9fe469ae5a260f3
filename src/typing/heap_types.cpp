#include "typing/heap_types.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "goruntime/map_layout.h"
#include "typing/typer.h"
#include "typing/typing_rounds.h"
#include "util/enum_names.h"
#include "util/worker_team.h"

namespace goheap::typing {

namespace {

// Splits "K,V" at its top-level comma.
std::pair<std::string_view, std::string_view> splitPair(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    const char c = s[i];
    if (c == '<' && i + 1 < s.size() && s[i + 1] == '-') continue;  // chan<-
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') continue;
    if (c == '<' || c == '[' || c == '(' || c == '{') depth++;
    if (c == '>' || c == ']' || c == ')' || c == '}') depth--;
    if (c == ',' && depth == 0) return {s.substr(0, i), s.substr(i + 1)};
  }
  return {s, {}};
}

}  // namespace

// Table's name is "descriptor", or "dwarf" with DWARF.
constexpr std::array<std::string_view, 5> kEvidenceNames = {"descriptor", "header", "interface",
                                                            "inferred", "allocation_site"};
static_assert(namesEveryValue(kEvidenceNames, TypeEvidence::AllocationSite));

std::string_view typeEvidenceName(TypeEvidence e, bool dwarf) {
  if (e == TypeEvidence::Table && dwarf) return "dwarf";
  return enumName(e, kEvidenceNames, "");
}

GoKind goKind(const bin::DebugInfo& dwarf, TypeId t) {
  // A typedef names Go's kind (map, chan, interface, a named struct); the
  // runtime's synthesized types have none and are told apart by their tag.
  for (int hops = 0; t != kNoType && hops < 16; hops++) {
    const bin::Type& ty = dwarf.type(t);
    if (ty.kind != GoKind::Invalid) return ty.kind;
    switch (ty.tag) {
      case DwarfTag::Pointer:
        return GoKind::Pointer;
      case DwarfTag::Struct:
        return GoKind::Struct;
      case DwarfTag::Array:
        return GoKind::Array;
      case DwarfTag::Subroutine:
        return GoKind::Func;
      case DwarfTag::Typedef:
        t = ty.elem;
        continue;
      default:
        return GoKind::Invalid;
    }
  }
  return GoKind::Invalid;
}

uint64_t typeSize(const bin::DebugInfo& dwarf, TypeId t, uint32_t ptr_size) {
  if (t == kNoType) return 0;
  const TypeId r = dwarf.resolve(t);
  if (r == kNoType) return 0;
  const bin::Type& rt = dwarf.type(r);
  if (rt.size == 0 && rt.tag == DwarfTag::Pointer) return ptr_size;
  return rt.size;
}

std::string goTypeName(std::string_view n) {
  // Pointer and array prefixes of a synthesized type: "*table<K,V>".
  if (n.starts_with("*")) return std::string(1, '*').append(goTypeName(n.substr(1)));
  if (n.starts_with("[") && n.ends_with(">")) {
    const size_t close = n.find(']');
    if (close != std::string_view::npos) {
      return std::string(n.substr(0, close + 1)) + goTypeName(n.substr(close + 1));
    }
  }
  if (n.starts_with("noalg.")) n.remove_prefix(6);
  auto inner = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (!n.starts_with(prefix) || !n.ends_with(">")) return std::nullopt;
    return n.substr(prefix.size(), n.size() - prefix.size() - 1);
  };
  // The runtime's map types, written as Go writes map types.
  for (const goruntime::MapStructName& m : goruntime::mapStructNames()) {
    if (m.go_prefix.empty()) continue;
    if (auto in = inner(m.linker_prefix)) {
      auto [k, v] = splitPair(*in);
      return std::string(m.go_prefix) + std::string(k) + "]" + std::string(v);
    }
  }
  if (auto in = inner("hchan<")) return "chan " + std::string(*in);
  return std::string(n);
}

HeapTypes typeHeap(const model::HeapModel& model, const graph::Heap& heap,
                   const binding::BoundExecutable& exe, const bin::DebugInfo& dwarf,
                   const TypingOptions& options) {
  TypingState shared(heap.objectCount(), options.objects_per_chunk);
  const unsigned threads = std::max(1u, options.threads);
  std::vector<std::unique_ptr<Typer>> typers;
  std::vector<Typer*> workers;
  for (unsigned w = 0; w < threads; w++) {
    typers.push_back(std::make_unique<Typer>(model, heap, exe, dwarf, shared));
    workers.push_back(typers.back().get());
  }
  WorkerTeam team(threads);
  TypingRounds rounds(shared, workers, team, options);
  Typer& typer = *typers[0];
  typer.drainWith(rounds);
  typer.seedMallocHeaders();
  typer.run();
  HeapTypes out;
  finishAssignments(shared.assignments, shared.table, out);
  const TypingCounts& counts = typer.counts();
  out.typed_objects = counts.typed_objects;
  out.conflicts = counts.conflicts;
  out.typed_from_roots = counts.typed_from_roots;
  out.typed_from_headers = counts.typed_from_headers;
  out.inferred_objects = counts.inferred_objects;
  return out;
}

std::string typeName(const HeapTypes& t, NodeId o, const bin::DebugInfo& dwarf,
                     const binding::BoundExecutable& exe, const model::HeapModel& model) {
  switch (t.form(o)) {
    case TypeForm::None:
      return {};
    case TypeForm::StringBytes:
      return "string";
    case TypeForm::Closure: {
      const uint64_t fn = model.words().read(model.objectData(o));
      const bin::Func* f = exe.functionEntry(fn);
      return f == nullptr ? "closure" : "closure " + std::string(f->name);
    }
    case TypeForm::Value:
      return goTypeName(dwarf.type(t.shown(o)).name);
    case TypeForm::Array:
      return formatIndex(t.count(o)) + goTypeName(dwarf.type(t.shown(o)).name);
  }
  return {};
}

}  // namespace goheap::typing
