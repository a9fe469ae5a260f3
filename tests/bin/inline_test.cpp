// Inlined frames, start lines, pcsp (also against the dump's frame sizes)
// and the module layout, against the Go runtime itself: tests/programs/inlining captures stacks
// with runtime.Callers inside inlined functions and reports what runtime.CallersFrames makes of
// every PC. Binary::symbolize must give the same frames, built with every Go release of
// support/go_versions.h, for amd64 and (run under qemu-user, when make-dumps.sh found it) for
// s390x and arm. Stripped executables
// must expand the same frames through the runtime's moduledata.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "bin/binary.h"
#include "bin/inline.h"
#include "bin/moduledata.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

class InlineAgainstRuntime : public ::testing::TestWithParam<testing::ProgramBuild> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(GetParam().exe)) << GetParam().exe;
    if (!std::filesystem::exists(GetParam().exe + ".json")) {
      // make-dumps.sh runs the cross-built program only under qemu-user.
      GTEST_SKIP() << "no report " << GetParam().exe
                   << ".json (qemu-user-static not installed when make-dumps.sh ran?)";
    }
  }
};

// For each captured PC, the runtime's frames from that PC up to the next
// physical (not inlined) frame are its full expansion.
TEST_P(InlineAgainstRuntime, SymbolizeEqualsCallersFramesFrameForFrame) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const JsonValue report = JsonValue::parseFile(GetParam().exe + ".json");
  EXPECT_EQ(b->goVersion(), report["go_version"].str());
  // Since Go 1.21 the runtime prints generic names with "[...]".
  const bool elided = bin::goMinorVersion(b->goVersion()).value_or(0) >= 21;
  auto printed = [elided](std::string_view name) {
    return elided ? bin::funcNameForPrint(name) : std::string(name);
  };
  size_t pcs = 0, inlined = 0;
  for (const JsonValue& stack : report["stacks"].items()) {
    const auto& frames = stack.items();
    for (size_t i = 0; i < frames.size(); ++i) {
      const std::string pc = frames[i]["pc"].str();
      Expected<std::vector<bin::SourceFrame>> got = b->symbolize(frames[i]["pc"].hexAddress());
      ASSERT_TRUE(got.ok()) << pc << ": " << got.error().message();
      size_t j = i;
      while (j < frames.size() && frames[j]["inlined"].boolean()) ++j;
      ASSERT_LT(j, frames.size()) << "stack ends in an inlined frame at " << pc;
      ASSERT_EQ(got->size(), j - i + 1) << pc << " innermost " << frames[i]["function"].str();
      for (size_t k = i; k <= j; ++k) {
        const bin::SourceFrame& sf = (*got)[k - i];
        EXPECT_EQ(printed(sf.function), frames[k]["function"].str()) << pc << " frame " << k - i;
        EXPECT_EQ(sf.file, frames[k]["file"].str()) << pc << " frame " << k - i;
        EXPECT_EQ(sf.line, static_cast<int64_t>(frames[k]["line"].number()))
            << pc << " frame " << k - i;
        EXPECT_EQ(sf.inlined, frames[k]["inlined"].boolean()) << pc << " frame " << k - i;
        ASSERT_NE(sf.func, nullptr);
        EXPECT_EQ(printed(sf.func->name), frames[j]["function"].str()) << pc;
      }
      EXPECT_EQ(printed((*got)[0].function), frames[i]["func_for_pc"].str()) << pc;
      ++pcs;
      if (got->size() > 1) ++inlined;
    }
  }
  EXPECT_GT(pcs, 30u);
  // leaf in middle in outer, bump, pick, the closure: each a separate PC.
  EXPECT_GE(inlined, 8u);
}

// The line of each declaration in the program's source: _func.startLine
// (Go 1.20+) or the line at the entry (1.19) says the same for these.
TEST_P(InlineAgainstRuntime, StartLineIsTheFuncKeywordLine) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  std::ifstream src(std::string(GOHEAP_SOURCE_DIR) + "/tests/programs/inlining/main.go");
  std::map<std::string, int64_t> want;
  std::string text;
  for (int64_t n = 1; std::getline(src, text); ++n) {
    for (const std::string fn : {"physicalA", "physicalB", "physicalC", "capture"}) {
      if (text.starts_with("func " + fn + "(")) want["main." + fn] = n;
    }
  }
  ASSERT_EQ(want.size(), 4u);
  size_t found = 0;
  for (const bin::Func& f : b->pclntab().funcs()) {
    auto it = want.find(std::string(f.name));
    if (it == want.end()) continue;
    EXPECT_EQ(b->startLine(f), it->second) << f.name;
    ++found;
  }
  EXPECT_EQ(found, want.size());
}

