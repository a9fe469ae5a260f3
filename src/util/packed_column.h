// A column of integers kept in half their width when the values allow it.
// Object addresses, object sizes and retained sizes are 64-bit, but within
// one heap they rarely need it: addresses lie in a range of a few GiB and
// are 8-byte aligned, sizes and their sums are multiples of 8. Ids (pointer
// layouts, type assignments) are 32-bit, but a heap has few distinct ones.
// So once a column is complete, pack() stores each value as
// base + (delta << shift) with a delta of half the width and the shift the
// values' common alignment (at most 3 bits): 4 bytes instead of 8 for any
// heap below 32 GiB, 2 instead of 4 for fewer than 65536 ids. A column
// whose values do not fit stays as it is.
//
// A column is built unpacked (unpacked() gives the plain values to append
// to, sort or permute) and packed when done; reading is the same either way.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "util/column.h"
#include "util/large_vector.h"

// operator[] sits in every loop over the objects; GCC left it out of line in
// some (countObjects, the cache's checks), which cost a third of a cache hit.
#if defined(__GNUC__) || defined(__clang__)
#define GOHEAP_PACKED_INLINE __attribute__((always_inline))
#else
#define GOHEAP_PACKED_INLINE
#endif

namespace goheap {

// A packed column's values by pointer: valid while the column is neither
// changed nor destroyed, and, like a span, unaffected by moving it.
template <class Value, class Delta>
class BasicPackedView {
 public:
  BasicPackedView() = default;
  BasicPackedView(const Delta* deltas, Value base, uint8_t shift, size_t size)
      : deltas_(deltas), base_(base), size_(size), shift_(shift) {}
  BasicPackedView(const Value* plain, size_t size) : plain_(plain), size_(size) {}
  // Implicit, as a span is from a vector.
  BasicPackedView(std::span<const Value> plain)  // NOLINT
      : plain_(plain.data()), size_(plain.size()) {}
  BasicPackedView(const std::vector<Value>& plain)  // NOLINT
      : plain_(plain.data()), size_(plain.size()) {}

  GOHEAP_PACKED_INLINE Value operator[](size_t i) const {
    return plain_ == nullptr ? static_cast<Value>(base_ + (Value{deltas_[i]} << shift_))
                             : plain_[i];
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  const Value* plain_ = nullptr;
  const Delta* deltas_ = nullptr;
  Value base_ = 0;
  size_t size_ = 0;
  uint8_t shift_ = 0;
};

template <class Value, class Delta>
class BasicPackedColumn {
  static_assert(sizeof(Delta) * 2 == sizeof(Value), "a delta is half a value");

 public:
  using View = BasicPackedView<Value, Delta>;

  BasicPackedColumn() = default;
  // Implicit, like Column's, so that a builder's vector becomes a column.
  BasicPackedColumn(Column<Value> values) : plain_(std::move(values)) {}       // NOLINT
  BasicPackedColumn(std::vector<Value> values) : plain_(std::move(values)) {}  // NOLINT

  // base + (delta[i] << shift), as pack() made them (the index cache keeps
  // a packed column in this form).
  static BasicPackedColumn fromPacked(Value base, uint8_t shift, Column<Delta> deltas) {
    BasicPackedColumn c;
    c.packed_ = true;
    c.base_ = base;
    c.shift_ = shift;
    c.deltas_ = std::move(deltas);
    return c;
  }

  GOHEAP_PACKED_INLINE Value operator[](size_t i) const {
    return packed_ ? static_cast<Value>(base_ + (Value{deltas_[i]} << shift_)) : plain_[i];
  }
  size_t size() const { return packed_ ? deltas_.size() : plain_.size(); }
  bool empty() const { return size() == 0; }
  Value back() const { return (*this)[size() - 1]; }
  Value front() const { return (*this)[0]; }
  // Anonymous memory held: 0 for a view of a file (Column::ownedBytes).
  uint64_t ownedBytes() const { return plain_.ownedBytes() + deltas_.ownedBytes(); }
  // The same values, however each is stored.
  bool operator==(const BasicPackedColumn& other) const {
    if (size() != other.size()) return false;
    for (size_t i = 0; i < size(); ++i) {
      if ((*this)[i] != other[i]) return false;
    }
    return true;
  }
  // Every value, unpacked: a copy.
  std::vector<Value> values() const {
    std::vector<Value> out(size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i];
    return out;
  }

  View view() const {
    return packed_ ? View(deltas_.data(), base_, shift_, deltas_.size())
                   : View(plain_.data(), plain_.size());
  }
  operator View() const { return view(); }  // NOLINT: as a vector to a span

  bool packed() const { return packed_; }
  Value base() const { return base_; }
  uint8_t shift() const { return shift_; }
  const Column<Delta>& deltas() const { return deltas_; }

  // The plain values, to build the column with; only while not packed.
  Column<Value>& unpacked() {
    assert(!packed_);
    return plain_;
  }
  const Column<Value>& unpacked() const {
    assert(!packed_);
    return plain_;
  }
  // Building, as on unpacked(); only while not packed.
  void push_back(Value v) { unpacked().push_back(v); }
  void reserve(size_t n) { unpacked().reserve(n); }
  void append(const Value* first, const Value* last) {
    unpacked().insert(plain_.end(), first, last);
  }

  // Stores the values in half the width if they allow it (see the top); the
  // values read back unchanged either way.
  void pack() {
    if (packed_ || plain_.empty()) return;
    const auto [lo, hi] = std::minmax_element(plain_.begin(), plain_.end());
    const Value base = *lo;
    Value bits = 0;
    for (Value v : plain_) bits |= static_cast<Value>(v - base);
    const auto shift = static_cast<uint8_t>(bits == 0 ? 0 : std::min(std::countr_zero(bits), 3));
    if (static_cast<Value>(*hi - base) >> shift > std::numeric_limits<Delta>::max()) return;
    std::vector<Delta> deltas;
    resizeLarge(deltas, plain_.size());
    for (size_t i = 0; i < plain_.size(); ++i) {
      deltas[i] = static_cast<Delta>(static_cast<Value>(plain_[i] - base) >> shift);
    }
    plain_ = Column<Value>();
    deltas_ = std::move(deltas);
    base_ = base;
    shift_ = shift;
    packed_ = true;
  }
  // Back to plain values, to build on.
  void unpack() {
    if (!packed_) return;
    std::vector<Value> plain;
    resizeLarge(plain, deltas_.size());
    for (size_t i = 0; i < deltas_.size(); ++i) plain[i] = (*this)[i];
    deltas_ = Column<Delta>();
    plain_ = std::move(plain);
    packed_ = false;
    base_ = 0;
    shift_ = 0;
  }

 private:
  bool packed_ = false;
  uint8_t shift_ = 0;
  Value base_ = 0;
  Column<Value> plain_;   // unpacked
  Column<Delta> deltas_;  // packed
};

// 64-bit values (addresses, sizes) in 4 bytes each.
using PackedColumn = BasicPackedColumn<uint64_t, uint32_t>;
using PackedView = PackedColumn::View;
// 32-bit ids in 2 bytes each.
using PackedIds = BasicPackedColumn<uint32_t, uint16_t>;

}  // namespace goheap
