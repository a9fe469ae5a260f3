// goroutines, asked through the question table of tests/programs/retention's
// heap: each goroutine the program parked is there, by the id, wait reason
// and function its own traceback (runtime.Stack) printed before the dump.
// Leaks are goroutines_leaked_test.cpp's.
#include <gtest/gtest.h>

#include <map>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class GoroutinesQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(GoroutinesQuestion, ParkedGoroutinesAreAsTheTracebackSays) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  const JsonValue got = testing::askQuestion("goroutines", {}, *heap.session);
  std::map<uint64_t, const JsonValue*> by_id;
  for (const JsonValue& g : got["goroutines"].items()) by_id[g["id"].u64()] = &g;
  size_t checked = 0;
  for (const JsonValue& want : heap.report["goroutines"].items()) {
    // main is running in its traceback but waiting in the dump.
    if (!want.has("label") || want["label"].str() == "main") continue;
    SCOPED_TRACE(want["label"].str());
    ASSERT_TRUE(by_id.contains(want["id"].u64())) << "no goroutine " << want["id"].u64();
    const JsonValue& g = *by_id[want["id"].u64()];
    EXPECT_EQ(g["wait_reason"].str(), want["state"].str());
    EXPECT_FALSE(g["system"].boolean());
    bool has_frame = false;
    for (const JsonValue& f : g["frames"].items()) {
      has_frame |= f["function"].str() == want["top_function"].str();
    }
    EXPECT_TRUE(has_frame) << want["top_function"].str();
    checked++;
  }
  EXPECT_GE(checked, 6u);
}

TEST_P(GoroutinesQuestion, TheBufferIsRetainedByItsGoroutineAlone) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "retention");
  ASSERT_TRUE(heap.session);
  uint64_t id = 0;
  for (const JsonValue& g : heap.report["goroutines"].items()) {
    if (g.has("label") && g["label"].str() == "hold_buffer") id = g["id"].u64();
  }
  const JsonValue got = testing::askQuestion(
      "goroutines", {{"sort", "retained"}, {"frames", "false"}}, *heap.session);
  ASSERT_GE(got["goroutines"].size(), 1u);
  const JsonValue& first = got["goroutines"][size_t{0}];
  EXPECT_EQ(first["id"].u64(), id);
  EXPECT_GE(first["retained"].u64(), heap.report["structures"]["held_buffer"]["bytes"].u64());
}

INSTANTIATE_TEST_SUITE_P(Questions, GoroutinesQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
