#include "support/memory_truth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

namespace goheap::testing {
::testing::AssertionResult withinFraction(const char* what, uint64_t got, uint64_t want,
                                          double fraction) {
  const uint64_t diff = got > want ? got - want : want - got;
  if (static_cast<long double>(diff) <= fraction * static_cast<long double>(want)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << ": " << got << " is not within " << fraction * 100 << "% of " << want;
}

void expectMemoryTruth(const JsonValue& memory, const JsonValue& truth, bool gcore) {
  std::map<std::string, uint64_t> bytes;
  uint64_t sum = 0;
  for (const JsonValue& c : memory["categories"].items()) {
    ASSERT_FALSE(c["bytes"].isNull()) << c["name"].str() << " is unknown in a core";
    bytes[c["name"].str()] = c["bytes"].u64();
    sum += c["bytes"].u64();
  }
  ASSERT_EQ(bytes.size(), 12u);
  const uint64_t total = memory["total"].u64();
  const JsonValue& m = truth["memstats"];
  EXPECT_TRUE(withinFraction("the categories' sum", sum, total, 0.01));
  EXPECT_LE(bytes["other"] * 20, total) << "other: " << bytes["other"] << " of " << total;
  EXPECT_TRUE(withinFraction("heap_objects", bytes["heap_objects"], m["HeapAlloc"].u64(), 0.05));
  EXPECT_TRUE(withinFraction("heap_free + heap_released",
                             bytes["heap_free"] + bytes["heap_released"], m["HeapIdle"].u64(),
                             0.10));
  EXPECT_TRUE(
      withinFraction("goroutine_stacks", bytes["goroutine_stacks"], m["StackInuse"].u64(), 0.10));
  // The C heap is what glibc says it took from the system (mallinfo2: its
  // arenas and its mmapped chunks), which holds what memprog malloc'd plus
  // glibc's own slack: chunk headers, top chunks, and the heaps of the
  // arenas other threads' mallocs made, which vary from run to run.
  const uint64_t glibc = truth["glibc_arena_bytes"].u64() + truth["glibc_mmap_bytes"].u64();
  EXPECT_TRUE(withinFraction("c_heap", bytes["c_heap"], glibc, 0.02));
  EXPECT_GE(bytes["c_heap"], truth["c_large_bytes"].u64() + truth["c_small_bytes"].u64());
  if (!gcore) {
    EXPECT_GE(bytes["mapped_files"], truth["mapped_file_bytes"].u64());
  }
  if (memory["source"].str() != "snap") {
    EXPECT_TRUE(memory["resident"].isNull());
  }
}

void expectResidentTruth(const JsonValue& memory, uint64_t rss_before, uint64_t rss_after) {
  ASSERT_FALSE(memory["resident"].isNull());
  const uint64_t resident = memory["resident"].u64();
  const uint64_t low = std::min(rss_before, rss_after), high = std::max(rss_before, rss_after);
  EXPECT_TRUE(resident * 100 >= low * 95 && resident * 100 <= high * 105)
      << "resident " << resident << " is not within 5% of the Rss read before (" << rss_before
      << ") and after (" << rss_after << ")";
}

}  // namespace goheap::testing
