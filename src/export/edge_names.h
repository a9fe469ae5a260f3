// What the formats that label references call them: the field, global
// variable or local a pointer is in (with the executable's DWARF), else its
// byte offset in the holder. Shared by the Chrome and Dart heap snapshot
// writers, so both name a reference alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/snapshot.h"

namespace goheap::exporting {

// A reference's label: a name, or (is_index) an element index.
struct SlotName {
  std::string name;
  bool is_index = false;
  uint64_t index = 0;
};

// One of a node's successors, labelled by the first slot pointing at it.
struct NamedEdge {
  NodeId target = kNoNode;
  SlotName label;
};

// Array elements past this index are labelled by their index alone, even
// when the pointer is a field inside the element ("[300].Next" becomes
// element 300): the formats keep one string per distinct label, and a big
// array of structs must not add a label per element.
constexpr uint64_t kMaxNamedElement = 256;

class EdgeNamer {
 public:
  explicit EdgeNamer(const analysis::Snapshot& s) : s_(s) {}

  // The label of the pointer slot at `offset` (address `slot_address`) of
  // node n, which has contents (object, frame, data or bss segment).
  SlotName slotName(NodeId n, uint64_t offset, uint64_t slot_address) const;

  // n's successors, in heap.successors order (the graph's deduplicated
  // targets), each labelled by the first slot that points at it; edges with
  // no slot (from the super-root, goroutines, finalizers...) are elements
  // numbered by their position. The vector is reused between calls.
  const std::vector<NamedEdge>& edges(NodeId n);

 private:
  const analysis::Snapshot& s_;
  std::vector<NamedEdge> edges_;
  std::vector<std::optional<std::pair<uint64_t, uint64_t>>> first_slot_;  // (offset, address)
};

}  // namespace goheap::exporting
