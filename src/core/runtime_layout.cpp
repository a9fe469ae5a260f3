#include "core/runtime_layout.h"

#include <initializer_list>
#include <span>
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

// A field a layout wants: where to store it, its name, the widths it may have.
struct Want {
  FieldSlot* slot;
  std::string_view name;
  std::initializer_list<uint32_t> widths;
};

// Reads every wanted field of `owner` (named `owner_name`), each lying within
// the struct's bytes, or the first Error.
Status readFields(const bin::DebugInfo& dwarf, const bin::Type& owner, std::string_view owner_name,
                  std::span<const Want> wants, uint32_t ptr_size) {
  for (const Want& w : wants) {
    GOHEAP_TRY(auto f, fieldOf(dwarf, owner, owner_name, w.name, w.widths, ptr_size));
    if (f.offset + f.size > owner.size) {
      return Error(std::string(owner_name) + "." + std::string(w.name) +
                   " lies beyond the struct's " + std::to_string(owner.size) + " bytes");
    }
    *w.slot = f;
  }
  return Status::success();
}

// The array type `t` (following typedefs), or null.
const bin::Type* arrayType(const bin::DebugInfo& dwarf, bin::TypeId t) {
  if (t == bin::kNoType) return nullptr;
  const bin::TypeId r = dwarf.resolve(t);
  return r != bin::kNoType && dwarf.type(r).tag == bin::DwarfTag::Array ? &dwarf.type(r) : nullptr;
}

}  // namespace

Expected<HeapBitsLayout> readHeapBitsLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size,
                                            std::string_view goarch) {
  HeapBitsLayout l;
  l.arena_base_offset = goarch == "amd64" ? 0xffff800000000000ull : 0;
  GOHEAP_TRY(auto heap, structType(dwarf, "runtime.mheap"));
  // arenas is [L1]*[L2]*heapArena: the two counts are its geometry.
  const bin::Field* arenas = dwarf.fieldNamed(*heap, "arenas");
  if (arenas == nullptr) return Error("runtime.mheap has no field arenas");
  const bin::Type* outer = arrayType(dwarf, arenas->type);
  const bin::Type* inner = nullptr;
  if (outer != nullptr && outer->elem != bin::kNoType) {
    const bin::TypeId p = dwarf.resolve(outer->elem);
    if (p != bin::kNoType && dwarf.type(p).tag == bin::DwarfTag::Pointer) {
      inner = arrayType(dwarf, dwarf.type(p).elem);
    }
  }
  if (inner == nullptr || outer->count == 0 || inner->count == 0) {
    return Error("runtime.mheap.arenas is not an array of pointers to arrays");
  }
  l.mheap_arenas = arenas->offset;
  l.arena_l1 = outer->count;
  l.arena_l2 = inner->count;

  GOHEAP_TRY(auto arena, structType(dwarf, "runtime.heapArena"));
  const bin::Field* spans = dwarf.fieldNamed(*arena, "spans");
  const bin::Type* spans_array = spans == nullptr ? nullptr : arrayType(dwarf, spans->type);
  if (spans_array == nullptr || spans_array->count == 0) {
    return Error("runtime.heapArena has no array field spans");
  }
  l.arena_spans = spans->offset;
  l.arena_struct_size = arena->size;
  const uint64_t page_size = RuntimeLayout{}.page_size;
  l.arena_bytes = spans_array->count * page_size;
  GOHEAP_TRY(auto span, structType(dwarf, "runtime.mspan"));
  GOHEAP_TRY(l.span_spanclass, fieldOf(dwarf, *span, "runtime.mspan", "spanclass", {1}, ptr_size));

  const bin::Field* bitmap = dwarf.fieldNamed(*arena, "bitmap");
  if (const bin::Field* no_more = dwarf.fieldNamed(*arena, "noMorePtrs"); no_more && bitmap) {
    // Go 1.20/1.21: uintptrs, a bit for each of the arena's words, and
    // a byte of noMorePtrs for each 8 of them.
    const bin::Type* a = arrayType(dwarf, bitmap->type);
    const bin::Type* n = arrayType(dwarf, no_more->type);
    const uint64_t words = l.arena_bytes / ptr_size;
    if (a == nullptr || a->count * ptr_size * 8 != words || a->size != a->count * ptr_size) {
      return Error("runtime.heapArena.bitmap is not 1 bit per word of the arena");
    }
    if (n == nullptr || n->size * 8 < a->count) {
      return Error("runtime.heapArena.noMorePtrs is not 1 bit per word of its bitmap");
    }
    l.format = HeapBitsFormat::ArenaOneBit;
    l.arena_bitmap = bitmap->offset;
    l.arena_bitmap_bytes = a->size;
    l.arena_no_more_ptrs = no_more->offset;
    l.arena_no_more_ptrs_bytes = n->size;
    return l;
  }
  if (bitmap != nullptr) {
    // Go 1.19: a byte array, 2 bits for each of the arena's words.
    const bin::Type* a = arrayType(dwarf, bitmap->type);
    if (a == nullptr || a->count * 4 * ptr_size != l.arena_bytes) {
      return Error("runtime.heapArena.bitmap is not 2 bits per word of the arena");
    }
    l.format = HeapBitsFormat::ArenaTwoBit;
    l.arena_bitmap = bitmap->offset;
    l.arena_bitmap_bytes = a->count;
    return l;
  }

  l.format = HeapBitsFormat::SpanHeapBits;
  GOHEAP_TRY(l.span_large_type,
             fieldOf(dwarf, *span, "runtime.mspan", "largeType", {ptr_size}, ptr_size));
  GOHEAP_TRY(auto type, structType(dwarf, "internal/abi.Type"));
  l.type_struct_size = type->size;
  const Want wants[] = {
      {&l.type_size, "Size_", {ptr_size}},    {&l.type_ptr_bytes, "PtrBytes", {ptr_size}},
      {&l.type_tflag, "TFlag", {1}},          {&l.type_kind, "Kind_", {1}},
      {&l.type_gcdata, "GCData", {ptr_size}},
  };
  const Status read = readFields(dwarf, *type, "internal/abi.Type", wants, ptr_size);
  if (!read) return read.error();
  // An empty struct when the build has no Green Tea GC.
  const bin::TypeId inline_bits = dwarf.typeByName("runtime.spanInlineMarkBits");
  if (inline_bits != bin::kNoType) l.inline_mark_bits_size = dwarf.type(inline_bits).size;
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == "runtime.inProgress") l.in_progress_addr = g.address;
  }
  return l;
}