// pcsp: 0 at every entry (nothing pushed yet), never negative, and some
// frame inside a function that calls.
TEST_P(InlineAgainstRuntime, SpDeltaIsZeroAtEntryAndNeverNegative) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const bin::Pclntab& t = b->pclntab();
  size_t framed = 0;
  for (const bin::Func& f : t.funcs()) {
    if (f.name.starts_with("go:")) continue;  // linker markers
    Expected<int64_t> at_entry = t.spDelta(f.entry);
    ASSERT_TRUE(at_entry.ok()) << f.name << ": " << at_entry.error().message();
    EXPECT_EQ(*at_entry, 0) << f.name;
    Expected<int64_t> mid = t.spDelta(f.entry + (f.end - f.entry) / 2);
    ASSERT_TRUE(mid.ok()) << f.name << ": " << mid.error().message();
    EXPECT_GE(*mid, 0) << f.name;
    if (f.name == "main.physicalA" || f.name == "main.main") {
      EXPECT_GT(*mid, 0) << f.name;
      ++framed;
    }
  }
  EXPECT_EQ(framed, 2u);
}

INSTANTIATE_TEST_SUITE_P(Built, InlineAgainstRuntime,
                         ::testing::ValuesIn(testing::programBuilds("inlining")),
                         testing::programBuildName);

// The module layout read from the runtime's moduledata agrees with the
// linker's range symbols, in every unstripped executable make-dumps.sh
// builds (ELF, big-endian, 32-bit, Mach-O, PE).
class ModuleLayoutOf : public ::testing::TestWithParam<std::string> {};

TEST_P(ModuleLayoutOf, ModuledataAgreesWithTheRangeSymbols) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  if (!std::filesystem::exists(exe)) {
    GTEST_SKIP() << exe << " is missing (make-dumps.sh builds it when that Go is installed)";
  }
  Expected<bin::Binary> b = bin::Binary::open(exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  ASSERT_TRUE(b->moduleLayout().has_value());
  const bin::ModuleLayout& m = *b->moduleLayout();
  EXPECT_EQ(m.source, "moduledata");
  std::optional<bin::ModuleLayout> s = bin::moduleLayoutFromSymbols(b->container());
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->source, "symbols");
  EXPECT_EQ(m.text, s->text);
  EXPECT_EQ(m.etext, s->etext);
  EXPECT_EQ(m.noptrdata, s->noptrdata);
  EXPECT_EQ(m.enoptrdata, s->enoptrdata);
  EXPECT_EQ(m.data, s->data);
  EXPECT_EQ(m.edata, s->edata);
  EXPECT_EQ(m.bss, s->bss);
  EXPECT_EQ(m.ebss, s->ebss);
  EXPECT_EQ(m.noptrbss, s->noptrbss);
  EXPECT_EQ(m.enoptrbss, s->enoptrbss);
  ASSERT_NE(s->gofunc, 0u);
  EXPECT_EQ(m.gofunc, s->gofunc);
  EXPECT_EQ(m.types, b->container().symbol("runtime.types")->value);
  // Without the version (build info removed, say) the fields themselves
  // tell Go 1.27's moduledata from the layout before it.
  std::optional<bin::ModuleLayout> unknown =
      bin::moduleLayoutFromModuledata(b->container(), b->pclntab(), std::nullopt);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->gofunc, s->gofunc);
  EXPECT_EQ(unknown->types, m.types);
}

std::vector<std::string> withModuledata() {
  std::vector<std::string> out;
  for (const testing::ProgramBuild& b : testing::programBuilds("inlining")) {
    out.push_back(b.exe.substr(std::string(GOHEAP_TESTDUMPS_DIR).size() + 1));
  }
  out.push_back("go1.19/cross/retention-windows.exe");
  out.push_back("go1.19/cross/retention-darwin");
  return out;
}

INSTANTIATE_TEST_SUITE_P(Built, ModuleLayoutOf, ::testing::ValuesIn(withModuledata()),
                         testing::pathParamName);

// A stripped build of the same source by the same toolchain (the funcs
// program, -ldflags='-s -w') has the same functions at the same addresses;
// with no symbols it must still find gofunc through moduledata and expand
// the same inlined frames.
class StrippedTwin : public ::testing::TestWithParam<std::string> {};

