// summary, asked through the question table of tests/programs/retention's
// heap: the counts against a plain walk of the graph, the top retainers
// against the structures the program built and the holder it says keeps each.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SummaryQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(SummaryQuestion, CountsWhatTheRootsReach) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue summary = testing::askQuestion("summary", {}, *heap.session);
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  EXPECT_EQ(summary["objects"]["reachable_count"].u64(), reached.objects);
  EXPECT_EQ(summary["objects"]["reachable_bytes"].u64(), reached.bytes);
  EXPECT_GE(summary["objects"]["garbage_count"].u64(),
            heap.report["garbage"]["count_at_least"].u64());
}

TEST_P(SummaryQuestion, TopRetainersAreTheProgramsStructures) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue summary = testing::askQuestion("summary", {{"top", "50"}}, *heap.session);
  for (const auto& [label, structure] : heap.report["structures"].members()) {
    SCOPED_TRACE(label);
    const JsonValue* found = nullptr;
    for (const JsonValue& r : summary["top_retainers"].items()) {
      if (r["object"]["address"].str() == structure["root_addr"].str()) found = &r;
    }
    ASSERT_NE(found, nullptr) << "not a top retainer: " << structure["root_addr"].str();
    EXPECT_GE((*found)["retained"].u64(), structure["bytes"].u64());
    // Its holder is the global or the function the program says keeps it.
    const JsonValue& held_by = (*found)["held_by"];
    const std::string holder = structure["holder"].str();
    if (held_by["kind"].str() == "stack frame") {
      EXPECT_EQ(held_by["name"].str().rfind(holder, 0), 0u) << held_by["name"].str();
    } else {
      EXPECT_EQ(held_by["global"].str(), holder) << held_by["name"].str();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Questions, SummaryQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
