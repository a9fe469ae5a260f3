#include <gtest/gtest.h>

#include <vector>

#include "model/heap_model.h"

namespace goheap::dump {

using namespace model;
namespace {

std::vector<uint64_t> values(const OffsetColumn& c) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < c.size(); i++) out.push_back(c[i]);
  return out;
}

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(OffsetColumn, KeepsEveryOffsetBelowAndBeyondFourGiB) {
  OffsetColumn c;
  EXPECT_TRUE(c.empty());
  c.reserve(100);
  c.push_back(7);
  c.push_back(4 * kGiB - 1);
  EXPECT_EQ(values(c), (std::vector<uint64_t>{7, 4 * kGiB - 1}));
  c.push_back(4 * kGiB);  // the first that needs more than 32 bits
  const uint32_t low[] = {3, 5, 9};
  const uint16_t high[] = {0, 100 / 4, 0};
  c.append(low, high, 3, true);
  c.push_back((uint64_t{1} << 47) + 1);
  EXPECT_EQ(values(c), (std::vector<uint64_t>{7, 4 * kGiB - 1, 4 * kGiB, 3, 100 * kGiB + 5, 9,
                                              (uint64_t{1} << 47) + 1}));
}

TEST(OffsetColumn, WidensOnAnAppendedBatch) {
  OffsetColumn c;
  const uint32_t small_low[] = {1, 2};
  const uint16_t small_high[] = {0, 0};
  const uint32_t large_low[] = {5, 0};
  const uint16_t large_high[] = {0, 6 / 4};
  c.append(small_low, small_high, 2, false);
  EXPECT_EQ(values(c), (std::vector<uint64_t>{1, 2}));
  c.append(large_low, large_high, 2, true);
  EXPECT_EQ(values(c), (std::vector<uint64_t>{1, 2, 5, 4 * kGiB}));
}

TEST(OffsetColumn, AppendsPartOfAnother) {
  OffsetColumn narrow, wide, to;
  for (uint64_t v : {10, 11, 12}) narrow.push_back(v);
  for (uint64_t v : {20 * kGiB, uint64_t{21}, 22 * kGiB}) wide.push_back(v);
  to.append(narrow, 1, 2);
  EXPECT_EQ(values(to), (std::vector<uint64_t>{11, 12}));
  to.append(wide, 0, 2);
  to.append(narrow, 0, 1);
  EXPECT_EQ(values(to), (std::vector<uint64_t>{11, 12, 20 * kGiB, 21, 10}));
}

TEST(OffsetColumn, Permutes) {
  for (const uint64_t high : {uint64_t{0}, 8 * kGiB}) {
    OffsetColumn c;
    for (uint64_t v : {100, 200, 300, 400}) c.push_back(v + high);
    c.permute({2, 0, 3, 1});
    EXPECT_EQ(values(c), (std::vector<uint64_t>{300 + high, 100 + high, 400 + high, 200 + high}));
  }
}

}  // namespace
}  // namespace goheap::dump
