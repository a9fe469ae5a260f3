// suspects, asked through the question table of tests/programs/leaks's heap:
// the map of sessions the program grows is the first suspect, held by the
// global the program names, retaining what a naive dominator says it does.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SuspectsQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(SuspectsQuestion, TheSessionsMapRetainsWhatOnlyItReaches) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "leaks");
  ASSERT_TRUE(heap.session);
  const analysis::Snapshot& s = heap.session->snapshot();
  const JsonValue& sessions = heap.report["sessions"];
  const JsonValue got = testing::askQuestion("suspects", {}, *heap.session);
  ASSERT_GE(got["suspects"].size(), 1u);
  const JsonValue& first = got["suspects"][size_t{0}];
  EXPECT_EQ(first["object"]["address"].str(), sessions["map_addr"].str());
  EXPECT_EQ(first["path"][size_t{0}]["node"]["global"].str(), sessions["global"].str());
  const NodeId map = s.heap.addresses().find(sessions["map_addr"].hexAddress());
  ASSERT_NE(map, kNoNode);
  const uint64_t dominated =
      testing::reachedObjects(s).bytes - testing::reachedObjects(s, map).bytes;
  EXPECT_EQ(first["retained"].u64(), dominated);
  const uint64_t count = sessions["sessions_old"].u64() + sessions["sessions_added"].u64();
  EXPECT_GE(dominated, count * sessions["size"].u64());
}

INSTANTIATE_TEST_SUITE_P(Questions, SuspectsQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
