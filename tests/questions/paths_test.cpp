// paths, asked through the question table of tests/programs/retention's
// heap: the path to the end of the chain the program built is the chain,
// from the global the program names, with the program's count of hops.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class PathsQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(PathsQuestion, TheChainIsThePathFromItsGlobal) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  for (const JsonValue& want : heap.report["paths"].items()) {
    SCOPED_TRACE(want["global"].str());
    const JsonValue got =
        testing::askQuestion("paths", {{"addr", want["target_addr"].str()}}, *heap.session);
    EXPECT_TRUE(got["reachable"].boolean());
    ASSERT_GE(got["paths"].size(), 1u);
    const JsonValue& path = got["paths"][size_t{0}];
    // n steps, n-1 references: the global's slot to the first object is one.
    ASSERT_EQ(path.size(), want["hops"].u64() + 1);
    EXPECT_EQ(path[size_t{0}]["node"]["global"].str(), want["global"].str());
    for (size_t i = 1; i < path.size(); i++) {
      const JsonValue& node = path[i]["node"];
      EXPECT_EQ(node["address"].str(),
                heap.report["objects"]["chain_" + std::to_string(i - 1)]["addr"].str());
    }
    EXPECT_EQ(path[path.size() - 1]["node"]["address"].str(), want["target_addr"].str());
  }
}

INSTANTIATE_TEST_SUITE_P(Questions, PathsQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
