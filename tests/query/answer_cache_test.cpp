// The remembered answers of goheap serve (src/query/answer_cache.h): bounded
// by bytes, least recently used first out, keyed by parsed parameters.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "query/answer_cache.h"

namespace goheap::query {
namespace {

std::shared_ptr<const std::string> text(size_t bytes, char c = 'x') {
  return std::make_shared<const std::string>(bytes, c);
}

// What one entry of `body` bytes under a one-letter key costs.
constexpr uint64_t cost(uint64_t body) {
  return body + 1 + AnswerCache::kEntryOverhead;
}

TEST(ServeAnswerCache, FindsWhatItKept) {
  AnswerCache cache(1 << 20);
  EXPECT_EQ(cache.find("a"), nullptr);
  cache.insert("a", text(10, 'a'));
  ASSERT_NE(cache.find("a"), nullptr);
  EXPECT_EQ(*cache.find("a"), std::string(10, 'a'));
  EXPECT_EQ(cache.bytes(), cost(10));
}

TEST(ServeAnswerCache, EvictsTheLeastRecentlyUsedFirst) {
  AnswerCache cache(3 * cost(100));
  cache.insert("a", text(100));
  cache.insert("b", text(100));
  cache.insert("c", text(100));
  ASSERT_NE(cache.find("a"), nullptr);  // a is now the most recently used
  cache.insert("d", text(100));         // so b goes
  EXPECT_NE(cache.find("a"), nullptr);
  EXPECT_EQ(cache.find("b"), nullptr);
  EXPECT_NE(cache.find("c"), nullptr);
  EXPECT_NE(cache.find("d"), nullptr);
  EXPECT_EQ(cache.entries(), 3u);
}

TEST(ServeAnswerCache, NeverExceedsItsBound) {
  const uint64_t bound = 10000;
  AnswerCache cache(bound);
  for (int i = 0; i < 500; i++) {
    // append, not "k" + ...: GCC 12 at -O3 reports a false -Wrestrict there.
    cache.insert(std::string("k").append(std::to_string(i)),
                 text(static_cast<size_t>(37 * i % 900)));
    ASSERT_LE(cache.bytes(), bound) << i;
  }
  EXPECT_GT(cache.entries(), 1u);
}

TEST(ServeAnswerCache, DoesNotKeepAnEntryLargerThanTheBound) {
  AnswerCache cache(1000);
  cache.insert("small", text(100));
  cache.insert("big", text(1000));
  EXPECT_EQ(cache.find("big"), nullptr);
  EXPECT_NE(cache.find("small"), nullptr);  // and nothing was evicted for it
  AnswerCache none(0);
  none.insert("a", text(1));
  EXPECT_EQ(none.find("a"), nullptr);
  EXPECT_EQ(none.bytes(), 0u);
}

TEST(ServeAnswerCache, ReplacingAnEntryCountsItOnce) {
  AnswerCache cache(1 << 20);
  cache.insert("a", text(100));
  cache.insert("a", text(50));
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.bytes(), cost(50));
}

TEST(ServeAnswerKey, DoublesAreKeyedByTheirExactValue) {
  // to_string kept six decimals, so 2.5000001 was answered with 2.5's answer.
  EXPECT_NE(AnswerKey("suspects").add("threshold", 2.5000001).str(),
            AnswerKey("suspects").add("threshold", 2.5).str());
  EXPECT_EQ(AnswerKey("suspects").add("threshold", 2.5).str(),
            AnswerKey("suspects").add("threshold", 5.0 / 2).str());
}

TEST(ServeAnswerKey, TextCannotImitateAnotherParameter) {
  EXPECT_NE(AnswerKey("diff").add("filter", "a sort=5:count").add("sort", "x").str(),
            AnswerKey("diff").add("filter", "a").add("sort", "count").add("sort", "x").str());
  EXPECT_NE(AnswerKey("dups").add("n", uint64_t{1}).str(),
            AnswerKey("waste").add("n", uint64_t{1}).str());
}

}  // namespace
}  // namespace goheap::query
