// The DWARF of a Go executable, as goheap needs it to type the heap: every
// type with its fields, global variables with their addresses, and each
// function's parameters and locals with their places in the frame. Go emits a
// small, regular subset of DWARF (4 up to Go 1.24, 5 since 1.25), compressed
// by default (.zdebug_* or SHF_COMPRESSED); this reads that subset into dense
// arrays indexed by TypeId, and nothing else. docs/dwarf.md says what Go's
// DWARF holds for each kind of type.
//
// Names are views into the decompressed sections (owned here) or, for
// sections stored uncompressed (-ldflags=-compressdwarf=false), into the
// file's bytes: like the Container, a DebugInfo must not outlive the bytes
// it was read from.
//
// Go's own extensions (attribute numbers from cmd/internal/dwarf):
//   DW_AT_go_kind 0x2900          reflect.Kind of the type
//   DW_AT_go_key 0x2901           a map's key type
//   DW_AT_go_elem 0x2902          a map's value, a chan's or slice's element
//   DW_AT_go_embedded_field 0x2903  a struct field that is embedded
//   DW_AT_go_runtime_type 0x2904  address of the type's runtime._type
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bin/container.h"
#include "util/error.h"

namespace goheap::bin {

using TypeId = uint32_t;
constexpr TypeId kNoType = UINT32_MAX;

// reflect.Kind numbers, as DW_AT_go_kind gives them; Invalid when the DIE has
// none (the runtime's synthesized types such as hash<K,V> or bucket<K,V>).
enum class GoKind : uint8_t {
  Invalid = 0,
  Bool = 1,
  Int = 2,
  Int8 = 3,
  Int16 = 4,
  Int32 = 5,
  Int64 = 6,
  Uint = 7,
  Uint8 = 8,
  Uint16 = 9,
  Uint32 = 10,
  Uint64 = 11,
  Uintptr = 12,
  Float32 = 13,
  Float64 = 14,
  Complex64 = 15,
  Complex128 = 16,
  Array = 17,
  Chan = 18,
  Func = 19,
  Interface = 20,
  Map = 21,
  Pointer = 22,
  Slice = 23,
  String = 24,
  Struct = 25,
  UnsafePointer = 26,
};

// Whether a value of kind `k` is one pointer word: a map, chan or func value
// points at the runtime's header or closure, so readers treat all five kinds
// as a pointer.
constexpr bool isPointerShaped(GoKind k) {
  return k == GoKind::Pointer || k == GoKind::UnsafePointer || k == GoKind::Map ||
         k == GoKind::Chan || k == GoKind::Func;
}

// What the DIE is, independent of Go's kind.
enum class DwarfTag : uint8_t {
  Base,        // DW_TAG_base_type (bool, ints, floats, complex, uintptr)
  Pointer,     // DW_TAG_pointer_type (also unsafe.Pointer, with no target)
  Struct,      // DW_TAG_structure_type (Go slices, strings and interfaces too)
  Array,       // DW_TAG_array_type
  Typedef,     // DW_TAG_typedef (Go maps, chans, interfaces and named types)
  Subroutine,  // DW_TAG_subroutine_type (func types)
  Unspecified,
};

struct Field {
  std::string_view name;
  uint64_t offset = 0;  // DW_AT_data_member_location
  TypeId type = kNoType;
  bool embedded = false;  // DW_AT_go_embedded_field
};

struct Type {
  std::string_view name;  // "main.Session", "*main.Session", "[]int", "map[string]int"
  DwarfTag tag = DwarfTag::Unspecified;
  GoKind kind = GoKind::Invalid;
  uint64_t size = 0;  // DW_AT_byte_size; for a typedef, its target's
  // DW_AT_go_elem when the DIE has one, else DW_AT_type. So: Pointer: the
  // pointee; Typedef: the type it names; Array: the element; Slice (a Struct
  // with kind Slice) and Chan: the element; Map: the value. (Go's chan and
  // map types are typedefs whose DW_AT_type is the runtime's *hchan<T> or
  // hash table pointer, so for them elem and target differ.)
  TypeId elem = kNoType;
  // DW_AT_type as written: what a typedef names (a map's *hash<K,V>, a
  // chan's *hchan<T>, an interface's runtime.iface/eface), a pointer's
  // pointee, an array's element. Added beside elem because for maps and
  // chans the two are different types and resolve() needs this one.
  TypeId target = kNoType;
  TypeId key = kNoType;                       // Map: DW_AT_go_key
  uint64_t count = 0;                         // Array: the number of elements
  uint32_t first_field = 0, field_count = 0;  // Struct: into DebugInfo::fields()
  // DW_AT_go_runtime_type; 0 if none. Not an address: the linker writes it
  // with an R_ADDROFF relocation, the descriptor's offset from the start of
  // its section, which is runtime.types (moduledata.types), so
  // descriptor address = types + runtime_type. One exception: Go 1.19 gives
  // the builtin uintptr DIE an absolute address. Go writes it for the
  // program's Go types only (not for the synthesized hash<K,V>, hchan<T>,
  // map<K,V>, ..., nor runtime.eface/iface), and leaves 0 for types whose
  // descriptor the linker dropped. See docs/dwarf.md.
  uint64_t runtime_type = 0;
  // The DIE's offset in (decompressed) .debug_info, what Go's debug/dwarf
  // calls its Offset: for diagnostics and to compare with other readers.
  uint64_t offset = 0;
};

struct GlobalVariable {
  std::string_view name;  // "main.cache"
  uint64_t address = 0;   // link-time
  TypeId type = kNoType;
};

// A parameter or local of a function, where the frame holds it.
struct FrameVariable {
  std::string_view name;
  TypeId type = kNoType;
  bool parameter = false;
  // Declared by a function inlined here (a DW_TAG_inlined_subroutine's
  // child): its slot is in this function's frame, but its name is the
  // inlined function's. Lexical blocks' variables are not marked: they are
  // the function's own.
  bool inlined = false;
  // Offset from the canonical frame address (the caller's SP at the call):
  // locals are below it (negative), parameters passed on the stack above. A
  // variable whose location is not one fixed CFA offset over its whole scope
  // (a register, a location list) has none.
  std::optional<int64_t> cfa_offset;
  // Without one fixed offset: the stretches of code where the variable, or a
  // piece of it, is at a fixed CFA offset (from its DWARF 4 location list),
  // into DebugInfo::locations().
  uint32_t first_location = 0, location_count = 0;
};

// Where a variable, or a piece of it, is over [lo, hi) (link-time PCs).
struct LocationRange {
  uint64_t lo = 0, hi = 0;
  int64_t cfa_offset = 0;
  uint32_t piece_offset = 0;  // of the piece within the variable
  uint32_t piece_size = 0;    // 0: the whole variable
};

struct Function {
  std::string_view name;
  uint64_t low_pc = 0, high_pc = 0;                 // link-time [low_pc, high_pc)
  uint32_t first_variable = 0, variable_count = 0;  // into DebugInfo::variables()
};

class DebugInfo {
 public:
  // Reads the DWARF sections of `c`: an Error when there are none (a
  // stripped file, -ldflags=-w) or they are corrupt, with the byte offset.
  static Expected<DebugInfo> read(const Container& c);
  // A DebugInfo of only these types, fields and globals, for an executable
  // without DWARF: core/runtime_types.h builds the runtime's from its layout
  // table, bin/type_descriptors.h the program's from the runtime's type
  // descriptors. The names must outlive it, or be in `storage`.
  // `storage` holds bytes the names point into, kept for the DebugInfo's life
  // (bin/type_descriptors.h builds names). Types with a runtime_type can be
  // looked up by it, as with DWARF.
  static DebugInfo fromParts(std::vector<Type> types, std::vector<Field> fields,
                             std::vector<GlobalVariable> globals,
                             std::vector<std::unique_ptr<uint8_t[]>> storage = {});

