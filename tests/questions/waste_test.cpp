// waste, asked through the question table of tests/programs/leaks's heap:
// the size-class rounding of the Padded values the program allocated, as
// the runtime charged it, and the garbage it dropped.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class WasteQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(WasteQuestion, RoundingOfPaddedIsWhatTheRuntimeCharged) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "leaks");
  ASSERT_TRUE(heap.session);
  const JsonValue waste = testing::askQuestion("waste", {{"limit", "0"}}, *heap.session);
  const JsonValue& want = heap.report["padded"];
  const JsonValue* row = nullptr;
  for (const JsonValue& r : waste["rounding"]["rows"].items()) {
    if (r["type"].str() == want["type"].str()) row = &r;
  }
  ASSERT_NE(row, nullptr) << want["type"].str();
  EXPECT_EQ((*row)["count"].u64(), want["count"].u64());
  EXPECT_EQ((*row)["type_size"].u64(), want["type_size"].u64());
  EXPECT_EQ((*row)["slot_size"].u64(), want["slot_size"].u64());
  EXPECT_EQ((*row)["wasted"].u64(), want["wasted"].u64());
}

TEST_P(WasteQuestion, GarbageIsWhatNoRootReaches) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "leaks");
  ASSERT_TRUE(heap.session);
  const analysis::Snapshot& s = heap.session->snapshot();
  const JsonValue waste = testing::askQuestion("waste", {}, *heap.session);
  const testing::Reached reached = testing::reachedObjects(s);
  uint64_t unreached = 0;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    unreached += s.model.objects.size[o];
  }
  unreached -= reached.bytes + s.metadata_bytes;
  EXPECT_EQ(waste["garbage"]["bytes"].u64(), unreached);
  EXPECT_GE(waste["garbage"]["objects"].u64(), heap.report["garbage"]["count"].u64());
}

INSTANTIATE_TEST_SUITE_P(Questions, WasteQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
