// Every question on a stripped build, as production ships one
// (-ldflags="-s -w": no symbols, no DWARF), with its unstripped twin as the
// oracle: the same dump of tests/programs/leaks opened with either
// executable. Every question of one heap answers with the stripped one; the
// answers that do not depend on types (the graph, the allocation sites, the
// goroutines, the process's memory) are the unstripped one's, byte for byte
// or figure for figure.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "questions/catalog.h"
#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct Twins {
  testing::SessionPtr unstripped, stripped;
};

Twins openTwins(const std::string& version) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version;
  Twins t;
  auto unstripped = testing::openSession(dir + "/leaks.dump", dir + "/leaks");
  auto stripped = testing::openSession(dir + "/leaks.dump", dir + "/stripped/leaks");
  if (!unstripped || !stripped) {
    ADD_FAILURE() << dir << "/leaks.dump: "
                  << (!unstripped ? unstripped.error().message() : stripped.error().message());
    return t;
  }
  t.unstripped = unstripped.take();
  t.stripped = stripped.take();
  return t;
}

class StrippedLeaksTwin : public ::testing::TestWithParam<std::string> {};

TEST_P(StrippedLeaksTwin, EveryQuestionAnswers) {
  const Twins t = openTwins(GetParam());
  ASSERT_TRUE(t.stripped);
  // The stripped build is typed from the runtime's type descriptors.
  const JsonValue summary = testing::askQuestion("summary", {}, *t.stripped);
  EXPECT_EQ(summary["types"]["source"].str(), "descriptors");
  std::vector<std::string> asked;
  for (const questions::Question* q : questions::allQuestions()) {
    if (q->heaps == questions::HeapsNeeded::OldAndNew) continue;  // diff_test has its own
    // A question about one object or group needs it named: its own test asks.
    bool needs_input = false;
    for (const query::ParamSpec& p : q->params) needs_input = needs_input || p.required;
    if (needs_input) continue;
    SCOPED_TRACE(std::string(q->name));
    const Expected<std::string> answer =
        testing::questionJson(std::string(q->name), {}, *t.stripped);
    ASSERT_TRUE(answer) << answer.error().message();
    EXPECT_FALSE(answer->empty());
    asked.push_back(std::string(q->name));
  }
  // Most questions need no object named (obj and paths do).
  EXPECT_GE(asked.size(), questions::allQuestions().size() / 2) << ::testing::PrintToString(asked);
  std::printf("%zu questions asked: %s\n", asked.size(), ::testing::PrintToString(asked).c_str());
}

// The figures of the summary that the graph alone decides: the counts, and
// each top retainer's address, retained and shallow bytes.
std::vector<std::pair<std::string, uint64_t>> graphFigures(const JsonValue& summary) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const char* key : {"reachable_count", "reachable_bytes", "garbage_count", "garbage_bytes"}) {
    out.emplace_back(key, summary["objects"][key].u64());
  }
  for (const JsonValue& r : summary["top_retainers"].items()) {
    const std::string address = r["object"]["address"].str();
    out.emplace_back(address + " retained", r["retained"].u64());
    out.emplace_back(address + " shallow", r["shallow"].u64());
  }
  return out;
}

TEST_P(StrippedLeaksTwin, AnswersWithoutTypesAreTheUnstrippedOnes) {
  const Twins t = openTwins(GetParam());
  ASSERT_TRUE(t.stripped);
  EXPECT_EQ(graphFigures(testing::askQuestion("summary", {{"top", "30"}}, *t.stripped)),
            graphFigures(testing::askQuestion("summary", {{"top", "30"}}, *t.unstripped)));
  // Sites come from the pclntab, which a stripped build keeps.
  const testing::QuestionParams by_site{{"by", "site"}, {"n", "50"}};
  for (const auto& [name, params] : std::vector<std::pair<std::string, testing::QuestionParams>>{
           {"top", by_site}, {"goroutines", {}}, {"memory", {}}}) {
    SCOPED_TRACE(name);
    const Expected<std::string> stripped = testing::questionJson(name, params, *t.stripped);
    const Expected<std::string> unstripped = testing::questionJson(name, params, *t.unstripped);
    ASSERT_TRUE(stripped && unstripped);
    EXPECT_EQ(*stripped, *unstripped);
  }
}

INSTANTIATE_TEST_SUITE_P(Questions, StrippedLeaksTwin, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
