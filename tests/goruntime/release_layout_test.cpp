#include "goruntime/release_layout.h"

#include <gtest/gtest.h>

namespace goheap::goruntime {
namespace {

// internal/abi.Type: Size_, PtrBytes (words), Hash uint32, then TFlag,
// Align_, FieldAlign_, Kind_ (bytes).
TEST(ReleaseLayout, TheDirectInterfaceBitMovedFromKindToTFlagInGo126) {
  const ReleaseLayout before = releaseLayout(parseGoVersion("go1.25.12"), 8);
  EXPECT_EQ(before.direct_iface_offset, 2 * 8 + 7u);  // Kind_
  EXPECT_EQ(before.direct_iface_mask, 1 << 5);
  const ReleaseLayout since = releaseLayout(parseGoVersion("go1.26.11"), 8);
  EXPECT_EQ(since.direct_iface_offset, 2 * 8 + 4u);  // TFlag
  EXPECT_EQ(since.direct_iface_mask, 1 << 5);
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.27.4-X:nogreenteagc"), 4).direct_iface_offset,
            2 * 4 + 4u);
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.19.8"), 4).direct_iface_offset, 2 * 4 + 7u);
}

TEST(ReleaseLayout, MallocHeadersSinceGo122) {
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.21.13"), 8).malloc_header_size, 0);
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.22.0"), 8).malloc_header_size, 8);
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.24.4"), 4).malloc_header_size, 8);
  EXPECT_EQ(releaseLayout(parseGoVersion("go1.23.1 X:noallocheaders"), 8).malloc_header_size, 0);
  EXPECT_EQ(releaseLayout(parseGoVersion("unknown"), 8).malloc_header_size, 0);
}

}  // namespace
}  // namespace goheap::goruntime
