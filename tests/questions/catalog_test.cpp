// The question table (questions/catalog.cpp) against the source tree: every
// file of src/questions/ that makes a question is in it under the file's
// name, once, and each has its test file here, tests/questions/NAME_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "questions/catalog.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

// The stems of src/questions/*.cpp that make a Question (questionOf).
std::set<std::string> questionFiles() {
  std::set<std::string> out;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(GOHEAP_SOURCE_DIR) / "src" / "questions")) {
    if (e.path().extension() != ".cpp") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    // A question file makes its Question from its kInfo and kParts.
    if (text.str().find("questionOf<kInfo, kParts>") != std::string::npos) {
      out.insert(e.path().stem());
    }
  }
  return out;
}

TEST(QuestionCatalog, EveryQuestionFileIsInTheTableOnce) {
  std::set<std::string> names;
  for (const questions::Question* q : questions::allQuestions()) {
    EXPECT_TRUE(names.insert(std::string(q->name)).second) << q->name << " is listed twice";
    EXPECT_EQ(questions::findQuestion(q->name), q) << q->name;
  }
  EXPECT_EQ(names, questionFiles());
  EXPECT_EQ(questions::findQuestion("no-such-question"), nullptr);
}

TEST(QuestionCatalog, EveryQuestionHasItsTestFile) {
  const fs::path here = fs::path(GOHEAP_SOURCE_DIR) / "tests" / "questions";
  for (const questions::Question* q : questions::allQuestions()) {
    EXPECT_TRUE(fs::exists(here / (std::string(q->name) + "_test.cpp"))) << q->name;
  }
}

}  // namespace
}  // namespace goheap
