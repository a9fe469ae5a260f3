#include "model/pointer_layouts.h"

#include <algorithm>

namespace goheap::model {

namespace {

// Lists shorter than this are kept as they are: looking for a pattern in
// them saves little. An array of pointers longer than this is found whatever
// its length.
constexpr size_t kMinRepeatedSlots = 16;
// The longest pattern looked for, in slots: an array element with more
// pointer words than this is stored slot by slot.
constexpr size_t kMaxPatternSlots = 256;

uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

uint64_t hashLayout(std::span<const uint64_t> pattern, uint64_t stride, uint64_t repeats) {
  uint64_t h = mix(0x9e3779b97f4a7c15ull, pattern.size());
  h = mix(h, stride);
  h = mix(h, repeats);
  for (uint64_t v : pattern) h = mix(h, v);
  return h;
}

// Whether the slots are their first p repeated at a fixed stride (the last
// repetition may be cut short). Arithmetic is modulo 2^64, so that the
// pattern gives back exactly the list whatever the offsets are.
bool repeatsEvery(std::span<const uint64_t> slots, size_t p) {
  const uint64_t stride = slots[p] - slots[0];
  size_t i = 0;
  while (i + p < slots.size() && slots[i + p] - slots[i] == stride) i++;
  return i + p == slots.size();
}

// The shortest p (up to kMaxPatternSlots, dividing the list's length) such
// that the list is its first p slots repeated; the list's length when there
// is none.
size_t patternLength(std::span<const uint64_t> slots) {
  const size_t n = slots.size();
  if (n < kMinRepeatedSlots) return n;
  for (size_t p = 1; p <= kMaxPatternSlots && 2 * p <= n; p++) {
    if (n % p == 0 && repeatsEvery(slots, p)) return p;
  }
  return n;
}

}  // namespace

size_t PointerLayoutBuilder::leadingPattern(std::span<const uint64_t> head) {
  static_assert(kHeadSlots >= 2 * kMaxPatternSlots && kHeadSlots >= kMinRepeatedSlots);
  for (size_t p = 1; p <= kMaxPatternSlots; p++) {
    if (repeatsEvery(head, p)) return p;
  }
  return 0;
}

uint32_t PointerLayoutBuilder::add(std::span<const uint64_t> slots) {
  const size_t p = patternLength(slots);
  if (p == slots.size()) return addRepeated(slots, 0, 1);
  return addRepeated(slots.first(p), slots[p] - slots[0], slots.size() / p);
}

uint32_t PointerLayoutBuilder::addRepeated(std::span<const uint64_t> pattern, uint64_t stride,
                                           uint64_t repeats) {
  if (pattern.empty() || repeats == 0) return PointerLayouts::kNoPointers;
  if (repeats == 1) stride = 0;
  return intern(pattern, stride, repeats);
}

uint32_t PointerLayoutBuilder::copy(const PointerLayouts& from, uint32_t k) {
  if (k == PointerLayouts::kNoPointers) return PointerLayouts::kNoPointers;
  return intern(from.pattern(k), from.stride[k], from.repeats[k]);
}

uint32_t PointerLayoutBuilder::intern(std::span<const uint64_t> pattern, uint64_t stride,
                                      uint64_t repeats) {
  const uint64_t h = hashLayout(pattern, stride, repeats);
  auto [it, inserted] = newest_.try_emplace(h, 0);
  if (!inserted) {
    for (uint32_t k = it->second; k != PointerLayouts::kNoPointers; k = older_[k]) {
      const std::span<const uint64_t> other = out_.pattern(k);
      if (out_.stride[k] == stride && out_.repeats[k] == repeats &&
          std::equal(other.begin(), other.end(), pattern.begin(), pattern.end())) {
        return k;
      }
    }
  }
  const uint32_t k = out_.count();
  out_.offsets.insert(out_.offsets.end(), pattern.begin(), pattern.end());
  out_.begin.push_back(out_.offsets.size());
  out_.stride.push_back(stride);
  out_.repeats.push_back(repeats);
  older_.resize(k + 1, PointerLayouts::kNoPointers);
  older_[k] = inserted ? PointerLayouts::kNoPointers : it->second;
  it->second = k;
  return k;
}

}  // namespace goheap::model
