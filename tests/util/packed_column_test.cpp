#include "util/packed_column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace goheap {
namespace {

PackedColumn packedFrom(const std::vector<uint64_t>& values) {
  PackedColumn c(values);
  c.pack();
  return c;
}

TEST(PackedColumn, AlignedAddressesTakeFourBytesAndReadBackUnchanged) {
  // A heap's object addresses: 8-byte aligned, spread over 20 GiB, above
  // the 4 GiB a plain u32 could hold.
  std::mt19937_64 rng(7);
  std::vector<uint64_t> addr;
  for (int i = 0; i < 10000; i++) addr.push_back(0xc000000000 + (rng() % (20ull << 30)) / 8 * 8);
  const PackedColumn c = packedFrom(addr);
  ASSERT_TRUE(c.packed());
  EXPECT_EQ(c.shift(), 3);
  EXPECT_EQ(c.ownedBytes(), addr.size() * sizeof(uint32_t));
  EXPECT_EQ(c.values(), addr);
  const PackedView v = c.view();
  for (size_t i = 0; i < addr.size(); i++) ASSERT_EQ(v[i], addr[i]) << i;
}

TEST(PackedColumn, UnalignedValuesPackWithoutAShift) {
  const std::vector<uint64_t> sizes = {13, 4096, 7, 1ull << 31, 0};
  const PackedColumn c = packedFrom(sizes);
  ASSERT_TRUE(c.packed());
  EXPECT_EQ(c.shift(), 0);
  EXPECT_EQ(c.values(), sizes);
}

TEST(PackedColumn, ARangeBeyondWhatFourBytesHoldStaysPlain) {
  // 8-aligned, but 40 GiB apart: 40 GiB / 8 > 2^32.
  const std::vector<uint64_t> wide = {0, 40ull << 30, 16};
  const PackedColumn c = packedFrom(wide);
  EXPECT_FALSE(c.packed());
  EXPECT_EQ(c.values(), wide);
  // Unaligned and 5 GiB apart: no shift, and 5 GiB > 2^32.
  const PackedColumn d = packedFrom({1, 5ull << 30});
  EXPECT_FALSE(d.packed());
  EXPECT_EQ(d.values(), (std::vector<uint64_t>{1, 5ull << 30}));
}

TEST(PackedColumn, EqualValuesAndEmptyColumns) {
  const PackedColumn same = packedFrom({UINT64_MAX, UINT64_MAX});
  ASSERT_TRUE(same.packed());
  EXPECT_EQ(same.values(), (std::vector<uint64_t>{UINT64_MAX, UINT64_MAX}));
  PackedColumn empty;
  empty.pack();
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.values(), std::vector<uint64_t>{});
}

TEST(PackedColumn, UnpackGivesTheValuesBackToBuildOn) {
  PackedColumn c = packedFrom({8, 16, 24});
  ASSERT_TRUE(c.packed());
  c.unpack();
  EXPECT_FALSE(c.packed());
  c.push_back(32);
  EXPECT_EQ(c.values(), (std::vector<uint64_t>{8, 16, 24, 32}));
  // Equality is by value, whatever the storage.
  EXPECT_EQ(c, packedFrom({8, 16, 24, 32}));
  EXPECT_FALSE(c == packedFrom({8, 16, 24, 40}));
}

TEST(PackedColumn, AViewSurvivesMovingTheColumn) {
  PackedColumn c = packedFrom({0xc000000000, 0xc000000010});
  const PackedView v = c.view();
  const PackedColumn moved = std::move(c);
  EXPECT_EQ(v[1], 0xc000000010u);
  EXPECT_EQ(moved[0], 0xc000000000u);
}

TEST(PackedIds, FewIdsTakeTwoBytesAndManyStayPlain) {
  std::vector<uint32_t> few, many;
  for (uint32_t i = 0; i < 100000; i++) {
    few.push_back(1000 + i % 60000);
    many.push_back(i);
  }
  PackedIds small(few), large(many);
  small.pack();
  large.pack();
  ASSERT_TRUE(small.packed());
  EXPECT_EQ(small.ownedBytes(), few.size() * sizeof(uint16_t));
  EXPECT_EQ(small.values(), few);
  // 0 to 99999 spans more than 2^16.
  EXPECT_FALSE(large.packed());
  EXPECT_EQ(large.values(), many);
}

}  // namespace
}  // namespace goheap