TEST_P(StrippedTwin, ExpandsTheSameFramesAsItsUnstrippedTwin) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  Expected<bin::Binary> full = bin::Binary::open(dir + "/funcs");
  Expected<bin::Binary> stripped = bin::Binary::open(dir + "/stripped/funcs");
  ASSERT_TRUE(full.ok()) << full.error().message();
  ASSERT_TRUE(stripped.ok()) << stripped.error().message();
  EXPECT_TRUE(stripped->container().symbols.empty());
  ASSERT_TRUE(stripped->moduleLayout().has_value());
  EXPECT_EQ(stripped->moduleLayout()->source, "moduledata");
  EXPECT_NE(stripped->moduleLayout()->gofunc, 0u);
  const auto a = full->pclntab().funcs();
  const auto s = stripped->pclntab().funcs();
  ASSERT_EQ(a.size(), s.size());
  size_t inlined = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].entry, s[i].entry);
    ASSERT_EQ(a[i].name, s[i].name);
    for (uint64_t pc = a[i].entry + 1; pc <= a[i].end;
         pc += std::max<uint64_t>(1, (a[i].end - a[i].entry) / 16)) {
      Expected<std::vector<bin::SourceFrame>> x = full->symbolize(pc);
      Expected<std::vector<bin::SourceFrame>> y = stripped->symbolize(pc);
      ASSERT_EQ(x.ok(), y.ok()) << a[i].name;
      if (!x.ok()) continue;
      ASSERT_EQ(x->size(), y->size()) << a[i].name << " pc " << pc;
      for (size_t k = 0; k < x->size(); ++k) {
        EXPECT_EQ((*x)[k].function, (*y)[k].function);
        EXPECT_EQ((*x)[k].line, (*y)[k].line);
      }
      if (x->size() > 1) ++inlined;
    }
  }
  EXPECT_GT(inlined, 100u);
}

