// Percent-decoding of request targets (src/serve/url.h): what the server's
// parameters see is what the client meant.
#include <gtest/gtest.h>

#include "serve/url.h"

namespace goheap::serve {
namespace {

TEST(HttpPercentDecode, UndoesEscapesInAnyCase) {
  EXPECT_EQ(percentDecode("a%20b%2Fc%2fd", false), "a b/c/d");
  EXPECT_EQ(percentDecode("%25", false), "%");
  EXPECT_EQ(percentDecode("%e2%82%AC", false), "\xe2\x82\xac");
  EXPECT_EQ(percentDecode("", false), "");
}

TEST(HttpPercentDecode, PlusIsASpaceOnlyInTheQuery) {
  EXPECT_EQ(percentDecode("a+b", true), "a b");
  EXPECT_EQ(percentDecode("a+b", false), "a+b");
  EXPECT_EQ(percentDecode("a%2Bb", true), "a+b");
}

TEST(HttpPercentDecode, RejectsBrokenEscapes) {
  for (const char* bad : {"%", "%4", "a%zz", "%g0", "abc%2"}) {
    EXPECT_FALSE(percentDecode(bad, true)) << bad;
  }
}

TEST(HttpTarget, SplitsPathAndQuery) {
  auto t = parseTarget("/api/top?by=site&n=5&filter=main.%28%2AServer%29+x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/api/top");
  ASSERT_EQ(t->query.size(), 3u);
  EXPECT_EQ(t->query[0], (std::pair<std::string, std::string>{"by", "site"}));
  EXPECT_EQ(t->query[1], (std::pair<std::string, std::string>{"n", "5"}));
  EXPECT_EQ(t->query[2].second, "main.(*Server) x");
}

TEST(HttpTarget, KeepsNamesWithoutValuesAndSkipsEmptyPairs) {
  auto t = parseTarget("/api/goroutines?user&&frames=&x%3Dy=1");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->query.size(), 3u);
  EXPECT_EQ(t->query[0], (std::pair<std::string, std::string>{"user", ""}));
  EXPECT_EQ(t->query[1], (std::pair<std::string, std::string>{"frames", ""}));
  EXPECT_EQ(t->query[2], (std::pair<std::string, std::string>{"x=y", "1"}));
}

TEST(HttpTarget, DecodesThePath) {
  auto t = parseTarget("/app%2Ejs");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/app.js");
  EXPECT_TRUE(t->query.empty());
  auto plus = parseTarget("/a+b?");
  ASSERT_TRUE(plus);
  EXPECT_EQ(plus->path, "/a+b");
}

TEST(HttpTarget, NamesTheBadPart) {
  auto t = parseTarget("/api/top?filter=100%");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("filter=100%"), std::string::npos) << t.error().message();
  EXPECT_FALSE(parseTarget("/%zz"));
}

}  // namespace
}  // namespace goheap::serve
