// obj, asked through the question table of tests/programs/retention's heap:
// every object the program reports by %p is there, at that address, of the
// %T and size it says; the chain's links point where the program linked them.
#include <gtest/gtest.h>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class ObjQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(ObjQuestion, EveryReportedObjectHasItsTypeAndSize) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  for (const auto& [label, want] : heap.report["objects"].members()) {
    SCOPED_TRACE(label);
    const JsonValue got =
        testing::askQuestion("obj", {{"addr", want["addr"].str()}}, *heap.session);
    EXPECT_EQ(got["object"]["address"].str(), want["addr"].str());
    EXPECT_TRUE(got["reachable"].boolean());
    // String data is its length; every other value fills its size class.
    if (want["type"].str() == "string") {
      EXPECT_GE(got["size"].u64(), want["size"].u64());
    } else {
      EXPECT_EQ(got["size"].u64(), want["size"].u64());
      EXPECT_EQ(got["type"].str(), want["type"].str());
    }
  }
}

TEST_P(ObjQuestion, ChainLinksPointAtTheNextLink) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue& objects = heap.report["objects"];
  for (int i = 0; i + 1 < 10; i++) {
    const std::string link = objects["chain_" + std::to_string(i)]["addr"].str();
    const std::string next = objects["chain_" + std::to_string(i + 1)]["addr"].str();
    SCOPED_TRACE(link);
    const JsonValue got = testing::askQuestion("obj", {{"addr", link}}, *heap.session);
    bool points = false;
    for (const JsonValue& p : got["pointers"].items()) points |= p["value"].str() == next;
    EXPECT_TRUE(points) << "no pointer to " << next;
    const JsonValue held = testing::askQuestion("obj", {{"addr", next}}, *heap.session);
    bool referred = false;
    for (const JsonValue& r : held["referrers"].items()) {
      referred |= r["holder"]["address"].str() == link;
    }
    EXPECT_TRUE(referred) << next << " is not referred to by " << link;
  }
}

INSTANTIATE_TEST_SUITE_P(Questions, ObjQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
