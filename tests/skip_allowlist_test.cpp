// The allowlist of skips a CI run accepts (tests/support/skip_allowlist.h):
// its matcher, and the repository's own list.
#include <gtest/gtest.h>

#include "support/skip_allowlist.h"

namespace goheap::testing {
namespace {

SkipAllowlist parsed(const std::string& text) {
  Expected<SkipAllowlist> list = SkipAllowlist::parse(text);
  EXPECT_TRUE(list.ok()) << list.error().message();
  return list ? list.take() : SkipAllowlist{};
}

TEST(SkipAllowlist, CoversASkipOnlyWhenTheTestAndTheMessageBothMatch) {
  const SkipAllowlist list = parsed(
      "# comment\n"
      "\n"
      "Cores/KernelCore.* | *core_pattern*read-only* | containers mount /proc/sys read-only\n");
  ASSERT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(list.entries()[0].test_pattern, "Cores/KernelCore.*");
  EXPECT_EQ(list.entries()[0].message_pattern, "*core_pattern*read-only*");
  EXPECT_EQ(list.entries()[0].reason, "containers mount /proc/sys read-only");

  const std::string why =
      "cannot have the kernel write a core: core_pattern pipes (|x) and "
      "/proc/sys is read-only here";
  const SkipAllowance* a = list.covering("Cores/KernelCore.Writes/go1_24", why);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, &list.entries()[0]);
  // Another test with the same message, the same test with another message.
  EXPECT_EQ(list.covering("Cores/Snap.Writes/go1_24", why), nullptr);
  EXPECT_EQ(list.covering("Cores/KernelCore.Writes/go1_24", "go1.24/coreprog is missing"), nullptr);
}

TEST(SkipAllowlist, PatternsMatchTheWholeNameAndMessage) {
  const SkipAllowlist list = parsed("Suite.Test | no qemu | reason\n");
  EXPECT_NE(list.covering("Suite.Test", "no qemu"), nullptr);
  EXPECT_EQ(list.covering("Suite.Test/go1_24", "no qemu"), nullptr);
  EXPECT_EQ(list.covering("Suite.Test", "no qemu here"), nullptr);
  EXPECT_EQ(list.covering("My/Suite.Test", "no qemu"), nullptr);
}

TEST(SkipAllowlist, AMessageOfSeveralLinesIsMatchedAsOneLine) {
  const SkipAllowlist list = parsed("* | first line second line | reason\n");
  EXPECT_NE(list.covering("Any.Test", "first line\nsecond line\n"), nullptr);
  EXPECT_EQ(oneLine("  a\nb\r\n"), "a b");
}

TEST(SkipAllowlist, ALineWithoutThreePartsIsAnErrorNamingIt) {
  for (const std::string& bad : {std::string("ok | ok | ok\nSuite.* | message only\n"),
                                 std::string("ok | ok | ok\nSuite.* |  | reason\n"),
                                 std::string("ok | ok | ok\n | message | reason\n"),
                                 std::string("ok | ok | ok\nSuite.* | message | \n")}) {
    Expected<SkipAllowlist> list = SkipAllowlist::parse(bad);
    ASSERT_FALSE(list.ok()) << bad;
    EXPECT_NE(list.error().message().find("line 2"), std::string::npos) << list.error().message();
  }
}

TEST(SkipAllowlist, AMissingFileIsAnError) {
  Expected<SkipAllowlist> list = SkipAllowlist::read("/nonexistent/skip-allowlist.txt");
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.error().message().find("/nonexistent/skip-allowlist.txt"), std::string::npos);
}

// The repository's list is read by every CI run: it parses, stays short,
// and each entry names a condition, not any skip at all.
TEST(SkipAllowlist, TheRepositorysListIsShortAndNamesExactConditions) {
  Expected<SkipAllowlist> list =
      SkipAllowlist::read(std::string(GOHEAP_SOURCE_DIR) + "/tests/skip-allowlist.txt");
  ASSERT_TRUE(list.ok()) << list.error().message();
  EXPECT_LE(list->entries().size(), 10u);
  for (const SkipAllowance& a : list->entries()) {
    std::string literal = a.message_pattern;
    std::erase(literal, '*');
    EXPECT_GE(literal.size(), 10u) << "too broad a condition: " << a.message_pattern;
    EXPECT_GE(a.reason.size(), 20u) << "say why: " << a.reason;
  }
}

}  // namespace
}  // namespace goheap::testing
