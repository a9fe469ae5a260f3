// The tools' outputSchemas, made from docs/cli-json.md, against the answers
// themselves: every question, with the parameters that change its shape, on
// the test programs' dumps of each tested Go release (with and without the
// executable) and the leaky example. A field the tables call always there
// must be there, with the type they give it; so the document and the code
// cannot drift apart unnoticed, and an MCP client that checks a result
// against its schema never refuses one.
#include <gtest/gtest.h>

#include <filesystem>

#include "mcp/output_schema.h"
#include "mcp/tools.h"
#include "questions/catalog.h"
#include "support/ask_question.h"
#include "support/go_versions.h"
#include "support/json_schema_check.h"
#include "support/kernel_core.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

// The question `name` asked with API parameters `given`, as JSON.
std::string answerJson(const std::string& name, const Params& given, const query::Session& current,
                       const query::Session* base = nullptr) {
  Expected<std::string> json = testing::questionJson(name, given, current, base);
  EXPECT_TRUE(json) << name << ": " << json.error().message();
  return json ? *json : std::string();
}

void expectMatchesSchema(const std::string& name, const std::string& json,
                         const std::string& where) {
  if (json.empty()) return;
  std::optional<std::string> schema = mcp::outputSchema(name);
  ASSERT_TRUE(schema) << name;
  const std::vector<std::string> problems =
      testing::schemaProblems(testing::JsonValue::parse(json), testing::JsonValue::parse(*schema));
  std::string list;
  for (size_t i = 0; i < problems.size() && i < 10; i++) list += "\n  " + problems[i];
  EXPECT_TRUE(problems.empty()) << name << " on " << where << ": " << problems.size()
                                << " problems (docs/cli-json.md says otherwise):" << list;
}

// Every one-heap question, with the parameters that change what it writes.
void checkOneHeap(const std::string& dump, const std::string& exe) {
  auto session = testing::openSession(dump, exe);
  ASSERT_TRUE(session) << dump << ": " << session.error().message();
  const std::string where = dump + (exe.empty() ? "" : " with " + exe);
  const std::vector<std::pair<std::string, Params>> asks = {
      {"summary", {}},
      {"summary", {{"top", "2"}}},
      {"top", {}},
      {"top", {{"by", "site"}}},
      {"top", {{"by", "shape"}, {"offset", "1"}, {"filter", "a"}}},
      {"dom", {}},
      {"dom", {{"depth", "2"}, {"min_bytes", "0"}}},
      {"goroutines", {}},
      {"goroutines", {{"leaked", "true"}}},
      {"goroutines", {{"group", "true"}}},
      {"goroutines", {{"frames", "false"}, {"user", "true"}, {"sort", "retained"}}},
      {"suspects", {}},
      {"suspects", {{"threshold", "1"}, {"limit", "0"}}},
      {"dups", {}},
      {"dups", {{"kind", "objects"}}},
      {"waste", {}},
      {"memory", {}},
      {"memory", {{"mappings", "true"}}},
      {"sql", {{"q", "SELECT address, type, size FROM objects LIMIT 3; SELECT 1"}}},
  };
  for (const auto& [name, params] : asks) {
    expectMatchesSchema(name, answerJson(name, params, **session), where);
  }
  // obj and paths of a top retainer, and of the first object (garbage or not).
  const testing::JsonValue summary =
      testing::JsonValue::parse(answerJson("summary", {}, **session));
  std::vector<std::string> addresses;
  const analysis::Snapshot& snap = (*session)->snapshot();
  if (snap.heap.objectCount() > 0) addresses.push_back(std::to_string(snap.address(0)));
  if (summary["top_retainers"].size() > 0) {
    addresses.push_back(summary["top_retainers"][0]["object"]["address"].str());
  }
  for (const std::string& addr : addresses) {
    for (const char* name : {"obj", "paths"}) {
      expectMatchesSchema(name, answerJson(name, {{"addr", addr}}, **session),
                          where + " at " + addr);
    }
  }
}

TEST(McpOutputSchema, EveryToolHasOneFromTheDoc) {
  for (const questions::Question* q : mcp::toolQuestions()) {
    EXPECT_TRUE(mcp::outputSchema(q->name)) << q->name;
  }
  // A row the reader cannot read is an error naming it, not a wrong schema.
  auto bad = mcp::outputSchemaFromDoc(
      "\n## Node labels\n| `kind` | string | k |\n\n## x\n| `a` | colour | ? |\n", "x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("colour"), std::string::npos);
  auto ok = mcp::outputSchemaFromDoc(
      "\n## Node labels\n| `kind` | string | k |\n\n## x\n"
      "| `a[].b`, `.c` | integer, optional | ? |\n| `d` | label | ? |\n",
      "x");
  ASSERT_TRUE(ok) << ok.error().message();
  const testing::JsonValue schema = testing::JsonValue::parse(*ok);
  EXPECT_EQ(schema["properties"]["a"]["items"]["properties"]["c"]["type"].str(), "integer");
  EXPECT_EQ(schema["properties"]["d"]["required"][0].str(), "kind");
}

TEST(McpOutputSchema, TheLeakyExampleMatches) {
  const std::string ex = std::string(GOHEAP_SOURCE_DIR) + "/examples/";
  checkOneHeap(ex + "leaky.dump", ex + "leaky-linux-amd64");
  checkOneHeap(ex + "leaky.dump", "");
}

class McpOutputSchemaOnReleases : public ::testing::TestWithParam<std::string> {};

TEST_P(McpOutputSchemaOnReleases, AnswersMatchTheirSchemas) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/";
  if (!std::filesystem::exists(dir + "leaks.dump")) {
    GTEST_SKIP() << "no " << dir << "leaks.dump (make_test_dumps makes it)";
  }
  for (const char* program : {"zoo", "leaks", "goleak", "retention", "stripped/leaks"}) {
    if (std::filesystem::exists(dir + program + ".dump")) {
      checkOneHeap(dir + program + ".dump", dir + program);
    }
  }
  auto old_heap = testing::openSession(dir + "leaks.old.dump", dir + "leaks");
  auto new_heap = testing::openSession(dir + "leaks.dump", dir + "leaks");
  ASSERT_TRUE(old_heap && new_heap);
  for (const Params& params : {Params{}, Params{{"unchanged", "true"}, {"by", "site"}},
                               Params{{"filter", "Session"}, {"offset", "1"}}}) {
    expectMatchesSchema("diff", answerJson("diff", params, **new_heap, old_heap->get()),
                        dir + "leaks");
  }
  expectMatchesSchema(
      "sql",
      answerJson("sql", {{"q", "SELECT count(*) FROM old.objects"}}, **new_heap, old_heap->get()),
      dir + "leaks");
}

// A kernel core: its memory answer has the mappings a dump's has not.
TEST(McpOutputSchema, AKernelCoresAnswersMatch) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27/coreprog";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << "no " << exe << " (make_test_dumps makes it)";
  testing::KernelCoreRun run;
  testing::runForKernelCore(exe, run, {run.dir.path + "/heap.dump"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  checkOneHeap(run.core, exe);
}

INSTANTIATE_TEST_SUITE_P(GoVersions, McpOutputSchemaOnReleases,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
