#include "graph/address_index.h"

#include <gtest/gtest.h>

#include <random>

namespace goheap::graph {
namespace {

// The brute-force answer: the object whose [addr, addr+size) holds `a`.
NodeId linearFind(const std::vector<uint64_t>& addr, const std::vector<uint64_t>& size,
                  uint64_t a) {
  for (size_t i = 0; i < addr.size(); i++) {
    if (a >= addr[i] && a - addr[i] < size[i]) return static_cast<NodeId>(i);
  }
  return kNoNode;
}

TEST(AddressIndex, ResolvesInteriorPointersToTheContainingObject) {
  std::vector<uint64_t> addr = {0x1000, 0x1010, 0x3000};
  std::vector<uint64_t> size = {16, 32, 0x4000};
  AddressIndex index(addr, size);
  EXPECT_EQ(index.find(0x1000), 0u);
  EXPECT_EQ(index.find(0x100f), 0u);
  EXPECT_EQ(index.find(0x1010), 1u);
  EXPECT_EQ(index.find(0x102f), 1u);
  EXPECT_EQ(index.find(0x1030), kNoNode);  // the gap after object 1
  EXPECT_EQ(index.find(0x6fff), 2u);       // deep inside a multi-page object
  EXPECT_EQ(index.find(0x7000), kNoNode);
  EXPECT_EQ(index.find(0xfff), kNoNode);
  EXPECT_EQ(index.find(0), kNoNode);
  EXPECT_EQ(index.find(UINT64_MAX), kNoNode);
}

TEST(AddressIndex, EmptyHeapFindsNothing) {
  AddressIndex index({}, {});
  EXPECT_EQ(index.find(0x1000), kNoNode);
}

TEST(AddressIndex, AgreesWithLinearSearchOnRandomLayouts) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 50; round++) {
    std::vector<uint64_t> addr, size;
    uint64_t a = 0xc000000000ull + (rng() % 4096) * 8;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; i++) {
      uint64_t sz = (rng() % 4 == 0) ? 8 * (1 + rng() % 5000) : 8 * (1 + rng() % 8);
      addr.push_back(a);
      size.push_back(sz);
      a += sz + ((rng() % 3 == 0) ? 8 * (rng() % 3000) : 0);
      if (rng() % 50 == 0) a += 1ull << (20 + rng() % 20);  // sparse arenas
    }
    AddressIndex index(addr, size);
    for (int q = 0; q < 2000; q++) {
      uint64_t probe;
      if (q % 2 == 0) {
        size_t i = rng() % addr.size();
        probe = addr[i] + rng() % (size[i] + 16);
      } else {
        probe = addr.front() - 64 + rng() % (a - addr.front() + 128);
      }
      ASSERT_EQ(index.find(probe), linearFind(addr, size, probe)) << "probe " << probe;
    }
  }
}

// Spans as the runtime lays them out: 8 KiB pages of one size class each,
// some slots free (absent from a dump), the first probe's guess then right,
// one slot off, or far off; every address of the range is asked.
TEST(AddressIndex, AgreesWithLinearSearchOnSpansOfOneSizeClass) {
  std::mt19937_64 rng(29);
  for (const uint64_t slot : {16u, 48u, 112u, 1024u, 3072u}) {
    for (const unsigned free_in : {0u, 2u, 7u}) {  // every n-th slot free (0: none)
      std::vector<uint64_t> addr, size;
      const uint64_t base = 0xc000000000ull + 0x2000 * (rng() % 16);
      for (uint64_t page = 0; page < 6; page++) {
        for (uint64_t at = base + page * 0x2000; at + slot <= base + (page + 1) * 0x2000;
             at += slot) {
          if (free_in != 0 && rng() % free_in == 0) continue;
          addr.push_back(at);
          size.push_back(slot);
        }
      }
      AddressIndex index(addr, size);
      for (uint64_t probe = base - 64; probe < base + 6 * 0x2000 + 64; probe += 8) {
        ASSERT_EQ(index.find(probe), linearFind(addr, size, probe))
            << "slot " << slot << ", probe " << probe;
      }
    }
  }
}

}  // namespace
}  // namespace goheap::graph
