#include "core/runtime_layout.h"

#include <initializer_list>
#include <string>
#include <string_view>

namespace goheap::core {
namespace {

// The struct type `name` (following typedefs), or an Error.
Expected<const bin::Type*> structType(const bin::DebugInfo& dwarf, std::string_view name) {
  const bin::TypeId id = dwarf.typeByName(name);
  if (id == bin::kNoType) return Error("the executable's DWARF has no type " + std::string(name));
  const bin::TypeId resolved = dwarf.resolve(id);
  if (resolved == bin::kNoType || dwarf.type(resolved).tag != bin::DwarfTag::Struct) {
    return Error(std::string(name) + " in the executable's DWARF is not a struct");
  }
  return &dwarf.type(resolved);
}

// Field `field` of struct `owner` (named `owner_name`), with its width, which
// must be one of the `widths` the walk can read (a pointer without a byte
// size being `ptr_size` wide).
Expected<FieldSlot> fieldOf(const bin::DebugInfo& dwarf, const bin::Type& owner,
                            std::string_view owner_name, std::string_view field,
                            std::initializer_list<uint32_t> widths, uint32_t ptr_size) {
  for (const bin::Field& f : dwarf.fields(owner)) {
    if (f.name != field) continue;
    const bin::TypeId t = f.type == bin::kNoType ? f.type : dwarf.resolve(f.type);
    uint64_t size = t == bin::kNoType ? 0 : dwarf.type(t).size;
    // Go writes no byte size on some pointer types: they are a word.
    if (size == 0 && t != bin::kNoType && dwarf.type(t).tag == bin::DwarfTag::Pointer) {
      size = ptr_size;
    }
    for (uint32_t w : widths) {
      if (size == w) return FieldSlot{f.offset, w};
    }
    return Error(std::string(owner_name) + "." + std::string(field) + " is " +
                 std::to_string(size) + " bytes wide, which the heap walk cannot read");
  }
  return Error(std::string(owner_name) + " has no field " + std::string(field));
}

}  // namespace

Expected<RuntimeLayout> readRuntimeLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size) {
  RuntimeLayout l;
  l.ptr_size = ptr_size;
  const bin::GlobalVariable* mheap = nullptr;
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == "runtime.mheap_") mheap = &g;
  }
  if (mheap == nullptr) return Error("the executable's DWARF has no global runtime.mheap_");
  l.mheap_addr = mheap->address;

  auto heap = structType(dwarf, "runtime.mheap");
  if (!heap) return heap.error();
  auto allspans = fieldOf(dwarf, **heap, "runtime.mheap", "allspans", {3 * ptr_size}, ptr_size);
  if (!allspans) return allspans.error();
  l.mheap_allspans = allspans->offset;

  auto span = structType(dwarf, "runtime.mspan");
  if (!span) return span.error();
  l.mspan_size = (*span)->size;
  const std::string_view s = "runtime.mspan";
  struct Want {
    FieldSlot* slot;
    std::string_view name;
    std::initializer_list<uint32_t> widths;
  };
  // uintptr fields; the indices are uintptr in Go 1.19 and uint16 by 1.24;
  // state is mSpanStateBox, one byte (a uint8, later an atomic.Uint8).
  const Want wants[] = {
      {&l.span_start_addr, "startAddr", {ptr_size}},
      {&l.span_npages, "npages", {ptr_size}},
      {&l.span_freeindex, "freeindex", {2, 4, 8}},
      {&l.span_nelems, "nelems", {2, 4, 8}},
      {&l.span_alloc_bits, "allocBits", {ptr_size}},
      {&l.span_elemsize, "elemsize", {ptr_size}},
      {&l.span_state, "state", {1}},
  };
  for (const Want& w : wants) {
    auto f = fieldOf(dwarf, **span, s, w.name, w.widths, ptr_size);
    if (!f) return f.error();
    if (f->offset + f->size > l.mspan_size) {
      return Error("runtime.mspan." + std::string(w.name) + " lies beyond the struct's " +
                   std::to_string(l.mspan_size) + " bytes");
    }
    *w.slot = *f;
  }
  return l;
}

}  // namespace goheap::core
