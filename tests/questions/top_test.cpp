// top, asked through the question table of tests/programs/retention's heap:
// its rows add up to what a plain walk of the graph reaches, and the tree
// the program built is one row of its type, with the program's count and
// bytes.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class TopQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(TopQuestion, RowsAddUpToTheReachableObjects) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  for (const char* by : {"type", "site", "shape"}) {
    SCOPED_TRACE(by);
    const JsonValue top = testing::askQuestion("top", {{"by", by}, {"limit", "0"}}, *heap.session);
    uint64_t count = 0, shallow = 0;
    for (const JsonValue& r : top["rows"].items()) {
      count += r["count"].u64();
      shallow += r["shallow"].u64();
    }
    EXPECT_EQ(top["rows"].size(), top["groups"].u64());
    EXPECT_EQ(count, reached.objects);
    EXPECT_EQ(shallow, reached.bytes);
  }
}

TEST_P(TopQuestion, TheTreeIsOneRowOfItsType) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue& tree = heap.report["structures"]["retained_tree"];
  const std::string type = heap.report["objects"]["tree_root"]["type"].str();
  const JsonValue top = testing::askQuestion(
      "top", {{"by", "type"}, {"limit", "0"}, {"filter", type}}, *heap.session);
  const JsonValue* row = nullptr;
  for (const JsonValue& r : top["rows"].items()) {
    if (r["name"].str() == type) row = &r;
  }
  ASSERT_NE(row, nullptr) << type;
  EXPECT_EQ((*row)["count"].u64(), tree["count"].u64());
  EXPECT_EQ((*row)["shallow"].u64(), tree["bytes"].u64());
  // Only the global holds the tree: its nodes retain themselves and no more.
  EXPECT_EQ((*row)["retained"].u64(), tree["bytes"].u64());
}

INSTANTIATE_TEST_SUITE_P(Questions, TopQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
