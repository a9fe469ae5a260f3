#include "util/packed_column.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "util/large_vector.h"

namespace goheap {

bool PackedColumn::operator==(const PackedColumn& other) const {
  if (size() != other.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    if ((*this)[i] != other[i]) return false;
  }
  return true;
}

void PackedColumn::pack() {
  if (packed_ || plain_.empty()) return;
  const auto [lo, hi] = std::minmax_element(plain_.begin(), plain_.end());
  const uint64_t base = *lo;
  // The shift is the alignment all deltas share, at most 3: sizes and
  // addresses are multiples of 8, and a larger shift would rarely help.
  uint64_t bits = 0;
  for (uint64_t v : plain_) bits |= v - base;
  const auto shift = static_cast<uint8_t>(bits == 0 ? 0 : std::min(std::countr_zero(bits), 3));
  if (((*hi - base) >> shift) > UINT32_MAX) return;
  std::vector<uint32_t> deltas;
  resizeLarge(deltas, plain_.size());
  for (size_t i = 0; i < plain_.size(); ++i) {
    deltas[i] = static_cast<uint32_t>((plain_[i] - base) >> shift);
  }
  plain_ = Column<uint64_t>();
  deltas_ = std::move(deltas);
  base_ = base;
  shift_ = shift;
  packed_ = true;
}

void PackedColumn::unpack() {
  if (!packed_) return;
  std::vector<uint64_t> values;
  resizeLarge(values, deltas_.size());
  for (size_t i = 0; i < deltas_.size(); ++i) values[i] = (*this)[i];
  deltas_ = Column<uint32_t>();
  plain_ = std::move(values);
  packed_ = false;
  base_ = 0;
  shift_ = 0;
}

}  // namespace goheap
