// goheap report on the leaks program's two dumps (tests/programs/leaks),
// Go 1.19 and Go 1.24: the JSON's growth against what the program says it
// leaked between the dumps, --fail-if-growth's exit status on both sides of
// that, the argument mistakes, and the HTML page in headless Chromium with
// its numbers checked against the JSON file (tests/cli/report_check.js).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;
using testing::RunResult;

struct LeaksFiles {
  std::string dir;
  std::string old_dump() const { return dir + "/leaks.old.dump"; }
  std::string new_dump() const { return dir + "/leaks.dump"; }
  std::string exe() const { return dir + "/leaks"; }
  JsonValue oracle() const { return JsonValue::parse(testing::readWholeFile(dir + "/leaks.json")); }
};

class ReportOnLeaks : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    files_.dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
    if (!std::filesystem::exists(files_.new_dump())) {
      GTEST_SKIP() << files_.new_dump() << " is missing (ctest's make_test_dumps writes it)";
    }
  }
  std::string out(const std::string& name) const {
    return testing::scratch().file(GetParam() + "-" + name);
  }
  LeaksFiles files_;
};

// The least the reachable heap must have grown by between the dumps: what
// the program added and still holds (sessions, held buffers, heads' arrays,
// copies of the duplicated string), not counting the containers around them.
uint64_t plantedGrowth(const JsonValue& r) {
  const uint64_t strings_added = r["dup_string"]["copies"].u64() - r["dup_string_old"].u64();
  return r["sessions"]["new_bytes"].u64() +
         r["buffers"]["buffers_added"].u64() * r["buffers"]["size"].u64() +
         (r["heads"]["arrays"].size() - r["heads"]["heads_old"].u64()) *
             r["heads"]["arrays"][0]["size"].u64() +
         strings_added * r["dup_string"]["size"].u64();
}

