// flame (the web UI's flame graph), asked through the question table of
// tests/programs/retention's heap: every reachable byte and object is in
// exactly one frame, as a plain walk of the graph counts them.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class FlameQuestion : public ::testing::TestWithParam<std::string> {};

struct Sums {
  uint64_t self = 0, count = 0;
};
void addUp(const JsonValue& frame, Sums& sums) {
  sums.self += frame["self"].u64();
  sums.count += frame["count"].u64();
  uint64_t children = 0;
  for (const JsonValue& c : frame["children"].items()) {
    children += c["value"].u64();
    addUp(c, sums);
  }
  EXPECT_EQ(frame["value"].u64(), frame["self"].u64() + children) << frame["name"].str();
}

TEST_P(FlameQuestion, EveryReachableByteIsInOneFrame) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue flame = testing::askQuestion("flame", {{"min_bytes", "0"}}, *heap.session);
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  EXPECT_EQ(flame["total"].u64(), reached.bytes);
  EXPECT_EQ(flame["root"]["value"].u64(), reached.bytes);
  Sums sums;
  addUp(flame["root"], sums);
  EXPECT_EQ(sums.self, reached.bytes);
  EXPECT_EQ(sums.count, reached.objects);
}

INSTANTIATE_TEST_SUITE_P(Questions, FlameQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
