#include "model/pointer_layouts.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace goheap::model {
namespace {

std::vector<uint64_t> slotsOf(const PointerLayouts& l, uint32_t k) {
  std::vector<uint64_t> out;
  l.forEachOffset(k, [&](uint64_t off) { out.push_back(off); });
  return out;
}

TEST(PointerLayouts, LayoutZeroIsEmpty) {
  PointerLayouts l;
  ASSERT_EQ(l.count(), 1u);
  EXPECT_TRUE(slotsOf(l, PointerLayouts::kNoPointers).empty());
  EXPECT_EQ(l.slotCount(PointerLayouts::kNoPointers), 0u);
  PointerLayoutBuilder b(l);
  EXPECT_EQ(b.add({}), PointerLayouts::kNoPointers);
  const std::vector<uint64_t> one{8};
  EXPECT_EQ(b.addRepeated(one, 8, 0), PointerLayouts::kNoPointers);
  EXPECT_EQ(b.addRepeated({}, 8, 5), PointerLayouts::kNoPointers);
  EXPECT_EQ(l.count(), 1u);
}

TEST(PointerLayouts, EqualListsShareOneLayout) {
  PointerLayouts l;
  PointerLayoutBuilder b(l);
  const std::vector<uint64_t> a{0, 8}, c{8, 0}, d{0, 8, 8};
  const uint32_t ka = b.add(a);
  EXPECT_EQ(b.add(a), ka);
  const uint32_t kc = b.add(c);  // the same words in another order: another layout
  const uint32_t kd = b.add(d);  // an interface's two words after a pointer at 8
  EXPECT_NE(kc, ka);
  EXPECT_NE(kd, ka);
  EXPECT_NE(kd, kc);
  EXPECT_EQ(l.count(), 4u);
  EXPECT_EQ(slotsOf(l, ka), a);
  EXPECT_EQ(slotsOf(l, kc), c);
  EXPECT_EQ(slotsOf(l, kd), d);
  EXPECT_EQ(l.begin.size(), l.count() + 1u);
  EXPECT_EQ(l.offsets.size(), a.size() + c.size() + d.size());
}

TEST(PointerLayouts, ArraysAreStoredAsOneElement) {
  PointerLayouts l;
  PointerLayoutBuilder b(l);
  // []struct{p *T; n int; q *T} of 1000 elements: slots 0, 16, 24, 40, ...
  std::vector<uint64_t> slots;
  for (uint64_t e = 0; e < 1000; e++) {
    slots.push_back(e * 24);
    slots.push_back(e * 24 + 16);
  }
  const uint32_t k = b.add(slots);
  EXPECT_EQ(slotsOf(l, k), slots);
  EXPECT_EQ(l.slotCount(k), slots.size());
  EXPECT_EQ(l.pattern(k).size(), 2u);
  EXPECT_EQ(l.stride[k], 24u);
  EXPECT_EQ(l.repeats[k], 1000u);
  // The same array written as its element repeated is the same layout.
  const std::vector<uint64_t> element{0, 16};
  EXPECT_EQ(b.addRepeated(element, 24, 1000), k);
  // One more element is another.
  EXPECT_NE(b.addRepeated(element, 24, 1001), k);
}

TEST(PointerLayouts, ListsThatAlmostRepeatAreKeptWhole) {
  PointerLayouts l;
  PointerLayoutBuilder b(l);
  std::vector<uint64_t> slots;
  for (uint64_t i = 0; i < 64; i++) slots.push_back(i * 8);
  slots.back() = 1000;  // the last slot breaks the pattern
  const uint32_t k = b.add(slots);
  EXPECT_EQ(slotsOf(l, k), slots);
  EXPECT_EQ(l.repeats[k], 1u);
  EXPECT_EQ(l.pattern(k).size(), slots.size());
}

TEST(PointerLayouts, AnyListComesBackExactly) {
  // Offsets from a corrupt source need not increase, and may wrap around
  // 2^64 when repeated; the stored layout must give the list back as it was.
  std::mt19937_64 rng(7);
  PointerLayouts l;
  PointerLayoutBuilder b(l);
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> added;
  for (int round = 0; round < 300; round++) {
    std::vector<uint64_t> slots;
    const size_t period = 1 + rng() % 5;
    const size_t n = period * (1 + rng() % 40) + (rng() % 4 == 0 ? rng() % 3 : 0);
    const uint64_t stride = rng() % 3 == 0 ? rng() : rng() % 64;
    std::vector<uint64_t> pattern(period);
    for (uint64_t& v : pattern) v = rng() % 2 == 0 ? rng() % 128 : rng();
    for (size_t i = 0; i < n; i++) slots.push_back(pattern[i % period] + (i / period) * stride);
    added.emplace_back(b.add(slots), slots);
  }
  for (const auto& [k, slots] : added) EXPECT_EQ(slotsOf(l, k), slots);
}

TEST(PointerLayouts, CopyGivesTheIdAddWould) {
  PointerLayouts first, second;
  PointerLayoutBuilder to_first(first), to_second(second);
  const std::vector<uint64_t> a{0}, c{0, 8, 16};
  std::vector<uint64_t> big;
  for (uint64_t i = 0; i < 100; i++) big.push_back(i * 8);
  const uint32_t first_a = to_first.add(a);
  const uint32_t second_big = to_second.add(big);
  const uint32_t second_c = to_second.add(c);
  const uint32_t second_a = to_second.add(a);
  EXPECT_EQ(to_first.copy(second, second_a), first_a);
  const uint32_t first_big = to_first.copy(second, second_big);
  EXPECT_EQ(to_first.add(big), first_big);
  EXPECT_EQ(slotsOf(first, first_big), big);
  EXPECT_EQ(to_first.copy(second, second_c), to_first.add(c));
  EXPECT_EQ(to_first.copy(second, PointerLayouts::kNoPointers), PointerLayouts::kNoPointers);
}

// addFrom reads a list slot by slot and holds a long one whole only when it
// does not repeat; its layout is the one add() gives the whole list.
TEST(PointerLayouts, ListsReadSlotBySlotGetTheIdsOfWholeLists) {
  std::vector<std::vector<uint64_t>> lists;
  auto arithmetic = [](size_t n, uint64_t step) {
    std::vector<uint64_t> v;
    for (size_t i = 0; i < n; i++) v.push_back(i * step);
    return v;
  };
  lists.push_back({});
  lists.push_back({8, 16});
  lists.push_back(arithmetic(1023, 8));
  lists.push_back(arithmetic(1024, 8));
  lists.push_back(arithmetic(100000, 8));  // a long slice of pointers
  std::vector<uint64_t> v = arithmetic(5000, 8);
  v[3000] = 1;  // breaks the pattern well after the head
  lists.push_back(v);
  v = arithmetic(5000, 8);
  v[1030] = 1;  // just after the head
  lists.push_back(v);
  v = arithmetic(5000, 8);
  v.push_back(7);  // one more slot at the end
  lists.push_back(v);
  v.clear();  // pairs 0, 16 repeated at 24, cut short by one slot
  for (uint64_t e = 0; e < 2000; e++) {
    v.push_back(e * 24);
    v.push_back(e * 24 + 16);
  }
  v.pop_back();
  lists.push_back(v);
  v = arithmetic(3000, 8);
  v[100] = 5;  // the head itself does not repeat
  lists.push_back(v);
  for (const std::vector<uint64_t>& list : lists) {
    SCOPED_TRACE(list.size());
    PointerLayouts whole, streamed;
    PointerLayoutBuilder to_whole(whole), to_streamed(streamed);
    size_t i = 0;
    bool ended = false;
    const uint32_t k = to_streamed.addFrom([&](uint64_t& slot) {
      EXPECT_FALSE(ended) << "read on after the end";
      if (i == list.size()) {
        ended = true;
        return false;
      }
      slot = list[i++];
      return true;
    });
    EXPECT_EQ(k, to_whole.add(list));
    EXPECT_EQ(slotsOf(streamed, k), list);
    EXPECT_EQ(streamed.offsets, whole.offsets);
    EXPECT_EQ(streamed.repeats, whole.repeats);
    EXPECT_EQ(streamed.stride, whole.stride);
  }
}

}  // namespace
}  // namespace goheap::model