uint64_t fieldValue(const WordReader& words, std::span<const uint8_t> bytes, FieldSlot f) {
  const uint8_t* p = bytes.data() + f.offset;
  switch (f.size) {
    case 1:
      return p[0];
    case 2:
      return words.bigEndian() ? (uint64_t{p[0]} << 8 | p[1]) : (uint64_t{p[1]} << 8 | p[0]);
    case 4: {
      uint64_t v = 0;
      for (int i = 0; i < 4; ++i) v = v << 8 | p[words.bigEndian() ? i : 3 - i];
      return v;
    }
    default:
      return WordReader(8, words.bigEndian()).read(p);
  }
}

Expected<RuntimeLayout> readRuntimeLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size) {
  RuntimeLayout l;
  l.ptr_size = ptr_size;
  const bin::GlobalVariable* mheap = nullptr;
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == "runtime.mheap_") mheap = &g;
  }
  if (mheap == nullptr) return Error("the executable's DWARF has no global runtime.mheap_");
  l.mheap_addr = mheap->address;

  GOHEAP_TRY(auto heap, structType(dwarf, "runtime.mheap"));
  GOHEAP_TRY(auto allspans,
             fieldOf(dwarf, *heap, "runtime.mheap", "allspans", {3 * ptr_size}, ptr_size));
  l.mheap_allspans = allspans.offset;

  GOHEAP_TRY(auto span, structType(dwarf, "runtime.mspan"));
  l.mspan_size = span->size;
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
  const Status read = readFields(dwarf, *span, "runtime.mspan", wants, ptr_size);
  if (!read) return read.error();
  return l;
}

}  // namespace goheap::core
