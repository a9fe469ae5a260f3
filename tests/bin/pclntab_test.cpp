// goheap's ELF and pclntab readers against Go's own debug/elf + debug/gosym
// (tests/programs/binoracle, run by make-dumps.sh over the executables it
// builds): the same functions, entry for entry, and the same file:line for
// every PC the oracle sampled. Also: every stack frame of the real dumps
// symbolizes to the function its frame record names, and corrupt
// executables give an Error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "bin/binary.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct ExeCase {
  std::string name;
  std::string exe;
  std::string oracle;
  std::string dump;  // empty when there is none
};

void PrintTo(const ExeCase& c, std::ostream* os) {
  *os << c.exe;
}

// The retention program as make-dumps.sh builds and runs it: for amd64 and
// cross-built for s390x (big-endian, PC quantum 2) and arm (32-bit, quantum
// 4), run under qemu-user; and the zoo program of every release, Go 1.25
// included, each against the oracle built by its own toolchain.
std::vector<ExeCase> builtExecutables() {
  std::vector<ExeCase> cases;
  for (const testing::ProgramBuild& b : testing::programBuilds("retention")) {
    cases.push_back({b.name, b.exe, b.exe + ".symtab.json", b.exe + ".dump"});
  }
  for (const testing::ProgramBuild& b :
       testing::programBuilds("zoo", testing::everyGoVersion(), false)) {
    cases.push_back({b.name + "_zoo", b.exe, b.exe + ".symtab.json", b.exe + ".dump"});
  }
  return cases;
}

// More targets of the retention program, built by Go 1.19 (not run): a PIE,
// a stripped file (-s -w: no symbols, but its .gopclntab is still a
// section), PE and Mach-O.
std::vector<ExeCase> moreExecutables() {
  std::vector<ExeCase> cases;
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.19/cross/";
  for (const std::string name :
       {"retention-pie", "retention-stripped", "retention-windows.exe", "retention-darwin"}) {
    cases.push_back({testing::testName("go1_19_" + name.substr(10)), dir + name,
                     dir + name + ".symtab.json", ""});
  }
  return cases;
}

// The executables of the shared test data (ELF: Go 1.5, 1.16, 1.18/386, read
// by the Go 1.19 oracle; Mach-O Go 1.20 and PE Go 1.22, read by the Go 1.24
// one); skipped
// where that directory is absent.
std::vector<ExeCase> oldExecutables() {
  std::vector<ExeCase> cases;
  for (const char* f :
       {"gold-linux-amd64-1.5.0", "gold-linux-amd64-1.16.0", "gold-linux-386-1.18.0",
        "gold-darwin-amd64-1.20.0", "gold-windows-amd64-1.22.0"}) {
    cases.push_back({testing::testName(f), std::string(GOHEAP_GOBIN_DIR) + "/" + f,
                     std::string(GOHEAP_TESTDUMPS_DIR) + "/gobin/" + f + ".symtab.json", ""});
  }
  return cases;
}

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class AgainstOracle : public ::testing::TestWithParam<ExeCase> {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(GetParam().exe)) GTEST_SKIP() << "no " << GetParam().exe;
    ASSERT_TRUE(std::filesystem::exists(GetParam().oracle)) << GetParam().oracle;
  }
};

TEST_P(AgainstOracle, FunctionTableEqualsGosym) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const JsonValue oracle = JsonValue::parseFile(GetParam().oracle);
  const auto& want = oracle["funcs"].items();
  const auto got = b->pclntab().funcs();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].entry, want[i]["entry"].hexAddress()) << "function " << i;
    ASSERT_EQ(got[i].end, want[i]["end"].hexAddress()) << "function " << i;
    ASSERT_EQ(got[i].name, want[i]["name"].str()) << "function " << i;
  }
}

// The container's symbol table against Go's debug/elf, debug/macho and
// debug/pe: the same symbols in file order, with values (and ELF sizes).
TEST_P(AgainstOracle, SymbolTableEqualsGoDebugPackages) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const JsonValue oracle = JsonValue::parseFile(GetParam().oracle);
  const auto& want = oracle["symbols"].items();
  const auto& got = b->container().symbols;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].name, want[i]["name"].str()) << "symbol " << i;
    ASSERT_EQ(got[i].value, want[i]["value"].hexAddress()) << want[i]["name"].str();
    ASSERT_EQ(got[i].size, want[i]["size"].u64()) << want[i]["name"].str();
  }
}

