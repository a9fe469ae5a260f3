#include "dump/pointer_layouts.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace goheap::dump {
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

}  // namespace
}  // namespace goheap::dump
