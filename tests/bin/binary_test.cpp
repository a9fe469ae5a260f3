// bin::Binary and the ELF container on the executables make-dumps.sh builds
// (amd64, and cross-built s390x and arm): target facts, the Go version, the
// symbol table, and the ways a pclntab is found (section, scan, a header
// without a text start).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "bin/binary.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct Target {
  std::string name;
  std::string exe;
  std::string arch;
  uint32_t ptr_size;
  bool big_endian;
  uint32_t quantum;
  std::string go_version;  // as the oracle built by the same toolchain reports it
};

void PrintTo(const Target& t, std::ostream* os) {
  *os << t.exe;
}

std::string oracleVersion(const std::string& exe) {
  return JsonValue::parseFile(exe + ".symtab.json")["oracle"].str();
}

std::vector<Target> targets() {
  std::vector<Target> out;
  for (const testing::ProgramBuild& b : testing::programBuilds("retention")) {
    const bool arm = b.arch == "arm", s390x = b.arch == "s390x";
    out.push_back({b.name, b.exe, b.arch, arm ? 4u : 8u, s390x, arm ? 4u : s390x ? 2u : 1u, ""});
  }
  return out;
}

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class BinaryOf : public ::testing::TestWithParam<Target> {};

TEST_P(BinaryOf, ContainerSaysArchPointerSizeAndByteOrder) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const bin::Container& c = b->container();
  EXPECT_EQ(c.format, bin::ContainerFormat::Elf);
  EXPECT_EQ(c.arch, GetParam().arch);
  EXPECT_EQ(c.ptr_size, GetParam().ptr_size);
  EXPECT_EQ(c.big_endian, GetParam().big_endian);
  EXPECT_EQ(b->pclntab().ptrSize(), GetParam().ptr_size);
  EXPECT_EQ(b->pclntab().bigEndian(), GetParam().big_endian);
  EXPECT_EQ(b->pclntab().quantum(), GetParam().quantum);
  EXPECT_FALSE(c.segments.empty());
  ASSERT_NE(c.section(".text"), nullptr);
  EXPECT_EQ(c.section(".no-such-section"), nullptr);
}

TEST_P(BinaryOf, GoVersionFromBuildInfoAndFromTheSymbolAgreeWithTheToolchain) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const std::string want = oracleVersion(GetParam().exe);
  EXPECT_EQ(b->goVersion(), want);
  EXPECT_EQ(b->goVersionSource(), "buildinfo");
  EXPECT_EQ(bin::goVersionFromSymbol(b->container()).value_or("none"), want);
}

TEST_P(BinaryOf, SymbolTableAgreesWithThePclntab) {
  Expected<bin::Binary> b = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(b.ok()) << b.error().message();
  for (const char* name : {"main.main", "runtime.main", "runtime.mallocgc"}) {
    const bin::Symbol* sym = b->container().symbol(name);
    ASSERT_NE(sym, nullptr) << name;
    const bin::Func* f = b->pclntab().funcAt(sym->value);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->name, name);
    EXPECT_EQ(f->entry, sym->value);
    // The table's end is the next function's entry: the symbol's size plus
    // the padding that aligns the next function.
    EXPECT_LE(sym->size, f->end - f->entry) << name;
    EXPECT_LT(f->end - f->entry - sym->size, 64u) << name;
  }
}

// Without a .gopclntab section (renamed here) the table is found by its
// magic, and it is the same table.
TEST_P(BinaryOf, ScanFindsTheSameTableWithoutTheSection) {
  Expected<bin::Binary> with = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(with.ok()) << with.error().message();
  std::vector<uint8_t> bytes = readAll(GetParam().exe);
  const bin::Section* names = with->container().section(".shstrtab");
  ASSERT_NE(names, nullptr);
  const std::string_view table(reinterpret_cast<const char*>(bytes.data() + names->offset),
                               names->size);
  const size_t at = table.find(".gopclntab");
  ASSERT_NE(at, std::string_view::npos);
  bytes[names->offset + at + 1] = 'x';
  Expected<bin::Binary> without = bin::Binary::fromBytes(bytes, "renamed");
  ASSERT_TRUE(without.ok()) << without.error().message();
  ASSERT_EQ(without->container().section(".gopclntab"), nullptr);
  const auto a = with->pclntab().funcs();
  const auto b = without->pclntab().funcs();
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].entry, b[i].entry);
    ASSERT_EQ(a[i].name, b[i].name);
  }
}