TEST_P(ReportOnLeaks, GrowthCoversWhatTheProgramLeakedAndFailsTheBuildAboveTheLimit) {
  const JsonValue oracle = files_.oracle();
  const uint64_t planted = plantedGrowth(oracle);
  const std::string html = out("a.html"), json = out("a.json");

  // Allowed one byte less than what was leaked: the report must fail.
  RunResult r = testing::runGoheap({"report", files_.new_dump(), files_.old_dump(), files_.exe(),
                                    "--html", html, "--json-file", json, "--no-progress",
                                    "--fail-if-growth", std::to_string(planted - 1)});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_NE(r.err.find("grew by"), std::string::npos) << r.describe();
  const JsonValue doc = JsonValue::parse(testing::readWholeFile(json));
  EXPECT_EQ(doc["schema_version"].u64(), 1u);
  const JsonValue& g = doc["growth"];
  EXPECT_GE(g["delta_bytes"].number(), static_cast<double>(planted));
  EXPECT_EQ(g["new_reachable_bytes"].u64(), doc["summary"]["objects"]["reachable_bytes"].u64());
  EXPECT_EQ(g["new_reachable_bytes"].u64() - g["old_reachable_bytes"].u64(),
            g["delta_bytes"].u64());
  EXPECT_GE(g["delta_objects"].number(), oracle["sessions"]["sessions_added"].number());
  EXPECT_TRUE(g["failed"].boolean());
  EXPECT_EQ(g["fail_if_growth"].u64(), planted - 1);
  EXPECT_EQ(doc["summary"]["go_version"].str(), oracle["go_version"].str());

  // A limit above the growth passes; EXE may come before OLD.
  const std::string html2 = out("b.html"), json2 = out("b.json");
  r = testing::runGoheap({"report", files_.new_dump(), files_.exe(), files_.old_dump(), "--html",
                          html2, "--json-file", json2, "--no-progress", "--fail-if-growth", "1TB"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("wrote " + html2), std::string::npos) << r.describe();
  const JsonValue doc2 = JsonValue::parse(testing::readWholeFile(json2));
  EXPECT_FALSE(doc2["growth"]["failed"].boolean());
  EXPECT_EQ(doc2["growth"]["delta_bytes"].number(), g["delta_bytes"].number());
  EXPECT_EQ(doc2["base"].str(), files_.old_dump());
  EXPECT_EQ(doc2["executable"].str(), files_.exe());
}

TEST_P(ReportOnLeaks, WithoutOldThereIsNoGrowthAndJsonGoesToStdout) {
  const std::string html = out("c.html");
  RunResult r =
      testing::runGoheap({"report", files_.new_dump(), "--html", html, "--json", "--no-progress"});
  ASSERT_TRUE(r.exited) << r.describe();
  ASSERT_EQ(r.code, 0) << r.describe();
  const JsonValue doc = JsonValue::parse(r.out);
  EXPECT_FALSE(doc.has("growth"));
  EXPECT_FALSE(doc.has("base"));
  EXPECT_EQ(testing::readWholeFile(out("c.json")), r.out);  // the .json beside the .html
  EXPECT_TRUE(doc.has("summary"));
  EXPECT_TRUE(doc.has("top"));
}

// Each section is the document the command of that name prints: a reader of
// `goheap suspects --json` reads the report's suspects the same way.
TEST_P(ReportOnLeaks, EachSectionIsTheDocumentOfItsCommand) {
  const std::string html = out("s.html"), json = out("s.json");
  RunResult r = testing::runGoheap({"report", files_.new_dump(), files_.old_dump(), files_.exe(),
                                    "--html", html, "--json-file", json, "--no-progress"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  // Whitespace aside (the report indents its sections one level deeper).
  auto squeeze = [](const std::string& text) {
    std::string s;
    for (char c : text) {
      if (c != ' ' && c != '\n') s += c;
    }
    return s;
  };
  const std::string report = squeeze(testing::readWholeFile(json));
  const std::vector<std::pair<std::string, std::vector<std::string>>> sections = {
      {"summary", {"summary", files_.new_dump(), files_.exe(), "-n", "20"}},
      {"top", {"top", files_.new_dump(), files_.exe()}},
      {"suspects", {"suspects", files_.new_dump(), files_.exe()}},
      {"duplicates", {"dups", files_.new_dump(), files_.exe()}},
      {"waste", {"waste", files_.new_dump(), files_.exe()}},
      {"diff", {"diff", files_.old_dump(), files_.new_dump(), files_.exe()}},
  };
  for (const auto& [name, args] : sections) {
    std::vector<std::string> words = args;
    words.push_back("--json");
    words.push_back("--no-progress");
    RunResult c = testing::runGoheap(words);
    ASSERT_TRUE(c.exited && c.code == 0) << c.describe();
    EXPECT_NE(report.find("\"" + name + "\":" + squeeze(c.out)), std::string::npos)
        << name << " differs from goheap " << args[0] << " --json";
  }
}

// A team's saved queries: their rows in the JSON, and --fail-if-rows fails
// the build when one finds something (the Sessions added since OLD), not
// when none does.
TEST_P(ReportOnLeaks, SavedQueriesFailTheBuildWhenTheyFindRows) {
  const JsonValue oracle = files_.oracle();
  const std::string found = out("found.sql"), clean = out("clean.sql");
  testing::writeWholeFile(found,
                          "-- Sessions added since the base dump\n"
                          "SELECT addr(address) FROM objects o WHERE type = 'main.Session' AND "
                          "NOT EXISTS (SELECT 1 FROM old.objects p WHERE p.address = o.address "
                          "AND p.type = o.type);\n");
  testing::writeWholeFile(clean, "SELECT id FROM objects WHERE size > 1e12;");
  const std::string html = out("q.html"), json = out("q.json");
  RunResult r = testing::runGoheap({"report", files_.new_dump(), files_.old_dump(), files_.exe(),
                                    "--html", html, "--json-file", json, "--no-progress", "--sql",
                                    clean, "--sql", found, "--fail-if-rows"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_NE(r.err.find("returned rows"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find(found), std::string::npos) << r.describe();
  const JsonValue doc = JsonValue::parse(testing::readWholeFile(json));
  const JsonValue& sql = doc["sql"];
  EXPECT_TRUE(sql["failed"].boolean());
  EXPECT_EQ(sql["statements_with_rows"].u64(), 1u);
  ASSERT_EQ(sql["files"].size(), 2u);
  EXPECT_EQ(sql["files"][0]["results"][0]["row_count"].u64(), 0u);
  const JsonValue& rows = sql["files"][1]["results"][0]["rows"];
  std::set<uint64_t> got, want;
  for (const JsonValue& row : rows.items()) got.insert(row[0].hexAddress());
  for (const JsonValue& a : oracle["sessions"]["new_addrs"].items()) want.insert(a.hexAddress());
  if (want.size() <= 1000) {  // the report keeps 1,000 rows of each
    EXPECT_EQ(got, want);
  } else {
    EXPECT_TRUE(std::includes(want.begin(), want.end(), got.begin(), got.end()));
  }
  // The clean file alone passes.
  r = testing::runGoheap({"report", files_.new_dump(), files_.exe(), "--html", html, "--json-file",
                          json, "--no-progress", "--sql", clean, "--fail-if-rows"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_FALSE(JsonValue::parse(testing::readWholeFile(json))["sql"]["failed"].boolean());
}

TEST_P(ReportOnLeaks, MistakesAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
    int code;
  };
  const std::vector<Case> cases = {
      {{"report", files_.new_dump(), "--fail-if-growth", "1MB"}, "needs OLD", 2},
      {{"report", files_.new_dump(), files_.old_dump(), files_.old_dump()}, "two earlier dumps", 2},
      {{"report", files_.new_dump(), files_.exe(), files_.exe()}, "two executables", 2},
      {{"report", files_.new_dump(), "--html", "x.json", "--json-file", "x.json"}, "same file", 2},
      {{"report", files_.new_dump(), "--html", "/nonexistent-dir/r.html", "--no-progress"},
       "cannot create /nonexistent-dir/r.html: No such file or directory",
       1},
      {{"report", "/nonexistent.dump", "--no-progress"}, "/nonexistent.dump", 1},
      {{"report", files_.new_dump(), "--fail-if-rows"}, "needs --sql", 2},
      {{"report", files_.new_dump(), "--sql", "/nonexistent.sql"}, "cannot read --sql", 2},
  };
  for (const Case& c : cases) {
    RunResult r = testing::runGoheap(c.args);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, c.code) << r.describe();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.describe();
    EXPECT_TRUE(r.out.empty()) << r.describe();
  }
}

// The page in a real browser with the network cut off: every number it shows
// is the JSON's, and every table has the JSON's rows.
TEST_P(ReportOnLeaks, PageShowsTheJsonsNumbersInChromiumOffline) {
  const std::string npm = std::string(GOHEAP_NPM_DIR) + "/node_modules/playwright-core";
  GOHEAP_REQUIRE_TOOL(std::filesystem::exists(npm + "/package.json"),
                      "playwright-core is not installed (ctest's install_npm_tools does)");
  GOHEAP_REQUIRE_TOOL(std::filesystem::exists("/usr/bin/chromium"),
                      "chromium is not installed (scripts/install-deps.sh installs it)");
  const std::string html = out("page.html"), json = out("page.json"), checks = out("page.sql");
  testing::writeWholeFile(checks,
                          "SELECT type, count(*), sum(size) FROM objects WHERE reachable "
                          "GROUP BY type ORDER BY 3 DESC LIMIT 5;\n"
                          "SELECT name, address FROM globals WHERE name LIKE 'main.%';\n");
  RunResult r =
      testing::runGoheap({"report", files_.new_dump(), files_.old_dump(), files_.exe(), "--html",
                          html, "--json-file", json, "--no-progress", "--sql", checks});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const std::string page = testing::readWholeFile(html);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  EXPECT_EQ(page.find("/*GOHEAP-REPORT-"), std::string::npos) << "a marker was not filled";

  const std::string shots = std::string(GOHEAP_TESTDUMPS_DIR) + "/../ui-screenshots";
  std::filesystem::create_directories(shots);
  const std::string result = out("check.out");
  const std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) + "/tests/cli/report_check.js " +
                          npm + " /usr/bin/chromium " + html + " " + json + " " + shots +
                          "/report-" + GetParam() + ".png > " + result + " 2>&1";
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd << "\n" << testing::readWholeFile(result);
  const JsonValue checked = JsonValue::parse(testing::readWholeFile(result));
  EXPECT_GT(checked["checked"].u64(), 50u);
  std::vector<std::string> sections;
  for (size_t i = 0; i < checked["sections"].size(); i++) {
    sections.push_back(checked["sections"][i].str());
  }
  for (const char* want : {"summary", "top", "suspects", "duplicates", "waste", "diff", "sql"}) {
    EXPECT_NE(std::find(sections.begin(), sections.end(), want), sections.end()) << want;
  }
}

INSTANTIATE_TEST_SUITE_P(Toolchains, ReportOnLeaks, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