TEST_P(AgainstOracle, FileAndLineEqualGosymAtEverySampledPc) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const JsonValue oracle = JsonValue::parseFile(GetParam().oracle);
  size_t checked = 0;
  for (const JsonValue& f : oracle["funcs"].items()) {
    // Linker markers (go:textfipsstart, Go 1.24) have no line table: their
    // pcln offset is 0, which the runtime reads as "none" and gosym decodes
    // as a table at the start of the pc-value area, giving it made-up lines.
    // go.buildid (Mach-O and PE) is such a pseudo-function as well.
    if (f["name"].str().starts_with("go:") || f["name"].str() == "go.buildid") continue;
    for (const JsonValue& s : f["pcs"].items()) {
      const uint64_t pc = s["pc"].hexAddress();
      Expected<bin::Location> loc = b->pclntab().pcToLine(pc);
      ASSERT_TRUE(loc.ok()) << f["name"].str() << " " << s["pc"].str() << ": "
                            << loc.error().message();
      EXPECT_EQ(loc->func->name, f["name"].str()) << s["pc"].str();
      // gosym says line -1 and no file where the tables have no entry;
      // goheap says line 0 and an empty file.
      const auto line = static_cast<int64_t>(s["line"].number());
      EXPECT_EQ(loc->line, line < 0 ? 0 : line) << f["name"].str() << " " << s["pc"].str();
      EXPECT_EQ(loc->file, s["file"].str()) << f["name"].str() << " " << s["pc"].str();
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST_P(AgainstOracle, CutInHalfIsAnErrorNotACrash) {
  std::vector<uint8_t> bytes = readAll(GetParam().exe);
  bytes.resize(bytes.size() / 2);
  Expected<bin::Binary> b = bin::Binary::fromBytes(bytes, "half");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message().find("half"), std::string::npos) << b.error().message();
}

TEST_P(AgainstOracle, ZeroedPclntabHeaderIsAnError) {
  std::vector<uint8_t> bytes = readAll(GetParam().exe);
  Expected<bin::Container> c = bin::readContainer(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  Expected<bin::Pclntab> t = bin::findPclntab(*c);
  ASSERT_TRUE(t.ok()) << t.error().message();
  const uint64_t offset = t->fileOffset();
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
            bytes.begin() + static_cast<std::ptrdiff_t>(offset + 64), 0);
  Expected<bin::Binary> b = bin::Binary::fromBytes(bytes, "zeroed");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message().find("pclntab"), std::string::npos) << b.error().message();
}

// Every truncation of the ELF headers and section table, a byte at a time
// near the start and in coarse steps after: an Error or a value, never a
// read out of bounds (run under ASan by the fuzz build).
TEST_P(AgainstOracle, EveryTruncationIsHandled) {
  const std::vector<uint8_t> bytes = readAll(GetParam().exe);
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 256; ++n) cuts.push_back(n);
  for (size_t n = 256; n < bytes.size(); n += bytes.size() / 97) cuts.push_back(n);
  for (size_t n : cuts) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    Expected<bin::Binary> b = bin::Binary::fromBytes(cut, "cut");
    if (b.ok()) {
      for (const bin::Func& f : b->pclntab().funcs()) (void)b->pclntab().pcToLine(f.entry);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Built, AgainstOracle, ::testing::ValuesIn(builtExecutables()),
                         [](const auto& p) { return p.param.name; });
INSTANTIATE_TEST_SUITE_P(More, AgainstOracle, ::testing::ValuesIn(moreExecutables()),
                         [](const auto& p) { return p.param.name; });
INSTANTIATE_TEST_SUITE_P(Old, AgainstOracle, ::testing::ValuesIn(oldExecutables()),
                         [](const auto& p) { return p.param.name; });

class FramesOfRealDump : public ::testing::TestWithParam<ExeCase> {};

// A frame's pc is a return address except in a goroutine's innermost frame;
// Pclntab::lookup (pc-1 unless pc is a function entry) must name the same
// function the runtime wrote into the frame record, for every frame.
TEST_P(FramesOfRealDump, EveryFrameSymbolizesToItsRecordedFunction) {
  if (!std::filesystem::exists(GetParam().dump)) {
    GTEST_SKIP() << GetParam().dump << " is missing (make-dumps.sh runs the cross builds under "
                 << "qemu-user when it is installed)";
  }
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  Expected<model::HeapModel> d = dump::readDumpFile(GetParam().dump);
  ASSERT_TRUE(d.ok()) << d.error().message();
  ASSERT_GT(d->frames.size(), 10u);
  for (const model::StackFrame& fr : d->frames) {
    Expected<bin::Location> loc = b->pclntab().lookup(fr.pc);
    ASSERT_TRUE(loc.ok()) << fr.function << " pc " << fr.pc << ": " << loc.error().message();
    EXPECT_EQ(loc->func->name, fr.function) << "depth " << fr.depth << " pc " << fr.pc;
    EXPECT_EQ(loc->func->entry, fr.entry_pc) << fr.function;
    EXPECT_FALSE(loc->file.empty()) << fr.function;
    EXPECT_GT(loc->line, 0) << fr.function;
  }
}

INSTANTIATE_TEST_SUITE_P(Built, FramesOfRealDump, ::testing::ValuesIn(builtExecutables()),
                         [](const auto& p) { return p.param.name; });

}  // namespace
}  // namespace goheap