// Go 1.26 writes 0 as the header's text start; the .text address stands in.
TEST_P(BinaryOf, ZeroTextStartFallsBackToTheTextSection) {
  Expected<bin::Binary> orig = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(orig.ok()) << orig.error().message();
  std::vector<uint8_t> bytes = readAll(GetParam().exe);
  const bin::Section* s = orig->container().section(".gopclntab");
  ASSERT_NE(s, nullptr);
  const uint64_t text_start_word = s->offset + 8 + 2 * uint64_t{GetParam().ptr_size};
  std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(text_start_word), GetParam().ptr_size, 0);
  Expected<bin::Binary> zeroed = bin::Binary::fromBytes(bytes, "zeroed");
  ASSERT_TRUE(zeroed.ok()) << zeroed.error().message();
  const auto a = orig->pclntab().funcs();
  const auto b = zeroed->pclntab().funcs();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].entry, b[i].entry) << a[i].name;
}

// Bytes of the pclntab flipped at random (a fixed seed): every lookup ends in
// a value or an Error (the fuzz build runs this under ASan).
TEST_P(BinaryOf, RandomlyCorruptedPclntabNeverCrashes) {
  Expected<bin::Binary> orig = bin::Binary::open(GetParam().exe);
  ASSERT_TRUE(orig.ok()) << orig.error().message();
  const bin::Section* s = orig->container().section(".gopclntab");
  ASSERT_NE(s, nullptr);
  const std::vector<uint8_t> clean = readAll(GetParam().exe);
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) {
    std::vector<uint8_t> bytes = clean;
    for (int k = 0; k < 64; ++k) {
      // Half the flips in the header and function table, where they matter most.
      const uint64_t span = k % 2 == 0 ? std::min<uint64_t>(s->size, 4096) : s->size;
      bytes[s->offset + rng() % span] = static_cast<uint8_t>(rng());
    }
    Expected<bin::Binary> b = bin::Binary::fromBytes(bytes, "flipped");
    if (!b.ok()) continue;
    for (const bin::Func& f : b->pclntab().funcs()) {
      (void)b->pclntab().pcToLine(f.entry);
      (void)b->pclntab().lookup(f.end);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Built, BinaryOf, ::testing::ValuesIn(targets()),
                         [](const auto& p) { return p.param.name; });

TEST(Container, NotAnExecutableIsAnErrorAtOffsetZero) {
  const std::vector<uint8_t> junk(100, 0x41);
  Expected<bin::Container> c = bin::readContainer(junk);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("offset 0"), std::string::npos) << c.error().message();
}

TEST(Container, TruncatedMachOAndPeSayWhatTheyAre) {
  std::vector<uint8_t> macho = {0xcf, 0xfa, 0xed, 0xfe, 0, 0, 0, 0};
  std::vector<uint8_t> pe = {'M', 'Z', 0, 0};
  EXPECT_NE(bin::readContainer(macho).error().message().find("Mach-O"), std::string::npos);
  EXPECT_NE(bin::readContainer(pe).error().message().find("PE"), std::string::npos);
}

