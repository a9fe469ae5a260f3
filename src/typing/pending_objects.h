// The objects of one chunk of the heap (typing/heap_types.cpp) the typing
// pass has yet to scan, taken in address order.
//
// Objects are numbered in address order, so taking the lowest pending id at
// or after the last one taken sweeps the heap forward: a list allocated in
// order, or a slice's elements, is scanned front to back in one sweep, and
// the dump's bytes and the object columns are read mostly forward. A FIFO
// queue instead went breadth first, one list node of each of a thousand
// lists at a time, and waited on memory for nearly every object. What is
// added behind the sweep waits for the next one.
//
// An object added twice before it is taken is scanned once, with what it
// holds by then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/csr.h"

namespace goheap::typing {

class PendingObjects {
 public:
  // For ids below `count`.
  explicit PendingObjects(size_t count);

  void add(NodeId o);
  bool empty() const { return pending_ == 0; }
  size_t size() const { return pending_; }
  // The pending id at or after the sweep's position, or, when there is none,
  // the lowest pending id (a new sweep); no longer pending once taken.
  // Must not be called when empty().
  NodeId take();

 private:
  static constexpr size_t kNone = SIZE_MAX;
  // The first set bit at or after `bit` in level `level`, or kNone.
  size_t nextSet(size_t level, size_t bit) const;

  // levels_[0] has one bit per object; each level above has one bit per
  // word of the level below, set when that word is not zero, so that the
  // next pending object is found in a few words however sparse they are.
  std::vector<std::vector<uint64_t>> levels_;
  size_t pending_ = 0;
  size_t position_ = 0;  // the sweep's: one past the id last taken
};

}  // namespace goheap::typing
