// Where pointers are in memory the model holds: per object, frame or
// segment, the byte offsets of its words that may hold a pointer, in the
// order the source listed them. Objects of one type share one layout, so
// each distinct layout is stored once, as columns, and an object carries only
// its layout's id (Objects::layout).
//
// A layout is a pattern of offsets repeated `repeats` times, `stride` bytes
// apart: the slots are pattern[j] + r * stride for r in [0, repeats), j in
// pattern order. Most layouts are one pattern (repeats 1); an array's is its
// element's pattern repeated, however long the array, and so costs the
// memory of one element.
//
// A reader fills the columns through PointerLayoutBuilder. Nothing here
// knows what the source of the layouts was (a heap dump's field lists, or
// a core file's GC bitmaps).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace goheap::model {

class PointerLayouts {
 public:
  // Layout 0 is always the empty one: no pointer slots.
  static constexpr uint32_t kNoPointers = 0;

  PointerLayouts() : begin{0, 0}, stride{0}, repeats{0} {}

  uint32_t count() const { return static_cast<uint32_t>(stride.size()); }
  // One pattern of layout k (its first repetition).
  std::span<const uint64_t> pattern(uint32_t k) const {
    return std::span<const uint64_t>(offsets).subspan(begin[k], begin[k + 1] - begin[k]);
  }
  // Slots over all repetitions.
  uint64_t slotCount(uint32_t k) const { return (begin[k + 1] - begin[k]) * repeats[k]; }

  // Calls fn(offset) for every slot of layout k, in order.
  template <class Fn>
  void forEachOffset(uint32_t k, Fn&& fn) const {
    const uint64_t* const first = offsets.data() + begin[k];
    const uint64_t* const last = offsets.data() + begin[k + 1];
    const uint64_t n = repeats[k];
    if (n == 1) {
      for (const uint64_t* p = first; p != last; ++p) fn(*p);
      return;
    }
    uint64_t base = 0;
    for (uint64_t r = 0; r < n; r++, base += stride[k]) {
      for (const uint64_t* p = first; p != last; ++p) fn(base + *p);
    }
  }

  // The columns, one entry per layout (begin: one more): layout k's pattern
  // is offsets[begin[k], begin[k + 1]).
  std::vector<uint64_t> begin;
  std::vector<uint64_t> offsets;  // bytes from the start of the object's contents
  std::vector<uint64_t> stride;   // 0 when repeats <= 1
  std::vector<uint64_t> repeats;  // 0 only for layout 0
};

// Appends layouts to a PointerLayouts, giving equal ones one id. Lives as
// long as a reader fills the model.
class PointerLayoutBuilder {
 public:
  explicit PointerLayoutBuilder(PointerLayouts& out) : out_(out) {}

  // The layout whose slots are `slots`, in that order. A long list that
  // repeats one pattern at a fixed stride (an array) is stored as the
  // pattern once. Equal lists get one id; an empty list is kNoPointers.
  uint32_t add(std::span<const uint64_t> slots);
  // The same for a list read one slot at a time: next(slot) stores the
  // next slot and returns true, or returns false at the list's end. A long
  // list that repeats one pattern is never held whole (a slice of 10^8
  // pointers must not cost a transient copy of them all).
  template <class Next>
  uint32_t addFrom(Next&& next);
  // `pattern` shifted by r * stride for r in [0, repeats), as one layout.
  uint32_t addRepeated(std::span<const uint64_t> pattern, uint64_t stride, uint64_t repeats);
  // Layout k of another set of layouts (a second thread's), as a layout of
  // this one: the id add() would give for the same slots.
  uint32_t copy(const PointerLayouts& from, uint32_t k);

 private:
  uint32_t intern(std::span<const uint64_t> pattern, uint64_t stride, uint64_t repeats);
  // The shortest pattern that `head`, the start of a longer list, repeats;
  // 0 if none.
  static size_t leadingPattern(std::span<const uint64_t> head);
  // Slots held before a list is known to repeat a pattern: more than twice
  // the longest pattern.
  static constexpr size_t kHeadSlots = 1024;

  PointerLayouts& out_;
  // By hash of (pattern, stride, repeats): the newest layout with it, and
  // from each layout the one before it with the same hash.
  std::unordered_map<uint64_t, uint32_t> newest_;
  std::vector<uint32_t> older_;
  std::vector<uint64_t> slots_;  // addFrom's
};

template <class Next>
uint32_t PointerLayoutBuilder::addFrom(Next&& next) {
  std::vector<uint64_t>& slots = slots_;
  slots.clear();
  uint64_t v = 0;
  while (slots.size() < kHeadSlots && next(v)) slots.push_back(v);
  if (slots.size() < kHeadSlots) return add(slots);
  // A long list: if it goes on with the pattern its head repeats, only the
  // head is kept. add() finds the same pattern then, as no shorter one fits
  // the head; otherwise add() gets the whole list, as it would have.
  const size_t p = leadingPattern(slots);
  uint64_t n = slots.size();
  bool more = next(v);
  if (p != 0) {
    const uint64_t stride = slots[p] - slots[0];
    auto expected = [&](uint64_t i) { return slots[i % p] + i / p * stride; };
    for (; more && v == expected(n); more = next(v)) n++;
    if (!more && n % p == 0) return addRepeated(std::span(slots).first(p), stride, n / p);
    // Not the pattern after all: the list in full, for add().
    for (uint64_t i = slots.size(); i < n; i++) slots.push_back(expected(i));
  }
  for (; more; more = next(v)) slots.push_back(v);
  return add(slots);
}

}  // namespace goheap::model
