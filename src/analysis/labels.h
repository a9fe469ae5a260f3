// How a person reads a node of the heap: an object by its name, a root by
// what it is, a global by its symbol, a word by its field. Every report
// (summary, dom, paths, obj, ...) and exporter names nodes this way.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/snapshot.h"

namespace goheap::analysis {

// A node as a person reads it: an object's name, or a root's description.
struct NodeLabel {
  NodeId node = kNoNode;
  std::string kind;        // "object", or a root kind ("goroutine", "stack frame", ...)
  std::string name;        // object: its group name; root: what it is
  std::string short_name;  // a root's name for narrow columns; empty if `name` is short
  std::string source;      // object: "site" / "closure" / "interface" / "shape"; root: empty
  // A typed object: how its type was found ("dwarf", "descriptor", "header",
  // "interface" or "inferred"); empty otherwise.
  std::string type_evidence;
  uint64_t address = 0;  // object address; 0 for roots
  // A data or bss root seen through one of its words, with the executable:
  // the global variable holding that word ("main.cache"), and the word's
  // offset within it.
  std::string global;
  uint64_t global_offset = 0;
};
NodeLabel labelNode(const Snapshot& s, NodeId n);
// The same, for the holder of the word at `slot_address`: a data or bss
// segment becomes the global variable there, when the executable names it.
NodeLabel labelHolder(const Snapshot& s, NodeId n, uint64_t slot_address);
// With DWARF types: what the word at `offset` (address `slot_address`) of
// node n is, as PathStep::field; empty when unknown or without types.
std::string slotField(const Snapshot& s, NodeId n, uint64_t offset, uint64_t slot_address);

}  // namespace goheap::analysis
