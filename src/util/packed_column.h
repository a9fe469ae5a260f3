// A column of 64-bit values kept in 4 bytes each when the values allow it.
// Object addresses, object sizes and retained sizes are 64-bit, but within
// one heap they rarely need it: addresses lie in a range of a few GiB and
// are 8-byte aligned, sizes and their sums are multiples of 8. So once a
// column is complete, pack() stores each value as base + (delta << shift)
// with a 32-bit delta: 4 bytes instead of 8 for any heap below 32 GiB. A
// column whose values do not fit stays as it is.
//
// A column is built unpacked (unpacked() gives the plain values to append
// to, sort or permute) and packed when done; reading is the same either way.
#pragma once

#include <cassert>
#include <cstdint>
#include <span>
#include <vector>

#include "util/column.h"

namespace goheap {

// A PackedColumn's values by pointer: valid while the column is neither
// changed nor destroyed, and, like a span, unaffected by moving it.
class PackedView {
 public:
  PackedView() = default;
  PackedView(const uint32_t* deltas, uint64_t base, uint8_t shift, size_t size)
      : deltas_(deltas), base_(base), size_(size), shift_(shift) {}
  PackedView(const uint64_t* plain, size_t size) : plain_(plain), size_(size) {}
  // Implicit, as a span is from a vector.
  PackedView(std::span<const uint64_t> plain)  // NOLINT
      : plain_(plain.data()), size_(plain.size()) {}
  PackedView(const std::vector<uint64_t>& plain)  // NOLINT
      : plain_(plain.data()), size_(plain.size()) {}

  uint64_t operator[](size_t i) const {
    return plain_ == nullptr ? base_ + (uint64_t{deltas_[i]} << shift_) : plain_[i];
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  const uint64_t* plain_ = nullptr;
  const uint32_t* deltas_ = nullptr;
  uint64_t base_ = 0;
  size_t size_ = 0;
  uint8_t shift_ = 0;
};

class PackedColumn {
 public:
  PackedColumn() = default;
  // Implicit, like Column's, so that a builder's vector becomes a column.
  PackedColumn(Column<uint64_t> values) : plain_(std::move(values)) {}       // NOLINT
  PackedColumn(std::vector<uint64_t> values) : plain_(std::move(values)) {}  // NOLINT

  // base + (delta[i] << shift), as pack() made them (the index cache
  // keeps a packed column in this form).
  static PackedColumn fromPacked(uint64_t base, uint8_t shift, Column<uint32_t> deltas) {
    PackedColumn c;
    c.packed_ = true;
    c.base_ = base;
    c.shift_ = shift;
    c.deltas_ = std::move(deltas);
    return c;
  }

  uint64_t operator[](size_t i) const {
    return packed_ ? base_ + (uint64_t{deltas_[i]} << shift_) : plain_[i];
  }
  size_t size() const { return packed_ ? deltas_.size() : plain_.size(); }
  bool empty() const { return size() == 0; }
  uint64_t back() const { return (*this)[size() - 1]; }
  uint64_t front() const { return (*this)[0]; }
  // Anonymous memory held: 0 for a view of a file (Column::ownedBytes).
  uint64_t ownedBytes() const { return plain_.ownedBytes() + deltas_.ownedBytes(); }
  // The same values, however each is stored.
  bool operator==(const PackedColumn& other) const;

  // Every value, unpacked: a copy.
  std::vector<uint64_t> values() const {
    std::vector<uint64_t> out(size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i];
    return out;
  }

  PackedView view() const {
    return packed_ ? PackedView(deltas_.data(), base_, shift_, deltas_.size())
                   : PackedView(plain_.data(), plain_.size());
  }
  operator PackedView() const { return view(); }  // NOLINT: as a vector to a span

  bool packed() const { return packed_; }
  uint64_t base() const { return base_; }
  uint8_t shift() const { return shift_; }
  const Column<uint32_t>& deltas() const { return deltas_; }

  // The plain values, to build the column with; only while not packed.
  Column<uint64_t>& unpacked() {
    assert(!packed_);
    return plain_;
  }
  const Column<uint64_t>& unpacked() const {
    assert(!packed_);
    return plain_;
  }
  // Building, as on unpacked(); only while not packed.
  void push_back(uint64_t v) { unpacked().push_back(v); }
  void reserve(size_t n) { unpacked().reserve(n); }
  void append(const uint64_t* first, const uint64_t* last) {
    unpacked().insert(plain_.end(), first, last);
  }

  // Stores the values in 4 bytes each if they allow it (see the top); the
  // values read back unchanged either way.
  void pack();
  // Back to plain values, to build on.
  void unpack();

 private:
  bool packed_ = false;
  uint8_t shift_ = 0;
  uint64_t base_ = 0;
  Column<uint64_t> plain_;   // unpacked
  Column<uint32_t> deltas_;  // packed
};

}  // namespace goheap