// The Go 1.22 windows/amd64 executable of the shared test data (stripped: no
// COFF symbols, so the pclntab is found by its magic; checked against gosym
// in pclntab_test.cpp).
TEST(Pe, Go122WindowsAmd64) {
  const std::string path = std::string(GOHEAP_GOBIN_DIR) + "/gold-windows-amd64-1.22.0";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  Expected<bin::Binary> b = bin::Binary::open(path);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const bin::Container& c = b->container();
  EXPECT_EQ(c.format, bin::ContainerFormat::Pe);
  EXPECT_EQ(c.arch, "amd64");
  EXPECT_EQ(c.ptr_size, 8u);
  EXPECT_EQ(b->goVersion(), "go1.22.0");
  EXPECT_EQ(b->pclntab().layout(), bin::PclntabLayout::Go120);
  const bin::Section* text = c.section(".text");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(b->pclntab().funcs().front().entry, text->addr);
  const std::vector<uint8_t> bytes = readAll(path);
  for (size_t n = 0; n < 4096; n += 7) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(bin::Binary::fromBytes(cut, "cut").ok()) << n;
  }
}

// The Go 1.20 darwin/amd64 executable of the shared test data (its pclntab is
// checked against gosym in pclntab_test.cpp): container facts and symbols.
TEST(MachO, Go120DarwinAmd64) {
  const std::string path = std::string(GOHEAP_GOBIN_DIR) + "/gold-darwin-amd64-1.20.0";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  Expected<bin::Binary> b = bin::Binary::open(path);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const bin::Container& c = b->container();
  EXPECT_EQ(c.format, bin::ContainerFormat::MachO);
  EXPECT_EQ(c.arch, "amd64");
  EXPECT_EQ(c.ptr_size, 8u);
  EXPECT_FALSE(c.big_endian);
  EXPECT_EQ(b->goVersion(), "go1.20");
  EXPECT_EQ(b->pclntab().layout(), bin::PclntabLayout::Go120);
  ASSERT_NE(c.section("__gopclntab"), nullptr);
  ASSERT_NE(c.section("__text"), nullptr);
  EXPECT_FALSE(c.segments.empty());
  const bin::Symbol* sym = c.symbol("main.main");  // "_main.main" in the file
  ASSERT_NE(sym, nullptr);
  const bin::Func* f = b->pclntab().funcAt(sym->value);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "main.main");
  EXPECT_EQ(f->entry, sym->value);
  // Cut anywhere in its load commands: an Error, never a crash.
  const std::vector<uint8_t> bytes = readAll(path);
  for (size_t n = 0; n < 4096; n += 7) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(bin::Binary::fromBytes(cut, "cut").ok()) << n;
  }
}

TEST(Pclntab, TooShortOrWithoutMagicIsAnError) {
  const std::vector<uint8_t> shortone = {0xf1, 0xff, 0xff};
  EXPECT_FALSE(bin::Pclntab::parse(shortone).ok());
  const std::vector<uint8_t> nomagic(64, 0);
  EXPECT_FALSE(bin::Pclntab::parse(nomagic).ok());
}

