// Types for heap objects from the executable's DWARF: the garbage collector's
// view of the heap, rebuilt. Typed roots (global variables, frame locals and
// parameters, finalizer and panic values, the malloc header of large objects
// since Go 1.22) are read with their static types; every pointer they hold
// types its target, and typing spreads along pointers through structs,
// arrays, slices (a backing array is [cap]T), strings, interfaces (through
// the type word or itab to the dynamic type), maps (the runtime's hash and
// bucket types up to Go 1.23, map/table/group since the Swiss tables of Go
// 1.24) and channels (hchan and its buffer).
//
// An object reached at its start as different types keeps the typing that
// covers most of it; disagreements are counted in `conflicts`, not hidden.
// Objects no typed pointer reaches stay untyped and keep the core engine's
// names (allocation site, interface type, shape).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "bin/debug_info.h"
#include "binding/bound_executable.h"
#include "graph/heap.h"
#include "model/heap_model.h"
#include "util/column.h"
#include "util/packed_column.h"

namespace goheap::typing {

// What an object holds, beyond a DWARF type.
enum class TypeForm : uint8_t {
  None,         // untyped
  Value,        // one value of `layout`
  Array,        // `count` values of `layout` ([count]T)
  StringBytes,  // the bytes of one or more strings
  Closure,      // a func value's context: code pointer, then captured variables
};

// How an object's type was found, as the JSON's type_evidence reports it.
// Types spread along pointers keep the evidence of the table (Table) unless
// they spread from an inferred object, which makes them inferred too.
enum class TypeEvidence : uint8_t {
  Table,      // a typed root or pointer: "dwarf" or "descriptor", by the table
  Header,     // the object's malloc header (or a finalizer's record) names it
  Interface,  // an interface's type word or itab names its data word's target
  Inferred,   // its size and pointer mask fit one type only: a guess
  // Its allocation site: the memory profile sampled it, and the call at
  // that line passed the type to the allocator (or made a string there).
  AllocationSite,
};
std::string_view typeEvidenceName(TypeEvidence e, bool dwarf);

// How one object is typed. Few of these differ in a heap (a type, an array
// length, a header), so objects share them: each object holds the index of
// its assignment (HeapTypes::assignment), 4 bytes instead of these 16.
struct TypeAssignment {
  bin::TypeId layout = bin::kNoType;  // the type the bytes are read as
  bin::TypeId shown = bin::kNoType;   // the type whose name is shown (a map's
                                      // typedef for its header, say)
  uint32_t count = 0;                 // elements, for TypeForm::Array
  TypeForm form = TypeForm::None;
  uint8_t data_offset = 0;  // bytes before the value: a malloc header
  // The count was guessed from the slot size, not read from a slice's
  // capacity; a capacity seen later replaces it.
  uint8_t count_guessed = 0;
  TypeEvidence evidence = TypeEvidence::Table;

  bool operator==(const TypeAssignment&) const = default;
};

struct HeapTypes {
  // Per object (NodeId), dense: an index into `assignments` (2 bytes an
  // object while there are fewer than 65536 assignments).
  PackedIds assignment;
  // Distinct assignments; [0] is the untyped one with no header.
  Column<TypeAssignment> assignments;

  uint64_t typed_objects = 0;
  uint64_t conflicts = 0;  // an object reached at its start as incompatible types
  uint64_t typed_from_roots = 0, typed_from_headers = 0;
  uint64_t inferred_objects = 0;  // typed by inferByShape, before spreading

  const TypeAssignment& of(NodeId o) const { return assignments[assignment[o]]; }
  bin::TypeId layout(NodeId o) const { return of(o).layout; }
  bin::TypeId shown(NodeId o) const { return of(o).shown; }
  uint32_t count(NodeId o) const { return of(o).count; }
  TypeForm form(NodeId o) const { return of(o).form; }
  uint8_t dataOffset(NodeId o) const { return of(o).data_offset; }
  TypeEvidence evidence(NodeId o) const { return of(o).evidence; }
  bool inferred(NodeId o) const { return typed(o) && evidence(o) == TypeEvidence::Inferred; }
  bool typed(NodeId o) const { return form(o) != TypeForm::None; }
  size_t objectCount() const { return assignment.size(); }
};

struct TypingOptions {
  unsigned threads = 1;
  // When set, how many of those threads the pass may use at this moment
  // (another phase may hold the rest for a while); read at every round.
  const std::atomic<unsigned>* threads_now = nullptr;
  // The heap is typed in chunks of this many objects (rounded up to a power
  // of 2), each on one thread at a time. The types depend on this size,
  // never on the threads; a heap of one chunk is typed in one serial sweep.
  size_t objects_per_chunk = size_t{1} << 16;
  // Chunks are scanned in waves of up to this many consecutive ones (see
  // TypingRounds): the most threads one wave can use.
  size_t chunks_per_wave = 16;
  // A round with fewer objects to scan, or fewer assignments to apply, runs
  // on one thread: waking the others would cost more. Tests lower it.
  size_t fewest_to_share = 4096;
  // When set, how the pass ran: its rounds, and those run on more than
  // one thread.
  struct Rounds {
    uint64_t rounds = 0, shared = 0;
  }* rounds = nullptr;
};

// Runs the typing pass over `table`: exe.typeTable(), the executable's DWARF
// or its runtime type descriptors.
HeapTypes typeHeap(const model::HeapModel& model, const graph::Heap& heap,
                   const binding::BoundExecutable& exe, const bin::DebugInfo& dwarf,
                   const TypingOptions& options = {});

// "main.Session", "[8]main.Point", "map[string]int", "string",
// "closure main.worker.func1"; empty for an untyped object.
std::string typeName(const HeapTypes& t, NodeId o, const bin::DebugInfo& dwarf,
                     const binding::BoundExecutable& exe, const model::HeapModel& model);

// Go's kind of a DWARF type: its DW_AT_go_kind, else (the runtime's
// synthesized types carry none) what its tag says, through typedefs.
bin::GoKind goKind(const bin::DebugInfo& dwarf, bin::TypeId t);

// The size of a value of type t: DW_AT_byte_size, except that Go writes
// none for pointer types, which are a word.
uint64_t typeSize(const bin::DebugInfo& dwarf, bin::TypeId t, uint32_t ptr_size);

// A DWARF type's name as a Go programmer writes it: the runtime's
// synthesized map and channel types ("hash<string,int>", "map<K,V>",
// "hchan<int>", "noalg.map.group[K]V") become "map[string]int",
// "chan int", "map.group[K]V".
std::string goTypeName(std::string_view dwarf_name);

}  // namespace goheap::typing
