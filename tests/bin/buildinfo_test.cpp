// Build info and build ID against Go's own readers: binoracle prints what
// debug/buildinfo.ReadFile says, make-dumps.sh saves `go tool buildid EXE`
// as EXE.buildid. Every executable make-dumps.sh built (both toolchains,
// cross-built ones, PIE, stripped, PE, Mach-O, the modinfo program with a
// replaced dependency) and the shared old ones are compared entry for entry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bin/binary.h"
#include "bin/buildinfo.h"
#include "support/go_versions.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using testing::JsonValue;

// The folders make-dumps.sh builds executables into, for every release.
std::vector<std::string> versionDirs() {
  std::vector<std::string> out;
  for (const std::string& v : testing::everyGoVersion()) {
    out.push_back(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v);
    out.push_back(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v + "/cross");
  }
  return out;
}

// (executable, its binoracle JSON) for everything with an oracle.
std::vector<std::pair<std::string, std::string>> executablesWithOracle() {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> out;
  const std::string root = GOHEAP_TESTDUMPS_DIR;
  for (const std::string& dir : versionDirs()) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string p = e.path().string();
      const std::string suffix = ".symtab.json";
      if (p.ends_with(suffix)) out.emplace_back(p.substr(0, p.size() - suffix.size()), p);
    }
  }
  if (fs::is_directory(root + "/gobin")) {
    for (const auto& e : fs::directory_iterator(root + "/gobin")) {
      const std::string name = e.path().filename().string();
      const std::string exe = std::string(GOHEAP_GOBIN_DIR) + "/" +
                              name.substr(0, name.size() - std::string(".symtab.json").size());
      if (fs::exists(exe)) out.emplace_back(exe, e.path().string());
    }
  }
  return out;
}

void expectModule(const bin::ModuleVersion& got, const JsonValue& want, const std::string& where) {
  EXPECT_EQ(got.path, want["path"].str()) << where;
  EXPECT_EQ(got.version, want["version"].str()) << where;
  EXPECT_EQ(got.sum, want["sum"].str()) << where;
}

TEST(BuildInfo, EqualsDebugBuildinfoEntryForEntry) {
  size_t checked = 0, deps = 0, settings = 0;
  for (const auto& [exe, oracle_path] : executablesWithOracle()) {
    SCOPED_TRACE(exe);
    Expected<bin::Binary> b = bin::Binary::open(exe);
    ASSERT_TRUE(b.ok()) << b.error().message();
    const JsonValue oracle = JsonValue::parseFile(oracle_path);
    if (!oracle.has("buildinfo")) {
      // debug/buildinfo cannot read it (Go 1.5 has no build info).
      EXPECT_FALSE(b->buildInfo().has_value());
      continue;
    }
    const JsonValue& want = oracle["buildinfo"];
    ASSERT_TRUE(b->buildInfo().has_value()) << b->buildInfoError();
    const bin::BuildInfo& got = *b->buildInfo();
    EXPECT_EQ(got.go_version, want["go_version"].str());
    EXPECT_EQ(got.path, want["path"].str());
    expectModule(got.main, want["main"], "main");
    ASSERT_EQ(got.deps.size(), want["deps"].size());
    for (size_t i = 0; i < got.deps.size(); ++i) {
      const JsonValue& d = want["deps"][i];
      expectModule(got.deps[i], d, "dep " + std::to_string(i));
      ASSERT_EQ(got.deps[i].replace.has_value(), d.has("replace")) << i;
      if (d.has("replace")) expectModule(*got.deps[i].replace, d["replace"], "replace");
      ++deps;
    }
    ASSERT_EQ(got.settings.size(), want["settings"].size());
    for (size_t i = 0; i < got.settings.size(); ++i) {
      EXPECT_EQ(got.settings[i].first, want["settings"][i]["key"].str()) << i;
      EXPECT_EQ(got.settings[i].second, want["settings"][i]["value"].str()) << i;
      ++settings;
    }
    ++checked;
  }
  EXPECT_GE(checked, 20u);
  EXPECT_GE(deps, 2u);  // the modinfo program, every toolchain
  EXPECT_GE(settings, 50u);
}

TEST(BuildId, EqualsGoToolBuildid) {
  namespace fs = std::filesystem;
  size_t checked = 0;
  for (const std::string& dir : versionDirs()) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string p = e.path().string();
      if (!p.ends_with(".buildid")) continue;
      const std::string exe = p.substr(0, p.size() - 8);
      SCOPED_TRACE(exe);
      std::ifstream in(p);
      std::string want;
      std::getline(in, want);
      Expected<bin::Binary> b = bin::Binary::open(exe);
      ASSERT_TRUE(b.ok()) << b.error().message();
      EXPECT_FALSE(want.empty());
      EXPECT_EQ(b->buildId(), want);
      ++checked;
    }
  }
  // amd64 programs of both toolchains, and ELF, PE and Mach-O cross builds.
  EXPECT_GE(checked, 15u);
}

TEST(BuildInfo, ModuleInfoLinesAndQuoting) {
  Expected<bin::BuildInfo> bi = bin::parseModuleInfo(
      "path\texample.com/cmd\n"
      "mod\texample.com\tv1.0.0\th1:abc=\n"
      "dep\tgolang.org/x/a\tv0.1.0\th1:x=\n"
      "dep\tgolang.org/x/b\tv0.2.0\n"
      "=>\t../b\t\t\n"
      "build\t-ldflags=\"-s -w\"\n"
      "build\t\"we=ird\"=`raw`\n"
      "build\tGOOS=linux\n"
      "unknown\tignored\n"
      "build\tincomplete=line");
  ASSERT_TRUE(bi.ok()) << bi.error().message();
  EXPECT_EQ(bi->path, "example.com/cmd");
  EXPECT_EQ(bi->main.version, "v1.0.0");
  EXPECT_EQ(bi->main.sum, "h1:abc=");
  ASSERT_EQ(bi->deps.size(), 2u);
  EXPECT_FALSE(bi->deps[0].replace.has_value());
  ASSERT_TRUE(bi->deps[1].replace.has_value());
  EXPECT_EQ(bi->deps[1].replace->path, "../b");
  ASSERT_EQ(bi->settings.size(), 3u);
  EXPECT_EQ(bi->settings[0].second, "-s -w");
  EXPECT_EQ(bi->settings[1].first, "we=ird");
  EXPECT_EQ(bi->settings[1].second, "raw");

  for (const char* bad : {"mod\tonly-one\n", "=>\ta\tb\tc\n", "dep\ta\tb\n=>\tx\n", "build\t=v\n",
                          "build\tk=a b\n", "build\tk=\"unterminated\n"}) {
    Expected<bin::BuildInfo> e = bin::parseModuleInfo(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error().message().find("line"), std::string::npos) << e.error().message();
  }
}

TEST(BuildInfo, GoUnquote) {
  EXPECT_EQ(bin::unquoteGoString("\"a\\tb\\\"c\\x41\\101\\u00e9\""), "a\tb\"cAA\xc3\xa9");
  EXPECT_EQ(bin::unquoteGoString("`a\\n`"), "a\\n");
  EXPECT_FALSE(bin::unquoteGoString("\"a").has_value());
  EXPECT_FALSE(bin::unquoteGoString("\"\\x4\"").has_value());
  EXPECT_FALSE(bin::unquoteGoString("\"\\q\"").has_value());
  EXPECT_FALSE(bin::unquoteGoString("\"\\ud800\"").has_value());
}

}  // namespace
}  // namespace goheap
