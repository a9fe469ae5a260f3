// `goheap sql` as a user runs it: queries from -e and from standard input,
// text, JSON and CSV that say the same, --base, and the exit codes and
// messages of mistakes.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/export_support.h"
#include "support/goheap_process.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using testing::JsonValue;
using testing::RunResult;

const std::string kDir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27";
const std::string kDump = kDir + "/leaks.dump";
const std::string kOld = kDir + "/leaks.old.dump";
const std::string kExe = kDir + "/leaks";
constexpr const char* kSessions =
    "SELECT count(*) AS n, sum(size) AS bytes FROM objects WHERE type = 'main.Session'";

class SqlCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kDump)) GTEST_SKIP() << kDump << " is missing";
    report_ = JsonValue::parseFile(kDir + "/leaks.json");
  }
  uint64_t sessions() const {
    return report_["sessions"]["sessions_old"].u64() + report_["sessions"]["sessions_added"].u64();
  }
  JsonValue report_;
};

TEST_F(SqlCommand, TextJsonAndCsvSayTheSame) {
  RunResult json =
      testing::runGoheap({"sql", kDump, kExe, "--no-cache", "--json", "-e", kSessions, "-e",
                          "SELECT name FROM globals WHERE name = 'main.sessions'"});
  ASSERT_TRUE(json.exited && json.code == 0) << json.describe();
  const JsonValue doc = JsonValue::parse(json.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["columns"][0].str(), "n");
  EXPECT_EQ(doc["results"][0]["rows"][0][0].u64(), sessions());
  EXPECT_EQ(doc["results"][1]["rows"][0][0].str(), "main.sessions");

  RunResult csv = testing::runGoheap({"sql", kDump, kExe, "--no-cache", "--csv", "-e", kSessions});
  ASSERT_TRUE(csv.exited && csv.code == 0) << csv.describe();
  EXPECT_EQ(csv.out, "n,bytes\n" + std::to_string(sessions()) + "," +
                         std::to_string(doc["results"][0]["rows"][0][1].u64()) + "\n");

  RunResult text = testing::runGoheap({"sql", kDump, kExe, "--no-cache", "-e", kSessions});
  ASSERT_TRUE(text.exited && text.code == 0) << text.describe();
  EXPECT_NE(text.out.find(std::to_string(sessions())), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 row"), std::string::npos) << text.out;
}

TEST_F(SqlCommand, ReadsStatementsFromStandardInput) {
  const std::string file = testing::scratch().file("sql-stdin.sql");
  testing::writeWholeFile(
      file, std::string("-- two statements\n") + kSessions + ";\nSELECT 'a;b' AS text;\n");
  const std::string out = testing::scratch().file("sql-stdin.out");
  const std::string cmd = std::string("'") + GOHEAP_BINARY + "' sql '" + kDump + "' '" + kExe +
                          "' --no-cache --json < '" + file + "' > '" + out + "'";
  ASSERT_EQ(testing::runCommand(cmd), 0) << cmd;
  const JsonValue doc = JsonValue::parse(testing::readWholeFile(out));
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["rows"][0][0].u64(), sessions());
  EXPECT_EQ(doc["results"][1]["rows"][0][0].str(), "a;b");
}

TEST_F(SqlCommand, BaseIsTheSchemaOld) {
  RunResult r = testing::runGoheap(
      {"sql", kDump, kExe, "--base", kOld, "--no-cache", "--json", "-e",
       "SELECT (SELECT count(*) FROM objects WHERE type = 'main.Session') - (SELECT count(*) FROM "
       "old.objects WHERE type = 'main.Session')"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_EQ(JsonValue::parse(r.out)["results"][0]["rows"][0][0].u64(),
            report_["sessions"]["sessions_added"].u64());
}

TEST_F(SqlCommand, MistakesSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"sql", kDump, "--no-cache", "-e", "SELEC 1"}, 1, "near \"SELEC\": syntax error"},
      {{"sql", kDump, "--no-cache", "-e", "DELETE FROM objects"}, 1, "may not be modified"},
      {{"sql", kDump, "--no-cache", "-e", "SELECT * FROM nosuch"}, 1, "no such table: nosuch"},
      {{"sql", kDump, "--no-cache", "-e", "SELECT 1", "--json", "--csv"}, 2, "--csv"},
      {{"sql", "--no-cache", "-e", "SELECT 1"}, 2, "missing HEAP"},
      {{"sql", kDump, "--no-cache", "--base", "/nonexistent.dump", "-e", "SELECT 1"},
       1,
       "/nonexistent.dump"},
  };
  for (const Case& c : cases) {
    RunResult r = testing::runGoheap(c.args);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, c.code) << r.describe();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.describe();
  }
  // What ran before the mistake is printed.
  RunResult partial =
      testing::runGoheap({"sql", kDump, "--no-cache", "-e", "SELECT 41 + 1", "-e", "SELEC"});
  EXPECT_EQ(partial.code, 1);
  EXPECT_NE(partial.out.find("42"), std::string::npos) << partial.describe();
  // Help has examples.
  RunResult help = testing::runGoheap({"sql", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("docs/sql.md"), std::string::npos);
  EXPECT_NE(help.out.find("--base"), std::string::npos);
}

}  // namespace
}  // namespace goheap
