#include "util/column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace goheap {
namespace {

TEST(Column, OwnedColumnsBuildLikeVectors) {
  Column<uint32_t> c;
  EXPECT_TRUE(c.empty());
  for (uint32_t i = 0; i < 1000; i++) c.push_back(i * 3);
  EXPECT_EQ(c.size(), 1000u);
  EXPECT_EQ(c[999], 2997u);
  EXPECT_EQ(c.back(), 2997u);
  EXPECT_FALSE(c.isView());
  EXPECT_GE(c.ownedBytes(), 1000 * sizeof(uint32_t));
  c.resize(10);
  c[3] = 7;
  EXPECT_EQ(std::vector<uint32_t>(c.begin(), c.end()),
            (std::vector<uint32_t>{0, 3, 6, 7, 12, 15, 18, 21, 24, 27}));
  c.assign(4, 1);
  EXPECT_EQ(c, (Column<uint32_t>{1, 1, 1, 1}));
}

TEST(Column, AViewReadsTheMemoryItWasGivenAndOwnsNothing) {
  std::vector<uint64_t> memory = {5, 6, 7};
  Column<uint64_t> v = Column<uint64_t>::view(memory);
  EXPECT_TRUE(v.isView());
  EXPECT_EQ(v.data(), memory.data());  // not a copy
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1], 6u);
  EXPECT_EQ(v.ownedBytes(), 0u);
  std::span<const uint64_t> s = v;
  EXPECT_EQ(s.data(), memory.data());
  // Copies and moves of a view are views of the same memory.
  Column<uint64_t> copy = v;
  EXPECT_EQ(copy.data(), memory.data());
  Column<uint64_t> moved = std::move(copy);
  EXPECT_EQ(moved.data(), memory.data());
  EXPECT_TRUE(moved.isView());
}

TEST(Column, ChangingAViewsSizeCopiesItFirst) {
  std::vector<uint32_t> memory = {1, 2, 3};
  Column<uint32_t> v = Column<uint32_t>::view(memory);
  v.push_back(4);
  EXPECT_FALSE(v.isView());
  EXPECT_NE(v.data(), memory.data());
  EXPECT_EQ(v, (Column<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(memory, (std::vector<uint32_t>{1, 2, 3}));  // left alone
}

TEST(Column, MovingAnOwnedColumnKeepsItsElementsWhereTheyAre) {
  Column<uint16_t> a(std::vector<uint16_t>(100, 9));
  const uint16_t* where = a.data();
  Column<uint16_t> b = std::move(a);
  EXPECT_EQ(b.data(), where);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  std::vector<uint16_t> back = b.takeVector();
  EXPECT_EQ(back.data(), where);
  EXPECT_TRUE(b.empty());
}

TEST(Column, InsertReturnsWhereTheRangeWentEvenWhenItIsEmpty) {
  Column<uint32_t> empty;
  const std::vector<uint32_t> nothing;
  EXPECT_EQ(empty.insert(empty.end(), nothing.begin(), nothing.end()), empty.data());
  EXPECT_TRUE(empty.empty());
  Column<uint32_t> c{1, 4};
  const std::vector<uint32_t> middle{2, 3};
  uint32_t* at = c.insert(c.begin() + 1, middle.begin(), middle.end());
  EXPECT_EQ(at, c.data() + 1);
  EXPECT_EQ(c, (Column<uint32_t>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace goheap
