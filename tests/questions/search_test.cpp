// search (the web UI's search box), asked through the question table of
// tests/programs/retention's heap: an address the program reports finds its
// object, a type's name its group, a global's name the global pointing at
// what the program stored in it.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SearchQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchQuestion, AnAddressFindsItsObject) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue& dog = heap.report["objects"]["dog"];
  const JsonValue got = testing::askQuestion("search", {{"q", dog["addr"].str()}}, *heap.session);
  EXPECT_EQ(got["object"]["address"].str(), dog["addr"].str());
  EXPECT_EQ(got["object"]["name"].str(), dog["type"].str());
}

TEST_P(SearchQuestion, ANameFindsItsGroupAndGlobal) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue& tree = heap.report["structures"]["retained_tree"];
  const std::string type = heap.report["objects"]["tree_root"]["type"].str();
  const JsonValue groups = testing::askQuestion("search", {{"q", type}}, *heap.session);
  const JsonValue* group = nullptr;
  for (const JsonValue& g : groups["groups"].items()) {
    if (g["name"].str() == type) group = &g;
  }
  ASSERT_NE(group, nullptr) << type;
  EXPECT_EQ((*group)["count"].u64(), tree["count"].u64());
  // The global holding the tree points at its root.
  const JsonValue globals =
      testing::askQuestion("search", {{"q", tree["holder"].str()}}, *heap.session);
  const JsonValue* global = nullptr;
  for (const JsonValue& g : globals["globals"].items()) {
    if (g["name"].str() == tree["holder"].str()) global = &g;
  }
  ASSERT_NE(global, nullptr) << tree["holder"].str();
  ASSERT_GE((*global)["points_to"].size(), 1u);
  EXPECT_EQ((*global)["points_to"][size_t{0}]["address"].str(), tree["root_addr"].str());
}

INSTANTIATE_TEST_SUITE_P(Questions, SearchQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
