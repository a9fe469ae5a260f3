// Executables linked every way Go links them: by Go's own linker or the
// external (C) one, as plain executables or PIEs, with or without symbols
// (tests/programs/make-dumps.sh builds zoo each way). Go 1.26+ linking
// externally puts the runtime's tables in sections of their own
// (.go.module, .go.type) and leaves the pclntab's text start 0, and a PIE
// holds moduledata's pointers only in its RELATIVE relocations. Oracles: the
// symbol table of the unstripped file (runtime.text, runtime.types, every
// function's address), and the heap dump each build wrote, whose stack
// frames name the functions at their run-time PCs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "analysis/snapshot.h"
#include "bin/binary.h"
#include "binding/bound_executable.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

struct LinkedBuild {
  std::string version;  // "go1.26"
  std::string mode;     // "external-pie"
  std::string path() const {
    return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version + "/" + mode + "/zoo";
  }
  bool pie() const { return mode.find("pie") != std::string::npos; }
};

// The builds with a symbol table to compare with.
std::vector<LinkedBuild> unstrippedBuilds() {
  std::vector<LinkedBuild> out;
  for (const std::string v : {"go1.24", "go1.26", "go1.27"}) {
    for (const std::string m : {"pie", "external", "external-pie"}) out.push_back({v, m});
  }
  return out;
}

std::vector<LinkedBuild> allBuilds() {
  std::vector<LinkedBuild> out = unstrippedBuilds();
  for (const std::string v : {"go1.26", "go1.27"}) out.push_back({v, "external-stripped"});
  return out;
}

std::string buildName(const ::testing::TestParamInfo<LinkedBuild>& info) {
  std::string name = info.param.version + "_" + info.param.mode;
  for (char& c : name) {
    if (c == '.' || c == '-') c = '_';
  }
  return name;
}

class LinkModes : public ::testing::TestWithParam<LinkedBuild> {
 protected:
  void SetUp() override {
    if (!fs::exists(GetParam().path() + ".dump")) {
      GTEST_SKIP() << GetParam().path() << ".dump is missing (make-dumps.sh writes it)";
    }
  }
};

// The module layout comes from the runtime's moduledata and agrees with the
// linker's symbols; the pclntab's functions are where the symbols say.
TEST_P(LinkModes, ModuledataAndFunctionsAgreeWithTheSymbolTable) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().path());
  ASSERT_TRUE(b.ok()) << b.error().message();
  const std::optional<bin::ModuleLayout>& m = b->moduleLayout();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->source, "moduledata");
  const bin::Container& c = b->container();
  ASSERT_NE(c.symbol("runtime.text"), nullptr);
  EXPECT_EQ(m->text, c.symbol("runtime.text")->value);
  EXPECT_EQ(m->types, c.symbol("runtime.types")->value);
  EXPECT_EQ(m->etypes, c.symbol("runtime.etypes")->value);
  EXPECT_EQ(m->data, c.symbol("runtime.data")->value);
  EXPECT_EQ(b->pclntab().textStart(), m->text);

  // A name can have two symbols (a function and its ABI wrapper), and a few
  // assembly functions' wrappers have symbols the pclntab names otherwise:
  // the check is that nearly all agree (1-2% do not; a wrong text start
  // moves them all).
  std::unordered_multimap<std::string_view, uint64_t> by_name;
  for (const bin::Symbol& s : c.symbols) by_name.emplace(s.name, s.value);
  size_t compared = 0, wrong = 0;
  for (const bin::Func& f : b->pclntab().funcs()) {
    auto [first, last] = by_name.equal_range(f.name);
    if (first == last) continue;
    compared++;
    bool found = false;
    for (auto it = first; it != last; ++it) found = found || it->second == f.entry;
    if (!found) wrong++;
  }
  EXPECT_GT(compared, b->pclntab().funcs().size() / 2);
  EXPECT_LT(wrong * 20, compared) << wrong << " of " << compared << " functions are not where "
                                  << "their symbols are";
}

// `strip -s` keeps every address: the stripped copy's moduledata, read
// through its relocations when it is a PIE, gives the same layout.
TEST_P(LinkModes, StrippedCopyFindsTheSameModuledata) {
  Expected<bin::Binary> full = bin::Binary::open(GetParam().path());
  ASSERT_TRUE(full.ok()) << full.error().message();
  const fs::path copy = fs::path(::testing::TempDir()) / ("zoo-" + buildName({GetParam(), 0}));
  const std::string cmd = "strip -s -o '" + copy.string() + "' '" + GetParam().path() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Expected<bin::Binary> stripped = bin::Binary::open(copy.string());
  fs::remove(copy);
  ASSERT_TRUE(stripped.ok()) << stripped.error().message();
  EXPECT_TRUE(stripped->container().symbols.empty());
  ASSERT_TRUE(stripped->moduleLayout().has_value());
  const bin::ModuleLayout& a = *full->moduleLayout();
  const bin::ModuleLayout& s = *stripped->moduleLayout();
  EXPECT_EQ(s.source, "moduledata");
  EXPECT_EQ(s.text, a.text);
  EXPECT_EQ(s.data, a.data);
  EXPECT_EQ(s.bss, a.bss);
  EXPECT_EQ(s.types, a.types);
  EXPECT_EQ(s.etypes, a.etypes);
  EXPECT_EQ(s.gofunc, a.gofunc);
  EXPECT_EQ(s.typelinks_count, a.typelinks_count);
  ASSERT_EQ(stripped->pclntab().funcs().size(), full->pclntab().funcs().size());
  EXPECT_EQ(stripped->pclntab().funcs().front().entry, full->pclntab().funcs().front().entry);
}

// The build's own dump binds: every stack frame names the function the
// executable has at its PC, at the load bias of a PIE, none otherwise.
class LinkModesAll : public LinkModes {};

TEST_P(LinkModesAll, TheDumpBindsWithEveryFrameMatched) {
  auto snap = testing::openSnapshot(GetParam().path() + ".dump");
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  testing::SnapshotPtr s = snap.take();
  Status st = testing::reopenWithExecutable(s, GetParam().path(), /*types=*/false);
  ASSERT_TRUE(st.ok()) << st.error().message();
  ASSERT_NE(s->exe, nullptr) << s->exe_problem;
  EXPECT_GT(s->exe->framesChecked(), 10u);
  EXPECT_EQ(s->exe->framesMatched(), s->exe->framesChecked());
  if (GetParam().pie()) {
    EXPECT_NE(s->exe->loadBias(), 0u);
  } else {
    EXPECT_EQ(s->exe->loadBias(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, LinkModes, ::testing::ValuesIn(unstrippedBuilds()), buildName);
INSTANTIATE_TEST_SUITE_P(Zoo, LinkModesAll, ::testing::ValuesIn(allBuilds()), buildName);

}  // namespace
}  // namespace goheap
