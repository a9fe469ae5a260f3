// Where the typing pass keeps each object's type while threads type the
// heap's chunks side by side (typing/heap_types.cpp).
//
// AssignmentTable holds the distinct TypeAssignments, numbered as threads
// first meet them; ObjectAssignments holds each object's number, in 2 bytes
// as HeapTypes does. The numbering depends on which thread got there first,
// so finishAssignments renumbers both by each assignment's first object:
// HeapTypes comes out the same whatever the thread count.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "graph/csr.h"
#include "typing/heap_types.h"

namespace goheap::typing {

struct AssignmentHash {
  size_t operator()(const TypeAssignment& a) const;
};

// Thread-safe: each call takes a lock. Threads keep their own copy of what
// they have seen (see Typer) and come here only for what is new to them.
class AssignmentTable {
 public:
  AssignmentTable();  // [0] is the untyped assignment
  // The number of `a`, added if new.
  uint32_t intern(const TypeAssignment& a);
  // Appends to `copy` the entries it lacks (copy is a prefix of the table).
  void extend(std::vector<TypeAssignment>& copy) const;
  // The entries, for finishAssignments; the table is then empty.
  std::vector<TypeAssignment> take();

 private:
  mutable std::mutex mutex_;
  std::vector<TypeAssignment> entries_;
  std::unordered_map<TypeAssignment, uint32_t, AssignmentHash> numbers_;
};

// Each object's assignment number. Objects are grouped in chunks of ids;
// threads write only the objects of the chunks they own
// at the time, so a number past 2 bytes (rare: it takes 65535 distinct
// assignments) goes into its chunk's own map, not a shared one.
class ObjectAssignments {
 public:
  // Chunks of 2^chunk_shift objects.
  ObjectAssignments(size_t objects, unsigned chunk_shift);

  uint32_t get(NodeId o) const {
    const uint16_t n = narrow_[o];
    return n != kEscaped ? n : escaped(o);
  }
  void set(NodeId o, uint32_t number) {
    if (number < kEscaped && narrow_[o] != kEscaped) {
      narrow_[o] = static_cast<uint16_t>(number);
    } else {
      setEscaped(o, number);
    }
  }
  size_t size() const { return narrow_.size(); }

  // HeapTypes::assignment and ::assignments, renumbered in the order of
  // each assignment's first object (the untyped one stays 0); assignments
  // no object holds any more are dropped. Both objects are spent.
  friend void finishAssignments(ObjectAssignments& objects, AssignmentTable& table, HeapTypes& out);

 private:
  static constexpr uint16_t kEscaped = UINT16_MAX;
  // Out of line, so that get() and set() inline where they are called.
  [[gnu::noinline]] uint32_t escaped(NodeId o) const;
  [[gnu::noinline]] void setEscaped(NodeId o, uint32_t number);

  unsigned chunk_shift_;
  std::vector<uint16_t> narrow_;
  std::vector<std::unordered_map<NodeId, uint32_t>> wide_;  // per chunk
};

void finishAssignments(ObjectAssignments& objects, AssignmentTable& table, HeapTypes& out);

}  // namespace goheap::typing
