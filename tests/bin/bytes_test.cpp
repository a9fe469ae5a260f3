// ByteView's bounds-checked readers, at their edges: tables whose claimed
// size overflows, names that fill their field, and Go uvarints as
// encoding/binary defines them (at most ten bytes, seven bits each, low
// group first).
#include "bin/bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace goheap::bin {
namespace {

TEST(ByteView, HasTableRejectsCountsWhoseSizeOverflows) {
  const std::vector<uint8_t> bytes(64);
  const ByteView v(bytes, false);
  EXPECT_TRUE(v.hasTable(0, 8, 8));
  EXPECT_TRUE(v.hasTable(16, 6, 8));
  EXPECT_FALSE(v.hasTable(16, 7, 8));
  EXPECT_TRUE(v.hasTable(64, 0, 8));
  EXPECT_FALSE(v.hasTable(65, 0, 8));
  // 2^61 entries of 8 bytes wrap to 0 bytes in 64 bits.
  EXPECT_FALSE(v.hasTable(0, uint64_t{1} << 61, 8));
}

TEST(ByteView, PaddedNameStopsAtTheFirstNulOrTheFieldsEnd) {
  const std::vector<uint8_t> bytes = {'_', '_', 't', 'e', 'x', 't', 0,   0,  //
                                      'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'X'};
  const ByteView v(bytes, false);
  EXPECT_EQ(v.paddedName(0, 8), "__text");
  EXPECT_EQ(v.paddedName(8, 8), "abcdefgh");
  EXPECT_EQ(v.paddedName(6, 2), "");
  EXPECT_EQ(v.chars(8, 3), "abc");
}

TEST(ByteView, UvarintReadsGoEncodingAndMovesPastIt) {
  // 1, 150 (encoding/binary's example: 0x96 0x01), then 2^64-1 in ten bytes.
  std::vector<uint8_t> bytes = {0x01, 0x96, 0x01};
  for (int i = 0; i < 9; ++i) bytes.push_back(0xff);
  bytes.push_back(0x01);
  const ByteView v(bytes, false);
  uint64_t at = 0, x = 0;
  ASSERT_TRUE(v.uvarint(at, x));
  EXPECT_EQ(x, 1u);
  EXPECT_EQ(at, 1u);
  ASSERT_TRUE(v.uvarint(at, x));
  EXPECT_EQ(x, 150u);
  EXPECT_EQ(at, 3u);
  ASSERT_TRUE(v.uvarint(at, x));
  EXPECT_EQ(x, UINT64_MAX);
  EXPECT_EQ(at, bytes.size());
  EXPECT_FALSE(v.uvarint(at, x));  // at the end
}

TEST(ByteView, UvarintFailsOnATruncatedOrElevenByteOne) {
  const std::vector<uint8_t> truncated = {0x80, 0x80};
  uint64_t at = 0, x = 0;
  EXPECT_FALSE(ByteView(truncated, false).uvarint(at, x));
  std::vector<uint8_t> eleven(10, 0x80);
  eleven.push_back(0x00);
  at = 0;
  EXPECT_FALSE(ByteView(eleven, false).uvarint(at, x));
}

}  // namespace
}  // namespace goheap::bin
