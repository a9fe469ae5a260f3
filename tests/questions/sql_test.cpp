// sql, asked through the question table of tests/programs/retention's heap:
// the objects table's reachable rows against a plain walk of the graph, and
// the chain the program built found by its %T.
#include <gtest/gtest.h>

#include <set>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SqlQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlQuestion, ReachableObjectsAreWhatTheRootsReach) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue got = testing::askQuestion(
      "sql", {{"q", "SELECT count(*), sum(size) FROM objects WHERE reachable = 1"}}, *heap.session);
  const JsonValue& row = got["results"][size_t{0}]["rows"][size_t{0}];
  const testing::Reached reached = testing::reachedObjects(heap.session->snapshot());
  EXPECT_EQ(row[size_t{0}].u64(), reached.objects);
  EXPECT_EQ(row[size_t{1}].u64(), reached.bytes);
}

TEST_P(SqlQuestion, TheChainIsFoundByItsType) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue& objects = heap.report["objects"];
  const std::string type = objects["chain_0"]["type"].str();
  const JsonValue got = testing::askQuestion(
      "sql", {{"q", "SELECT address FROM objects WHERE type = '" + type + "'"}}, *heap.session);
  std::set<uint64_t> found;
  for (const JsonValue& r : got["results"][size_t{0}]["rows"].items())
    found.insert(r[size_t{0}].u64());
  std::set<uint64_t> want;
  for (int i = 0; i < 10; i++) {
    want.insert(objects["chain_" + std::to_string(i)]["addr"].hexAddress());
  }
  EXPECT_EQ(found, want);
}

INSTANTIATE_TEST_SUITE_P(Questions, SqlQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