  std::span<const Type> types() const { return types_; }
  const Type& type(TypeId t) const { return types_[t]; }
  std::span<const Field> fields(const Type& t) const {
    return std::span<const Field>(fields_).subspan(t.first_field, t.field_count);
  }
  // The field of `owner` with this name, or null.
  const Field* fieldNamed(const Type& owner, std::string_view name) const;
  // The same for the struct `t` names through typedefs; null when t is kNoType.
  const Field* fieldNamed(TypeId t, std::string_view name) const;
  // Follows typedefs to the type they name (stops at a cycle or kNoType).
  TypeId resolve(TypeId t) const;
  // The type whose DW_AT_go_runtime_type is exactly this value: pass the
  // type descriptor's offset from moduledata.types (see Type::runtime_type).
  TypeId typeByRuntimeAddress(uint64_t addr) const;
  // The type of this exact name (the first, when several compile units
  // define one).
  TypeId typeByName(std::string_view name) const;

  std::span<const GlobalVariable> globals() const { return globals_; }  // by address
  // The global whose [address, address + size) holds addr, or null.
  const GlobalVariable* globalAt(uint64_t addr) const;

  std::span<const Function> functions() const { return functions_; }  // by low_pc
  const Function* functionAt(uint64_t pc) const;
  std::span<const LocationRange> locations(const FrameVariable& v) const {
    return std::span<const LocationRange>(locations_).subspan(v.first_location, v.location_count);
  }
  std::span<const FrameVariable> variables(const Function& f) const {
    return std::span<const FrameVariable>(variables_).subspan(f.first_variable, f.variable_count);
  }

 private:
  friend class DebugInfoBuilder;
  std::vector<Type> types_;
  std::vector<Field> fields_;
  std::vector<GlobalVariable> globals_;
  std::vector<Function> functions_;
  std::vector<FrameVariable> variables_;
  std::vector<LocationRange> locations_;
  std::unordered_map<uint64_t, TypeId> by_runtime_type_;
  std::unordered_map<std::string_view, TypeId> by_name_;
  // Decompressed section bytes that names point into (heap blocks: they
  // stay put when the DebugInfo moves).
  std::vector<std::unique_ptr<uint8_t[]>> owned_;
};

}  // namespace goheap::bin
