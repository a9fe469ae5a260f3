// goheap goroutines --leaked [--group] and summary's leaked line, end to
// end on the dumps of tests/programs/goleak, against the program's truth.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using testing::JsonValue;

class GoroutinesLeaked : public ::testing::TestWithParam<std::string> {
 protected:
  std::string dir() const { return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam(); }
  std::string dump() const { return dir() + "/goleak.dump"; }
  std::string exe() const { return dir() + "/goleak"; }
  // The truth: leaked goroutines by blocking function.
  std::map<std::string, uint64_t> truth() const {
    const JsonValue t = JsonValue::parseFile(dir() + "/goleak.json");
    std::map<std::string, uint64_t> leaked;
    for (const auto& [fn, n] : t["leaked"].members()) leaked[fn] = n.u64();
    return leaked;
  }
};

TEST_P(GoroutinesLeaked, GroupsAreTheProgramsLeaks) {
  testing::RunResult r =
      testing::runGoheap({"goroutines", dump(), exe(), "--leaked", "--group", "--json"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const JsonValue v = JsonValue::parse(r.out);
  std::map<std::string, uint64_t> found;
  for (const JsonValue& g : v["groups"].items()) {
    EXPECT_EQ(g["leaked"].u64(), g["goroutines"].u64()) << g["blocked_in"].str();
    found[g["blocked_in"].str()] = g["goroutines"].u64();
  }
  EXPECT_EQ(found, truth());
}

TEST_P(GoroutinesLeaked, EveryGoroutineSaysWhetherItLeaked) {
  testing::RunResult r = testing::runGoheap({"goroutines", dump(), exe(), "--json", "--no-frames"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const JsonValue v = JsonValue::parse(r.out);
  std::map<std::string, uint64_t> leaked;
  uint64_t decoys = 0;
  const JsonValue t = JsonValue::parseFile(dir() + "/goleak.json");
  for (const JsonValue& g : v["goroutines"].items()) {
    if (g["leaked"].boolean()) leaked[g["blocked_in"].str()]++;
    if (t["not_leaked"].has(g["blocked_in"].str())) {
      decoys++;
      EXPECT_FALSE(g["leaked"].boolean()) << g["blocked_in"].str();
    }
  }
  EXPECT_EQ(leaked, truth());
  // Seven decoys block in a function of their own name (the sleeper blocks
  // in time.Sleep, the Accept in internal/poll).
  EXPECT_EQ(decoys, 7u);
}

TEST_P(GoroutinesLeaked, SummarySaysHowManyAndWhatTheyHold) {
  testing::RunResult r = testing::runGoheap({"summary", dump(), exe(), "--json"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const JsonValue v = JsonValue::parse(r.out);
  uint64_t expected = 0;
  for (const auto& [fn, n] : truth()) expected += n;
  EXPECT_EQ(v["roots"]["leaked_goroutines"].u64(), expected);
  EXPECT_GE(v["roots"]["leaked_retained"].u64(), (expected - 1) * 4096);
  testing::RunResult text = testing::runGoheap({"summary", dump(), exe()});
  ASSERT_TRUE(text.exited && text.code == 0) << text.describe();
  EXPECT_NE(text.out.find("  leaked     " + std::to_string(expected) +
                          " goroutines blocked forever, retaining "),
            std::string::npos)
      << text.out;
}

// The Mutex the program put in one tiny block with a global slice's
// 4-byte array: leaked with the executable's types; without them, the
// runtime's answer (able to run), and the text says why.
TEST_P(GoroutinesLeaked, ATinyBlocksMutexIsLeakedWithTypesAndExplainedWithout) {
  const JsonValue t = JsonValue::parseFile(dir() + "/goleak.json");
  const std::string fn = t["tiny_shared"]["function"].str();
  auto tinyGoroutine = [&](const std::vector<std::string>& args) {
    testing::RunResult r = testing::runGoheap(args);
    EXPECT_TRUE(r.exited && r.code == 0) << r.describe();
    const JsonValue doc = JsonValue::parse(r.out);
    for (const JsonValue& g : doc["goroutines"].items()) {
      if (g["blocked_in"].str() == fn) return g;
    }
    ADD_FAILURE() << "no goroutine in " << fn;
    return JsonValue();
  };
  const JsonValue typed = tinyGoroutine({"goroutines", dump(), exe(), "--json", "--no-frames"});
  EXPECT_TRUE(typed["leaked"].boolean());
  EXPECT_FALSE(typed.has("not_leaked_because"));
  const JsonValue untyped = tinyGoroutine({"goroutines", dump(), "--json", "--no-frames"});
  EXPECT_FALSE(untyped["leaked"].boolean());
  EXPECT_TRUE(untyped["not_leaked_because"].str().starts_with(
      "its Mutex shares an allocation with memory that bss 0x"))
      << untyped["not_leaked_because"].str();
  testing::RunResult text = testing::runGoheap({"goroutines", dump(), "--no-frames"});
  ASSERT_TRUE(text.exited && text.code == 0) << text.describe();
  EXPECT_NE(text.out.find(", maybe leaked"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("goroutine " + std::to_string(untyped["id"].u64()) +
                          " is not called leaked: its Mutex shares an allocation"),
            std::string::npos)
      << text.out;
}

// A global holding an object: `obj` and `paths` give the word's offset in
// the global (the program's own %p of the global is where the word is), not
// in the data or bss segment.
TEST_P(GoroutinesLeaked, AGlobalsOffsetIsWithinTheGlobal) {
  const JsonValue t = JsonValue::parseFile(dir() + "/goleak.json");
  const std::string block = t["tiny_shared"]["block"].str();
  const std::string global = t["tiny_shared"]["holder"].str();
  testing::RunResult obj = testing::runGoheap({"obj", dump(), exe(), block, "--json"});
  ASSERT_TRUE(obj.exited && obj.code == 0) << obj.describe();
  bool found = false;
  const JsonValue doc = JsonValue::parse(obj.out);
  for (const JsonValue& r : doc["referrers"].items()) {
    if (!r["holder"].has("global") || r["holder"]["global"].str() != global) continue;
    found = true;
    EXPECT_EQ(r["slot_address"].str(), t["tiny_shared"]["holder_address"].str());
    EXPECT_EQ(r["holder"]["global_offset"].u64(), 0u);
    EXPECT_EQ(r["holder"]["name"].str(), "global " + global);
  }
  EXPECT_TRUE(found) << obj.out;
  testing::RunResult paths = testing::runGoheap({"paths", dump(), exe(), block});
  ASSERT_TRUE(paths.exited && paths.code == 0) << paths.describe();
  const std::string line = "  global " + global + "  " + global + " (" +
                           t["tiny_shared"]["holder_address"].str() + ")\n";
  EXPECT_NE(paths.out.find(line), std::string::npos) << paths.out;
}

TEST_P(GoroutinesLeaked, SuspectsListTheLeakGroups) {
  testing::RunResult r = testing::runGoheap({"suspects", dump(), exe(), "--json"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const JsonValue v = JsonValue::parse(r.out);
  std::map<std::string, uint64_t> found;
  for (const JsonValue& g : v["leaked_goroutines"].items()) {
    found[g["blocked_in"].str()] = g["goroutines"].u64();
  }
  EXPECT_EQ(found, truth());
  testing::RunResult text = testing::runGoheap({"suspects", dump(), exe()});
  ASSERT_TRUE(text.exited && text.code == 0) << text.describe();
  EXPECT_NE(text.out.find("Goroutines blocked forever"), std::string::npos) << text.out;
}

TEST_P(GoroutinesLeaked, ReportFailsIfLeakedAndListsTheLeaks) {
  const std::string html = testing::scratch().file("goleak-" + GetParam() + ".html");
  testing::RunResult r =
      testing::runGoheap({"report", dump(), exe(), "--html", html, "--fail-if-leaked"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 3) << r.describe();
  EXPECT_NE(r.err.find("goroutines are blocked forever (--fail-if-leaked)"), std::string::npos)
      << r.err;
  const JsonValue v =
      JsonValue::parseFile(testing::scratch().file("goleak-" + GetParam() + ".json"));
  std::map<std::string, uint64_t> found;
  for (const JsonValue& g : v["leaks"]["groups"].items()) {
    found[g["blocked_in"].str()] = g["leaked"].u64();
  }
  EXPECT_EQ(found, truth());
}

// The report's page in a real browser, offline: its leaks section is there
// and each of its numbers is the JSON's (tests/cli/report_check.js checks
// every number on the page against the document).
TEST_P(GoroutinesLeaked, ReportPageShowsTheLeaksInChromium) {
  const std::string npm = std::string(GOHEAP_NPM_DIR) + "/node_modules/playwright-core";
  GOHEAP_REQUIRE_TOOL(std::filesystem::exists(npm + "/package.json"),
                      "playwright-core is not installed (ctest's install_npm_tools does)");
  GOHEAP_REQUIRE_TOOL(std::filesystem::exists("/usr/bin/chromium"),
                      "chromium is not installed (scripts/install-deps.sh installs it)");
  const std::string base = testing::scratch().file("goleak-page-" + GetParam());
  testing::RunResult r = testing::runGoheap({"report", dump(), exe(), "--html", base + ".html",
                                             "--json-file", base + ".json", "--no-progress"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  const std::string result = base + ".check";
  const std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) + "/tests/cli/report_check.js " +
                          npm + " /usr/bin/chromium " + base + ".html " + base + ".json " + base +
                          ".png > " + result + " 2>&1";
  ASSERT_EQ(testing::runCommand(cmd), 0) << cmd << "\n" << testing::readWholeFile(result);
  const JsonValue checked = JsonValue::parse(testing::readWholeFile(result));
  bool leaks = false;
  for (const JsonValue& section : checked["sections"].items()) leaks |= section.str() == "leaks";
  EXPECT_TRUE(leaks) << testing::readWholeFile(result);
  EXPECT_GT(checked["checked"].u64(), 50u);
}

INSTANTIATE_TEST_SUITE_P(GoVersions, GoroutinesLeaked,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
