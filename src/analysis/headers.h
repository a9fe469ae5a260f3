// Every string, slice and map header in typed memory: the words that say
// where a string's bytes, a slice's array or a map's table are and how much
// of them is in use. `dups` reads strings and []byte through them, `waste`
// the part of an array no slice can see and the maps' fill. One pass over
// the typed heap objects and the typed globals (data and bss) with the
// executable's DWARF; stack frames are left out (their live words change
// from one PC to the next, and the typing pass already took what it could).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "bin/debug_info.h"

namespace goheap::analysis {

enum class HeaderKind : uint8_t { String, Slice, Map };

struct Header {
  NodeId holder = kNoNode;    // the object or data/bss segment holding the header
  uint64_t offset = 0;        // of the header in the holder's contents
  uint64_t slot_address = 0;  // of the header's first word
  HeaderKind kind = HeaderKind::String;
  uint64_t data = 0;                // the data pointer (a map: its header object's address)
  uint64_t len = 0;                 // strings and slices
  uint64_t cap = 0;                 // slices
  bin::TypeId elem = bin::kNoType;  // a slice's element; a map's type
  uint64_t elem_size = 0;           // a slice's element size; 1 for a string
  bool byte_elems = false;          // a []byte (element uint8)
};

// In holder order (objects by node id, then data, then bss), offsets rising.
// Empty without types. The objects are read on up to `threads` threads.
std::vector<Header> findHeaders(const Snapshot& s, unsigned threads = 2);

// The address of a pointer slot of `from` that points into object `target`,
// or 0: where a holder known only from the graph keeps its pointer.
uint64_t slotPointingInto(const Snapshot& s, NodeId from, NodeId target);

// A holder as a person reads it, one step up when it is an object: "global
// main.heads", "global main.nameCache → [591]string", "main.Cache →
// map[string]int". `slot_address`: the word in `holder` (0: unknown).
std::string describeHolder(const Snapshot& s, NodeId holder, uint64_t slot_address);

// A 64-bit hash of bytes, for grouping equal contents before comparing them.
uint64_t hashBytes(const uint8_t* p, uint64_t n);

}  // namespace goheap::analysis