// A function count larger than the table can hold must not allocate it.
TEST(Pclntab, HugeFunctionCountIsAnError) {
  std::vector<uint8_t> t(8 + 8 * 8, 0);
  t[0] = 0xf1, t[1] = 0xff, t[2] = 0xff, t[3] = 0xff, t[6] = 1, t[7] = 8;
  for (int i = 8; i < 16; ++i) t[i] = 0xff;  // nfunc
  Expected<bin::Pclntab> p = bin::Pclntab::parse(t);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("function table"), std::string::npos) << p.error().message();
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// Inputs the fuzzer found (fuzz/corpus/bin_reader/): each must end in a value
// or an Error. pcvalue-sum-overflow: a pc-value table whose deltas overflow a
// signed sum (undefined behaviour before the sum was made modular).
TEST(BinFuzzRegressions, EveryKeptInputIsHandled) {
  const std::string dir = std::string(GOHEAP_SOURCE_DIR) + "/fuzz/corpus/bin_reader";
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::vector<uint8_t> bytes = readAll(entry.path().string());
    for (auto t = bin::Pclntab::parse(bytes, 0x401000); t.ok();) {
      for (const bin::Func& f : t->funcs()) {
        (void)t->pcToLine(f.entry);
        (void)t->lookup(f.end);
      }
      break;
    }
    (void)bin::Binary::fromBytes(bytes, "fuzz");
    ++n;
  }
  EXPECT_GE(n, 1u);
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// The Go version of the shared old executables (all stripped): Go 1.16 keeps
// it behind pointers in the build info, Go 1.18 inline; Go 1.5 has no build
// info (added in 1.13) and no symbols: runtime.buildVersion's string header
// gives it (tests/bin/build_version_test.cpp).
TEST(GoVersion, OfTheOldExecutables) {
  const std::pair<const char*, const char*> cases[] = {
      {"gold-linux-amd64-1.5.0", "go1.5"},
      {"gold-linux-amd64-1.16.0", "go1.16"},
      {"gold-linux-386-1.18.0", "go1.18"},
  };
  for (const auto& [file, version] : cases) {
    const std::string path = std::string(GOHEAP_GOBIN_DIR) + "/" + file;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    Expected<bin::Binary> b = bin::Binary::open(path);
    ASSERT_TRUE(b.ok()) << b.error().message();
    EXPECT_EQ(b->goVersion(), version) << file;
    EXPECT_EQ(b->goVersionSource(),
              std::string(version) == "go1.5" ? "runtime.buildVersion header" : "buildinfo")
        << file;
  }
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// The globals that the retention program says alone hold a structure
// (structures[].holder, "main.retainedTree") must be what the symbol index
// names at the data or bss slot that points to the structure's root.
TEST(SymbolIndex, NamesTheGlobalsThatHoldTheReportedStructures) {
  for (const std::string& v : testing::goVersionsWithReleaseTier()) {
    SCOPED_TRACE(v);
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v;
    Expected<bin::Binary> b = bin::Binary::open(dir + "/retention");
    ASSERT_TRUE(b.ok()) << b.error().message();
    Expected<model::HeapModel> d = dump::readDumpFile(dir + "/retention.dump");
    ASSERT_TRUE(d.ok()) << d.error().message();
    const JsonValue report = JsonValue::parseFile(dir + "/retention.json");
    size_t checked = 0;
    for (const auto& [label, s] : report["structures"].members()) {
      const std::string holder = s["holder"].str();
      if (b->container().symbol(holder) == nullptr) continue;  // held by a function's frame
      if (b->pclntab().funcAt(b->container().symbol(holder)->value) != nullptr) continue;
      const uint64_t root = s["root_addr"].hexAddress();
      std::vector<std::string> names;
      for (const model::Segment* seg : {&d->data, &d->bss}) {
        const auto bytes = d->bytes(seg->contents);
        for (uint64_t off = 0; off + 8 <= bytes.size(); off += 8) {
          if (d->words().read(bytes.data() + off) != root) continue;
          const bin::Symbol* sym = b->symbols().containing(seg->addr + off);
          names.emplace_back(sym != nullptr ? sym->name : "(none)");
        }
      }
      EXPECT_NE(std::find(names.begin(), names.end(), holder), names.end())
          << label << ": slots pointing at " << s["root_addr"].str() << " are in "
          << ::testing::PrintToString(names);
      ++checked;
    }
    EXPECT_GE(checked, 2u);
  }
}

TEST(SymbolIndex, ContainingRespectsSizesAndSkipsEmptySymbols) {
  const std::vector<bin::Symbol> syms = {
      {"b", 0x2000, 0x10}, {"a", 0x1000, 0x8}, {"marker", 0x1004, 0}, {"c", 0x2010, 0x4}};
  const bin::SymbolIndex index(syms);
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(index.containing(0xfff), nullptr);
  EXPECT_EQ(index.containing(0x1000)->name, "a");
  EXPECT_EQ(index.containing(0x1007)->name, "a");
  EXPECT_EQ(index.containing(0x1008), nullptr);
  EXPECT_EQ(index.containing(0x200f)->name, "b");
  EXPECT_EQ(index.containing(0x2010)->name, "c");
  EXPECT_EQ(index.containing(0x2014), nullptr);
}

}  // namespace
}  // namespace goheap
