#include "model/object_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace goheap::model {
namespace {

// A HeapModel with only object columns; offset carries the original
// index so the permutation can be checked.
HeapModel objectsAt(const std::vector<uint64_t>& addrs) {
  HeapModel d(MappedFile::borrow({}, "test"));
  for (size_t i = 0; i < addrs.size(); i++) {
    d.objects.addr.push_back(addrs[i]);
    d.objects.offset.push_back(i);
    d.objects.size.push_back(16);
  }
  return d;
}

void expectSortedLikeStdSort(const std::vector<uint64_t>& addrs) {
  HeapModel d = objectsAt(addrs);
  sortObjectsByAddress(d);
  std::vector<size_t> expected(addrs.size());
  std::iota(expected.begin(), expected.end(), size_t{0});
  std::stable_sort(expected.begin(), expected.end(),
                   [&](size_t a, size_t b) { return addrs[a] < addrs[b]; });
  ASSERT_EQ(d.objects.addr.size(), addrs.size());
  for (size_t i = 0; i < addrs.size(); i++) {
    ASSERT_EQ(d.objects.addr[i], addrs[expected[i]]) << i;
    ASSERT_EQ(d.objects.offset[i], expected[i]) << i;
  }
}

TEST(ObjectOrder, SpanBySpanLayoutSortsByPage) {
  // Spans of one or more 8 KiB pages, written in a shuffled span order, each
  // span's objects ascending with some slots free: what the runtime writes.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; round++) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // (base, elem size)
    uint64_t base = 0xc000000000ull;
    for (int s = 0; s < 200; s++) {
      uint64_t pages = 1 + rng() % 4;
      uint64_t elem = 8 << (rng() % 8);
      spans.emplace_back(base, elem);
      base += pages * 8192 + (rng() % 3) * 8192;
      (void)elem;
    }
    std::shuffle(spans.begin(), spans.end(), rng);
    std::vector<uint64_t> addrs;
    for (auto [b, elem] : spans) {
      for (uint64_t a = b; a + elem <= b + 8192; a += elem) {
        if (rng() % 4 != 0) addrs.push_back(a);
      }
    }
    expectSortedLikeStdSort(addrs);
  }
}

TEST(ObjectOrder, ArbitraryOrderFallsBackToRadixSort) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; round++) {
    std::vector<uint64_t> addrs;
    const int n = 1 + static_cast<int>(rng() % 2000);
    for (int i = 0; i < n; i++) addrs.push_back(0xc000000000ull + (rng() % 100000) * 16);
    expectSortedLikeStdSort(addrs);
  }
}

TEST(ObjectOrder, WideAddressRangesAndDuplicatesSort) {
  expectSortedLikeStdSort({0x7f0000000000ull, 0xc000000000ull, 0x10, 0xc000000000ull, 0x20});
  expectSortedLikeStdSort({5, 4, 3, 2, 1});
  expectSortedLikeStdSort({1});
  expectSortedLikeStdSort({});
}

}  // namespace
}  // namespace goheap::model
