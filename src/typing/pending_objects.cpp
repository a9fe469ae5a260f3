#include "typing/pending_objects.h"

#include <bit>

namespace goheap::typing {

PendingObjects::PendingObjects(size_t count) {
  size_t bits = count;
  do {
    const size_t words = (bits + 63) / 64;
    levels_.emplace_back(words, 0);
    bits = words;
  } while (bits > 64);
}

void PendingObjects::add(NodeId o) {
  if ((levels_.front()[o / 64] >> (o % 64) & 1) != 0) return;  // pending already
  pending_++;
  size_t bit = o;
  for (std::vector<uint64_t>& level : levels_) {
    uint64_t& word = level[bit / 64];
    const bool was_empty = word == 0;
    word |= uint64_t{1} << (bit % 64);
    if (!was_empty) return;  // the levels above know this word already
    bit /= 64;
  }
}

size_t PendingObjects::nextSet(size_t level, size_t bit) const {
  const std::vector<uint64_t>& words = levels_[level];
  size_t w = bit / 64;
  if (w >= words.size()) return kNone;
  const uint64_t here = words[w] & (~uint64_t{0} << (bit % 64));
  if (here != 0) return w * 64 + static_cast<size_t>(std::countr_zero(here));
  if (level + 1 < levels_.size()) {
    w = nextSet(level + 1, w + 1);
  } else {
    for (w++; w < words.size() && words[w] == 0; w++) {
    }
    if (w == words.size()) w = kNone;
  }
  if (w == kNone) return kNone;
  return w * 64 + static_cast<size_t>(std::countr_zero(words[w]));
}

NodeId PendingObjects::take() {
  size_t o = nextSet(0, position_);
  if (o == kNone) o = nextSet(0, 0);
  position_ = o + 1;
  pending_--;
  size_t bit = o;
  for (std::vector<uint64_t>& level : levels_) {
    uint64_t& word = level[bit / 64];
    word &= ~(uint64_t{1} << (bit % 64));
    if (word != 0) break;
    bit /= 64;
  }
  return static_cast<NodeId>(o);
}

}  // namespace goheap::typing
