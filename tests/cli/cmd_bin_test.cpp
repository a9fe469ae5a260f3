// `goheap bin` as a user runs it: the summary, --funcs and --pc in text and
// JSON, checked against the oracle (Go's debug/gosym via binoracle) and
// against the frames of the dump the same executable wrote.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct BinRun {
  int code = -1;
  std::string out;
};

// Runs goheap with `args` (no shell metacharacters in them); stderr goes to
// stdout so failures show their message.
BinRun goheap(const std::vector<std::string>& args) {
  std::string cmd = std::string("'") + GOHEAP_BINARY + "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  BinRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string exe(const std::string& v) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v + "/retention";
}

class BinCommand : public ::testing::TestWithParam<std::string> {};

TEST_P(BinCommand, TextNamesVersionTargetAndLayout) {
  BinRun r = goheap({"bin", exe(GetParam())});
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string version =
      JsonValue::parseFile(exe(GetParam()) + ".symtab.json")["oracle"].str();
  EXPECT_NE(r.out.find(version + " (from buildinfo)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ELF, amd64, 8-byte pointers, little-endian"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(GetParam() == "go1.19" ? "go1.18 layout" : "go1.20 layout"),
            std::string::npos)
      << r.out;
}

TEST_P(BinCommand, JsonFuncsEqualTheOracle) {
  BinRun r = goheap({"bin", exe(GetParam()), "--funcs", "--json"});
  ASSERT_EQ(r.code, 0) << r.out;
  const JsonValue got = JsonValue::parse(r.out);
  const JsonValue want = JsonValue::parseFile(exe(GetParam()) + ".symtab.json");
  EXPECT_EQ(got["schema_version"].u64(), 1u);
  EXPECT_EQ(got["go_version"].str(), want["oracle"].str());
  EXPECT_EQ(got["arch"].str(), "amd64");
  EXPECT_EQ(got["ptr_size"].u64(), 8u);
  EXPECT_FALSE(got["big_endian"].boolean());
  ASSERT_EQ(got["funcs"].size(), want["funcs"].size());
  EXPECT_EQ(got["pclntab"]["functions"].u64(), want["funcs"].size());
  for (size_t i = 0; i < want["funcs"].size(); ++i) {
    const JsonValue& g = got["funcs"][i];
    const JsonValue& w = want["funcs"][i];
    ASSERT_EQ(g["name"].str(), w["name"].str());
    ASSERT_EQ(g["entry"].hexAddress(), w["entry"].hexAddress());
    const JsonValue& at_entry = w["pcs"][0];
    if (at_entry["line"].number() > 0 && !w["name"].str().starts_with("go:")) {
      ASSERT_EQ(g["file"].str(), at_entry["file"].str()) << w["name"].str();
      ASSERT_EQ(g["line"].u64(), at_entry["line"].u64()) << w["name"].str();
    }
  }
}

// Each distinct frame pc of the dump, given as --pc, names the function
// the frame record names (frames' pcs are return addresses).
TEST_P(BinCommand, PcNamesTheFunctionsOfTheDumpsFrames) {
  Expected<model::HeapModel> d = dump::readDumpFile(exe(GetParam()) + ".dump");
  ASSERT_TRUE(d.ok()) << d.error().message();
  std::vector<std::string> args = {"bin", exe(GetParam()), "--json"};
  std::vector<std::string> names;
  for (const model::StackFrame& f : d->frames) {
    if (names.size() == 40) break;
    args.push_back("--pc");
    args.push_back(std::to_string(f.pc));
    names.emplace_back(f.function);
  }
  BinRun r = goheap(args);
  ASSERT_EQ(r.code, 0) << r.out;
  const JsonValue got = JsonValue::parse(r.out);
  ASSERT_EQ(got["pcs"].size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(got["pcs"][i]["function"].str(), names[i]);
    EXPECT_GT(got["pcs"][i]["line"].u64(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Built, BinCommand, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

// The inlining program's first captured PC lies in three inlined calls: the
// text marks them, the JSON lists every frame as the runtime reported them.
TEST_P(BinCommand, PcShowsInlinedFramesInTextAndJson) {
  const std::string prog = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/inlining";
  const JsonValue report = JsonValue::parseFile(prog + ".json");
  const JsonValue& stack = report["stacks"][0];
  const std::string pc = stack[0]["pc"].str();
  BinRun text = goheap({"bin", prog, "--pc", pc});
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("main.leaf (inlined)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("main.outer (inlined)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("main.physicalA+0x"), std::string::npos) << text.out;
  BinRun js = goheap({"bin", prog, "--pc", pc, "--json"});
  ASSERT_EQ(js.code, 0) << js.out;
  const JsonValue got = JsonValue::parse(js.out);
  const JsonValue& frames = got["pcs"][0]["frames"];
  ASSERT_EQ(frames.size(), 4u) << js.out;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(frames[i]["function"].str(), stack[i]["function"].str());
    EXPECT_EQ(frames[i]["file"].str(), stack[i]["file"].str());
    EXPECT_EQ(frames[i]["line"].u64(), stack[i]["line"].u64());
    EXPECT_EQ(frames[i]["inlined"].boolean(), stack[i]["inlined"].boolean());
  }
  EXPECT_EQ(got["pcs"][0]["function"].str(), "main.physicalA");
}

// Build ID, build info and module layout in the JSON, against go tool
// buildid and debug/buildinfo.
TEST_P(BinCommand, JsonHasBuildIdBuildInfoAndModuleLayout) {
  const std::string prog = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/modinfo";
  BinRun r = goheap({"bin", prog, "--json"});
  ASSERT_EQ(r.code, 0) << r.out;
  const JsonValue got = JsonValue::parse(r.out);
  std::ifstream id(prog + ".buildid");
  std::string want_id;
  std::getline(id, want_id);
  EXPECT_EQ(got["build_id"].str(), want_id);
  const JsonValue want = JsonValue::parseFile(prog + ".symtab.json")["buildinfo"];
  EXPECT_EQ(got["build_info"]["path"].str(), want["path"].str());
  ASSERT_EQ(got["build_info"]["deps"].size(), 1u);
  EXPECT_EQ(got["build_info"]["deps"][0]["path"].str(), "example.com/greeter");
  EXPECT_EQ(got["build_info"]["deps"][0]["replace"]["path"].str(), "./greeter");
  EXPECT_EQ(got["build_info"]["settings"].size(), want["settings"].size());
  EXPECT_EQ(got["module_layout"]["source"].str(), "moduledata");
  EXPECT_EQ(got["module_layout"]["text"]["start"].str(), "0x401000");
  EXPECT_GT(got["symbols"].u64(), 1000u);
  BinRun text = goheap({"bin", prog, "--deps"});
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("build ID   " + want_id), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("example.com/greeter  v1.2.3"), std::string::npos) << text.out;
}

TEST(BinCommandErrors, PcInNoFunctionFailsButStillAnswers) {
  BinRun r = goheap({"bin", exe("go1.24"), "--pc", "0x1"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("no function of the pclntab holds"), std::string::npos) << r.out;
}

TEST(BinCommandErrors, NotAnExecutableFailsWithTheFileName) {
  const std::string dump = exe("go1.24") + ".dump";
  BinRun r = goheap({"bin", dump});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("goheap: " + dump + ": at byte offset 0"), std::string::npos) << r.out;
}

TEST(BinCommandErrors, HelpHasUsageAndExamples) {
  BinRun r = goheap({"bin", "--help"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("usage: goheap bin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("examples:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace goheap
