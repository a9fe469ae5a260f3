// What a stripped executable's code says its globals hold.
//
// Without DWARF or a symbol table a global has no type, and the object it
// points at is typed only if something else names it. The code that fills a
// global still does: Go passes a type descriptor to every allocation and
// every map operation, so `grid = new([16]int64)` compiles to
//
//   LEAQ  type:[16]int64(SB), AX
//   CALL  runtime.newobject(SB)
//   MOVQ  AX, main.grid(SB)
//
// and `sets[k] = v` loads the global beside its map type:
//
//   MOVQ  main.sets(SB), BX
//   LEAQ  type:map[int64]struct {}(SB), AX
//   CALL  runtime.mapassign_fast64(SB)
//
// findGlobalStores follows registers (and stack slots) through each function
// that names one of the globals asked about, from type descriptor to
// allocation to store, and reports what each global word is seen to hold.
// It is a linear pass over the instructions, not a data-flow analysis: a
// register keeps its value across a branch. That suffices for the code the
// Go compiler emits for these sequences, and the typing pass (which takes
// these as inferences, never as facts) checks each one against the object's
// size and pointer words before it believes it.
//
// Only amd64 code is decoded (with Capstone); other architectures give no
// results.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bin/binary.h"

namespace goheap::bin {

// What a global word was seen holding.
enum class StoredValue : uint8_t {
  NewObject,  // a pointer to a new T: runtime.newobject(T)
  NewArray,   // a slice's data pointer to an array of T: makeslice(T), growslice(T)
  Value,      // a value of the pointer-shaped type T itself (a map, chan or pointer):
              // makemap(T), makechan(T), or read beside T's descriptor as an
              // interface's two words or a map operation's two arguments
  Receiver,   // the global is a T: its address is the receiver of T's
              // pointer methods (`LEAQ G, AX; CALL sync.(*Map).Load`); T by
              // name only (type_name), as the method's name gives it
};

struct GlobalStore {
  uint64_t global = 0;  // link-time address of the word
  uint64_t type = 0;    // link-time address of T's type descriptor (0 for Receiver)
  StoredValue what = StoredValue::NewObject;
  std::string type_name;  // Receiver: "sync.Map"

  bool operator==(const GlobalStore&) const = default;
};

constexpr uint64_t kReceiverReach = 512;

struct GlobalStoreCounts {
  uint64_t functions = 0;     // functions decoded
  uint64_t instructions = 0;  // instructions decoded
};

// What the code says about the words at the link-time addresses `globals`
// (sorted) in `exe`'s data and bss: every (global, type, what) seen, sorted
// and without repeats; a global seen with different types is reported with
// each, for the caller to judge. Receiver sightings are of the struct
// holding such a word (at most kReceiverReach bytes before it). Empty for executables of other
// architectures than amd64, or without a module layout.
std::vector<GlobalStore> findGlobalStores(const Binary& exe, std::span<const uint64_t> globals,
                                          GlobalStoreCounts* counts = nullptr);

// What a call to one of the runtime's allocators makes.
enum class Allocated : uint8_t {
  Object,       // one T: newobject, and Go 1.27's size-specialized mallocs
  Array,        // an array of T: makeslice, growslice
  Header,       // the runtime's header of a map or chan of type T: makemap, makechan
  StringBytes,  // a string's bytes: concatenation and conversions (no type)
};

// A call to one of the runtime's allocators, and the type it was passed.
struct AllocationCall {
  uint64_t return_pc = 0;  // link-time: the PC a stack trace of the allocation records
  uint64_t type = 0;       // link-time address of T's type descriptor; 0 for strings
  Allocated what = Allocated::Object;
  std::string_view callee;  // "runtime.newobject", "runtime.makeslice", ...

  bool operator==(const AllocationCall&) const = default;
};

// Every call in function `f` that allocates a typed value (with the type
// descriptor the code loads for it) or a string's bytes, in address
// order: what an allocation stack's frame in `f` may have made. Empty off
// amd64.
std::vector<AllocationCall> findAllocationCalls(const Binary& exe, const Func& f);

// What a stack slot of a function holds when a call returns, by the code
// that filled it: a new value from an allocator, or from a call that
// returns one.
struct StackSlotValue {
  uint64_t return_pc = 0;  // link-time
  int64_t sp_offset = 0;   // of the slot from the frame's SP
  uint64_t type = 0;       // link-time address of T's type descriptor
  Allocated what = Allocated::Object;

  bool operator==(const StackSlotValue&) const = default;
};

// For each of `return_pcs` (sorted, link-time return addresses in `f`):
// the stack slots of `f`'s frame whose contents the code at that point
// knows, as a stripped executable's frames are typed. Empty off amd64.
std::vector<StackSlotValue> findStackSlotValues(const Binary& exe, const Func& f,
                                                std::span<const uint64_t> return_pcs);

// The global whose address the code passes as the receiver (in AX) to the
// functions whose names start with `method_prefix`
// ("runtime.(*gcControllerState)."): its link-time address, when at least
// two calls show one and every call that shows one agrees. nullopt
// otherwise, and for other architectures than amd64.
std::optional<uint64_t> findReceiverGlobal(const Binary& exe, std::string_view method_prefix,
                                           GlobalStoreCounts* counts = nullptr);

// The one global (data, bss or their pointer-free twins) that every
// function named in `functions` refers to (loads, stores or takes the
// address of): runtime.mbuckets is the only global runtime.iterate_memprof,
// runtime.mProf_FlushLocked and runtime.stkbucket all name. nullopt when a
// function is missing, or none or several are common; amd64 only.
std::optional<uint64_t> findGlobalNamedByAll(const Binary& exe,
                                             std::span<const std::string_view> functions);

}  // namespace goheap::bin
