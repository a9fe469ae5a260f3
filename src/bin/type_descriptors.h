// The program's types read from the runtime's own type descriptors
// (runtime._type, internal/abi.Type since Go 1.21, with their kind-specific
// tails), which every Go executable keeps, stripped or not, because
// reflection, interfaces and the garbage collector need them.
//
// The result is a bin::DebugInfo shaped as Go's DWARF is (docs/dwarf.md):
// the same names with full import paths ("map[string]*main.Session",
// "github.com/x/y.T"), kinds, sizes, struct fields with names and offsets,
// element and key types, and the runtime's map and channel internals that
// the linker synthesizes into DWARF (hash<K,V>, bucket<K,V>; map<K,V>,
// table<K,V>, groupReference<K,V>; hchan<T>), derived from the map and chan
// types as the runtime derives them. Each type's runtime_type is its
// descriptor's offset from moduledata.types, as DW_AT_go_runtime_type is.
//
// Why a DebugInfo built eagerly rather than a lazy interface both readers
// implement: the typing pass, the value printer and the core readers all
// take a DebugInfo and look types up by name, by runtime address and by id;
// a second implementation behind an interface would put a virtual call in
// the typing pass's inner loop and touch every reader, while building the
// same arrays once costs milliseconds (a few thousand descriptors). What is
// read is bounded by what the program references: the descriptors reachable
// from typelinks and itablinks (Go 1.16-1.26), every descriptor in
// [types, types + typedesclen) (Go 1.27, which drops those lists and gives
// descriptors a computable size), and the caller's roots (type words found
// in the heap: malloc headers, itabs, finalizers), with everything they
// reference.
//
// Every read is bounds-checked against the file; a corrupt descriptor ends
// that type (it stays unnamed or without fields), never the read.
#pragma once

#include <cstdint>
#include <span>

#include "bin/binary.h"
#include "bin/container.h"
#include "bin/debug_info.h"
#include "util/error.h"
#include "util/go_version.h"

namespace goheap::bin {

struct DescriptorCounts {
  uint64_t descriptors = 0;  // descriptors read
  uint64_t synthesized = 0;  // types made for DWARF's shape (hash<K,V>, *T of a slice, ...)
  uint64_t bad = 0;          // descriptors that did not validate
};

// Reads the descriptors of an executable of Go `version` (1.19 or later,
// with its experiments, which decide the map layout) whose module layout
// `m` gives types and etypes. `roots`: further
// link-time descriptor addresses to read. An Error when the layout has no
// type range or no descriptor could be read.
Expected<DebugInfo> readTypeDescriptors(const Container& c, const ModuleLayout& m,
                                        const GoVersion& version,
                                        std::span<const uint64_t> roots = {},
                                        DescriptorCounts* counts = nullptr);

}  // namespace goheap::bin
