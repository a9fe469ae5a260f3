// Reading a typed object's fields: names from DWARF, values decoded from the
// dump's bytes (integers, floats, bools, strings, pointers with their
// target's type). What `goheap obj` shows and what `paths` names its steps
// with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bin/debug_info.h"
#include "binding/bound_executable.h"
#include "graph/heap.h"
#include "model/heap_model.h"
#include "typing/heap_types.h"

namespace goheap::typing {

struct FieldValue {
  std::string
      path;  // "In.Count", "Points[2].Y", "[3]" for an array element; "" for the value itself
  uint64_t offset = 0;     // in the object
  std::string type;        // "int", "*main.Node", "string"
  std::string value;       // "41", "0.25", "true", "embedded note", "0xc000012340"
  bool is_string = false;  // `value` is a string's contents (text output quotes it)
  uint64_t points_to = 0;  // a pointer's value, 0 otherwise
};

// The leaf fields of a typed object, in offset order, at most `limit`
// (arrays show their first elements). Empty for an untyped object.
std::vector<FieldValue> decodeFields(const model::HeapModel& model, const graph::Heap& heap,
                                     const HeapTypes& types, const bin::DebugInfo& dwarf,
                                     const binding::BoundExecutable& exe, NodeId object,
                                     size_t limit);

// The field path at `offset` in a value of type `t`: ".User.Tags",
// "[3].Next", "" at offset 0 of a type with no field there.
std::string fieldPathAt(const bin::DebugInfo& dwarf, bin::TypeId t, uint64_t offset,
                        uint32_t ptr_size);

// Where `offset` falls in a value of type `t`: the innermost field or
// array element holding it (through structs and arrays; a slice, string or
// interface header is innermost), and the offset within that.
struct InnermostValue {
  bin::TypeId type = bin::kNoType;
  uint64_t offset = 0;
};
InnermostValue innermostAt(const bin::DebugInfo& dwarf, bin::TypeId t, uint64_t offset,
                           uint32_t ptr_size);

// The value of a typed object holding `offset` (an array's element, past
// a malloc header): its type and the offset within it. None for an untyped
// object, a string's bytes, a closure, or an offset outside the values.
std::optional<InnermostValue> objectValueAt(const HeapTypes& types, const bin::DebugInfo& dwarf,
                                            NodeId object, uint64_t offset, uint32_t ptr_size);

// The same for an object: its typed layout (an array's element index too).
std::string objectFieldPath(const HeapTypes& types, const bin::DebugInfo& dwarf, NodeId object,
                            uint64_t offset, uint32_t ptr_size);

// objectFieldPath, except that a slot of a map's bucket (Go 1.19-1.23) or
// group (Go 1.24+) reads as the key it holds: `["s12"]`, `[42]`, then the
// path inside the value (`["s12"].User`); `["s12"] (key)` inside the key.
std::string slotPath(const model::HeapModel& model, const graph::Heap& heap, const HeapTypes& types,
                     const bin::DebugInfo& dwarf, const binding::BoundExecutable& exe,
                     NodeId object, uint64_t offset);

}  // namespace goheap::typing
