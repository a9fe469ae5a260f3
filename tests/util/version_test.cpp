#include "util/version.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace goheap {
namespace {

// The version's one source, read as a person would: project(goheap VERSION
// X.Y.Z) in CMakeLists.txt.
std::string projectVersion() {
  std::ifstream in(std::string(GOHEAP_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  if (!std::regex_search(s, m, std::regex(R"(project\(goheap VERSION ([0-9.]+))"))) return "";
  return m[1];
}

TEST(Version, IsTheProjectsVersionInCMakeLists) {
  const std::string expected = projectVersion();
  ASSERT_FALSE(expected.empty()) << "no project(goheap VERSION ...) in CMakeLists.txt";
  EXPECT_EQ(goheapVersion(), expected);
}

TEST(Version, TheFullVersionAddsTheCommitWhenTheTreeHasOne) {
  const std::string commit(goheapCommit());
  if (commit.empty()) {
    EXPECT_EQ(goheapFullVersion(), std::string(goheapVersion()));
  } else {
    EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{7,40}"))) << commit;
    EXPECT_EQ(goheapFullVersion(), std::string(goheapVersion()) + "+g" + commit);
  }
}

}  // namespace
}  // namespace goheap
