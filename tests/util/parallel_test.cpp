// forEachRange and sortOnThreads against their one-thread equivalents.
#include "util/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <utility>
#include <vector>

namespace goheap {
namespace {

TEST(ForEachRange, CoversEveryIndexOnceInContiguousParts) {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{1000}}) {
    for (const unsigned parts : {0u, 1u, 2u, 3u, 7u}) {
      SCOPED_TRACE(std::to_string(n) + " in " + std::to_string(parts));
      std::vector<std::atomic<int>> seen(n);
      std::vector<std::pair<size_t, size_t>> bounds(std::max(1u, parts));
      forEachRange(n, parts, [&](unsigned part, size_t first, size_t last) {
        bounds[part] = {first, last};
        for (size_t i = first; i < last; i++) seen[i]++;
      });
      for (size_t i = 0; i < n; i++) EXPECT_EQ(seen[i].load(), 1) << i;
      EXPECT_EQ(bounds.front().first, 0u);
      EXPECT_EQ(bounds.back().second, n);
      for (size_t p = 1; p < bounds.size(); p++) EXPECT_EQ(bounds[p].first, bounds[p - 1].second);
    }
  }
}

TEST(SortOnThreads, GivesStdSortsOrderForATotalOrder) {
  std::mt19937_64 random(17);
  for (const size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{5000}}) {
    // Few distinct keys: many ties, broken by the index.
    std::vector<std::pair<uint32_t, uint32_t>> input(n);
    for (size_t i = 0; i < n; i++) input[i] = {static_cast<uint32_t>(random() % 7), uint32_t(i)};
    std::shuffle(input.begin(), input.end(), random);
    std::vector<std::pair<uint32_t, uint32_t>> want = input;
    std::sort(want.begin(), want.end());
    for (const unsigned threads : {1u, 2u, 3u, 4u}) {
      SCOPED_TRACE(std::to_string(n) + " on " + std::to_string(threads));
      std::vector<std::pair<uint32_t, uint32_t>> got = input;
      sortOnThreads(got.begin(), got.end(), std::less<>(), threads, /*min_parallel=*/2);
      EXPECT_EQ(got, want);
    }
  }
}

}  // namespace
}  // namespace goheap
