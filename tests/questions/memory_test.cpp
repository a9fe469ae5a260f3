// memory, asked through the question table of tests/programs/memprog's heap
// dump, which has memstats only: the Go categories against the MemStats the
// program reports, and what a dump cannot know unknown (null), not zero.
// Cores and snaps of memprog are tests/core/process_memory_test.cpp's and
// tests/acquire/snap_test.cpp's.
#include <gtest/gtest.h>

#include <map>

#include "support/ask_question.h"
#include "support/go_versions.h"
#include "support/memory_truth.h"

namespace goheap {
namespace {

using testing::JsonValue;

class MemoryQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryQuestion, DumpGivesWhatMemstatsSay) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "memprog");
  ASSERT_TRUE(heap.session);
  const JsonValue memory = testing::askQuestion("memory", {}, *heap.session);
  EXPECT_EQ(memory["source"].str(), "memstats");
  std::map<std::string, const JsonValue*> by_name;
  uint64_t sum = 0;
  for (const JsonValue& c : memory["categories"].items()) {
    by_name[c["name"].str()] = &c;
    if (!c["bytes"].isNull()) sum += c["bytes"].u64();
  }
  for (const char* unknown : {"c_heap", "mapped_files", "executable_and_libraries", "reserved"}) {
    ASSERT_TRUE(by_name.contains(unknown)) << unknown;
    EXPECT_TRUE((*by_name[unknown])["bytes"].isNull()) << unknown;
  }
  // The dump was written before the report's MemStats were read: close, not equal.
  const JsonValue& m = heap.report["memstats"];
  EXPECT_TRUE(testing::withinFraction("goroutine_stacks",
                                      (*by_name["goroutine_stacks"])["bytes"].u64(),
                                      m["StackInuse"].u64(), 0.10));
  EXPECT_EQ(sum, memory["total"].u64());
  EXPECT_TRUE(testing::withinFraction("total", memory["total"].u64(), m["Sys"].u64(), 0.10));
}

INSTANTIATE_TEST_SUITE_P(Questions, MemoryQuestion,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
