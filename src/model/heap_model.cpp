#include "model/heap_model.h"

#include "util/large_vector.h"

namespace goheap::model {

void OffsetColumn::widen() {
  wide_ = true;
  reserveLarge(high_, low_.capacity());
  high_.assign(low_.size(), 0);
}

void OffsetColumn::append(const uint32_t* low, const uint16_t* high, size_t n, bool any_high) {
  if (any_high && !wide_) widen();
  low_.insert(low_.end(), low, low + n);
  if (wide_) high_.insert(high_.end(), high, high + n);
}

void OffsetColumn::append(const OffsetColumn& from, size_t first, size_t count) {
  if (from.wide_ && !wide_) widen();
  const auto low = from.low_.begin() + static_cast<std::ptrdiff_t>(first);
  low_.insert(low_.end(), low, low + static_cast<std::ptrdiff_t>(count));
  if (!wide_) return;
  if (from.wide_) {
    const auto high = from.high_.begin() + static_cast<std::ptrdiff_t>(first);
    high_.insert(high_.end(), high, high + static_cast<std::ptrdiff_t>(count));
  } else {
    high_.resize(low_.size(), 0);
  }
}

void OffsetColumn::reserve(size_t n) {
  reserveLarge(low_, n);
  if (wide_) reserveLarge(high_, n);
}

}  // namespace goheap::model