INSTANTIATE_TEST_SUITE_P(Funcs, StrippedTwin,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

// The old stripped executables of the shared test data (Go 1.18/386, 1.20
// Mach-O, 1.22 PE) have no symbols: the layout comes from moduledata, and
// inlined frames are found in them.
TEST(StrippedExecutable, OldStrippedFilesExpandInlinedFrames) {
  for (const char* f :
       {"gold-linux-386-1.18.0", "gold-darwin-amd64-1.20.0", "gold-windows-amd64-1.22.0"}) {
    const std::string exe = std::string(GOHEAP_GOBIN_DIR) + "/" + f;
    if (!std::filesystem::exists(exe)) GTEST_SKIP() << "no " << exe;
    Expected<bin::Binary> b = bin::Binary::open(exe);
    ASSERT_TRUE(b.ok()) << b.error().message();
    ASSERT_TRUE(b->moduleLayout().has_value()) << f;
    EXPECT_EQ(b->moduleLayout()->source, "moduledata") << f;
    size_t inlined = 0;
    for (const bin::Func& fn : b->pclntab().funcs()) {
      Expected<std::vector<bin::SourceFrame>> fr = b->symbolize(fn.entry + (fn.end - fn.entry) / 2);
      if (!fr.ok()) continue;
      if (fr->size() > 1) {
        ++inlined;
        EXPECT_FALSE(fr->front().function.empty()) << fn.name;
        EXPECT_TRUE(fr->front().inlined);
        EXPECT_FALSE(fr->back().inlined);
        EXPECT_EQ(fr->back().function, fn.name);
      }
    }
    EXPECT_GT(inlined, 50u) << f;
  }
}

// Go 1.5 has no parentPc in its inline records (and no inline trees in
// practice): one frame, the physical function.
TEST(InlineTreeFormat, ByLayoutAndVersion) {
  EXPECT_EQ(bin::funcNameForPrint("main.pick[go.shape.string]"), "main.pick[...]");
  EXPECT_EQ(bin::funcNameForPrint("a.(*T[go.shape.int]).m"), "a.(*T[...]).m");
  EXPECT_EQ(bin::funcNameForPrint("main.main"), "main.main");
  EXPECT_FALSE(bin::inlineTreeFormat(bin::PclntabLayout::Go12, 5).has_value());
  EXPECT_FALSE(bin::inlineTreeFormat(bin::PclntabLayout::Go12, std::nullopt).has_value());
  EXPECT_EQ(bin::inlineTreeFormat(bin::PclntabLayout::Go12, 12)->pcdata_index, 1u);
  EXPECT_EQ(bin::inlineTreeFormat(bin::PclntabLayout::Go12, 14)->funcdata_index, 4u);
  EXPECT_EQ(bin::inlineTreeFormat(bin::PclntabLayout::Go116, 16)->funcdata_index, 3u);
  EXPECT_EQ(bin::inlineTreeFormat(bin::PclntabLayout::Go120, std::nullopt)->entry_size, 16u);
  EXPECT_EQ(bin::goMinorVersion("go1.19.8"), 19);
  EXPECT_EQ(bin::goMinorVersion("go1.21rc2"), 21);
  EXPECT_FALSE(bin::goMinorVersion("devel +abc").has_value());
  const std::string exe = std::string(GOHEAP_GOBIN_DIR) + "/gold-linux-amd64-1.5.0";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << "no " << exe;
  Expected<bin::Binary> b = bin::Binary::open(exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  size_t symbolized = 0;
  for (const bin::Func& fn : b->pclntab().funcs()) {
    Expected<std::vector<bin::SourceFrame>> fr = b->symbolize(fn.end);
    if (fr.ok()) {
      symbolized++;
      EXPECT_EQ(fr->size(), 1u) << fn.name;
    }
  }
  EXPECT_GT(symbolized, 0u);
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// The synthetic Go 1.20 pclntab of the fuzz seed corpus: main.f holds an
// inlined call of main.g in its first 16 bytes (tree entry 0, parentPc 0x10),
// and the tree lies in the table's own bytes (mapped as memory at gofunc).
TEST(InlineExpander, SyntheticTableFromTheFuzzCorpus) {
  std::ifstream in(std::string(GOHEAP_SOURCE_DIR) + "/fuzz/corpus/bin_reader/pclntab-go120-inline",
                   std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
  Expected<bin::Pclntab> t = bin::Pclntab::parse(bytes, 0x401000);
  ASSERT_TRUE(t.ok()) << t.error().message();
  bin::Container c;
  c.file = bin::ByteView(bytes, false);
  c.segments.push_back({0x500000, bytes.size(), 0, bytes.size(), false, false});
  const bin::InlineExpander x(c, *t, bin::inlineTreeFormat(t->layout(), std::nullopt), 0x500000);
  Expected<std::vector<bin::SourceFrame>> in_g = x.expand(0x401005);
  ASSERT_TRUE(in_g.ok()) << in_g.error().message();
  ASSERT_EQ(in_g->size(), 2u);
  EXPECT_EQ((*in_g)[0].function, "main.g");
  EXPECT_TRUE((*in_g)[0].inlined);
  EXPECT_EQ((*in_g)[0].file, "a.go");
  EXPECT_EQ((*in_g)[0].line, 10);
  EXPECT_EQ((*in_g)[1].function, "main.f");
  EXPECT_FALSE((*in_g)[1].inlined);
  Expected<std::vector<bin::SourceFrame>> in_f = x.expand(0x401018);
  ASSERT_TRUE(in_f.ok()) << in_f.error().message();
  EXPECT_EQ(in_f->size(), 1u);
  EXPECT_EQ(t->startLineField(t->funcs()[0]), 9);
  EXPECT_EQ(*t->spDelta(0x401000), 0);
  EXPECT_EQ(*t->spDelta(0x401018), 8);
  // Without gofunc the tree cannot be found: the physical frame only.
  const bin::InlineExpander none(c, *t, bin::inlineTreeFormat(t->layout(), std::nullopt), 0);
  EXPECT_EQ(none.expand(0x401005)->size(), 1u);
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// The dump's frame records hold the frame's bytes, sp up to fp, and the
// runtime computed fp = sp + pcsp(pc) (+ the pushed return address on amd64,
// which has no link register) at the frame's own pc. So pcsp at every
// frame's pc must give the recorded frame size: an independent check of
// spDelta against the runtime.
TEST(SpDelta, EqualsTheFrameSizesOfTheDump) {
  for (const std::string& v : testing::goVersionsWithReleaseTier()) {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v;
    Expected<bin::Binary> b = bin::Binary::open(dir + "/retention");
    ASSERT_TRUE(b.ok()) << b.error().message();
    Expected<model::HeapModel> d = dump::readDumpFile(dir + "/retention.dump");
    ASSERT_TRUE(d.ok()) << d.error().message();
    size_t checked = 0;
    for (const model::StackFrame& fr : d->frames) {
      Expected<int64_t> delta = b->pclntab().spDelta(fr.pc);
      ASSERT_TRUE(delta.ok()) << fr.function << ": " << delta.error().message();
      EXPECT_EQ(static_cast<uint64_t>(*delta) + 8, fr.contents.size)
          << v << " " << fr.function << " pc " << fr.pc;
      ++checked;
    }
    EXPECT_GT(checked, 20u) << v;
  }
}

}  // namespace
}  // namespace goheap
