#include <gtest/gtest.h>

#include "graph/csr.h"

namespace goheap {
namespace {

TEST(Csr, ReverseListsSourcesInOrder) {
  Csr f;
  f.begin = {0, 2, 3, 3};
  f.targets = {1, 2, 2};
  Csr r = reverseCsr(f);
  ASSERT_EQ(r.nodeCount(), 3u);
  EXPECT_TRUE(r.neighbors(0).empty());
  ASSERT_EQ(r.neighbors(2).size(), 2u);
  EXPECT_EQ(r.neighbors(2)[0], 0u);
  EXPECT_EQ(r.neighbors(2)[1], 1u);
}

}  // namespace
}  // namespace goheap
