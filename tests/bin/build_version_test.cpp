// The Go version of a stripped executable without build info, from
// runtime.buildVersion's string header (bin/build_version.h): on the old
// stripped executable of the shared test data, on every executable
// make-dumps.sh builds (Go 1.19 to 1.27, ELF, PE and Mach-O, 64- and
// 32-bit, both byte orders) after `strip -s`, where it must agree with the
// build info, and on hand-built data where a bare string, two versions or
// a version in writable memory must give no answer.
#include "bin/build_version.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "bin/binary.h"
#include "bin/moduledata.h"

namespace goheap::bin {
namespace {

namespace fs = std::filesystem;

TEST(GoVersionString, WhatRuntimeBuildVersionHolds) {
  for (const char* yes :
       {"go1.5", "go1.12.17", "go1.10beta1", "go1.21rc2", "go1.24.4", "go1.25.12 X:greenteagc",
        "go1.27.4-X:nogreenteagc,mapsplitgroup", "devel +8b5fe5980c Tue Jun 4 2019"}) {
    EXPECT_TRUE(isGoVersionString(yes)) << yes;
  }
  for (const char* no : {"go1", "go1.", "go1.x", "go1.5 ", "go1.5.", "go1.5beta", "go2.0",
                         "go1.5 X:", "go1.5 X:Upper", "devel ", "go1.5\n", "gopher"}) {
    EXPECT_FALSE(isGoVersionString(no)) << no;
  }
}

// A container of two segments: read-only data at 0x1000 and writable data
// at 0x2000, each a page of the file; words of the target's width.
class TwoSegments {
 public:
  explicit TwoSegments(uint32_t ptr_size = 8, bool big_endian = false)
      : bytes_(0x2000, 0), ptr_(ptr_size), big_(big_endian) {
    c_.ptr_size = ptr_size;
    c_.big_endian = big_endian;
    c_.segments.push_back({0x1000, 0x1000, 0, 0x1000, false, false});
    c_.segments.push_back({0x2000, 0x1000, 0x1000, 0x1000, false, true});
  }
  // Puts `s` at address `addr` (either segment).
  void string(uint64_t addr, std::string_view s) {
    std::copy(s.begin(), s.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(addr - 0x1000));
  }
  void word(uint64_t addr, uint64_t v) {
    for (uint32_t i = 0; i < ptr_; i++) {
      const uint32_t shift = 8 * (big_ ? ptr_ - 1 - i : i);
      bytes_[addr - 0x1000 + i] = static_cast<uint8_t>(v >> shift);
    }
  }
  // A string header (pointer, length) at `addr` for the string at `target`.
  void header(uint64_t addr, uint64_t target, uint64_t len) {
    word(addr, target);
    word(addr + ptr_, len);
  }
  std::optional<std::string> find(PclntabLayout layout = PclntabLayout::Go12) {
    c_.file = ByteView(bytes_, big_);
    ModuleLayout m;
    m.data = 0x2000;
    m.edata = 0x3000;
    m.source = "moduledata";
    return goVersionFromStringHeader(c_, m, layout);
  }

 private:
  std::vector<uint8_t> bytes_;
  uint32_t ptr_;
  bool big_;
  Container c_;
};

TEST(StringHeader, FindsTheHeaderOfTheVersion) {
  TwoSegments t;
  t.string(0x1100, "go1.9.7");
  t.header(0x2040, 0x1100, 7);
  EXPECT_EQ(t.find(), "go1.9.7");
}

TEST(StringHeader, ABareStringIsNoAnswer) {
  TwoSegments t;
  t.string(0x1100, "go1.9.7");
  t.string(0x1200, "go1.10");
  EXPECT_EQ(t.find(), std::nullopt);
}

TEST(StringHeader, TwoVersionsAreNoAnswerOneTwiceIsOne) {
  TwoSegments t;
  t.string(0x1100, "go1.9.7");
  t.string(0x1200, "go1.10");
  t.header(0x2040, 0x1100, 7);
  t.header(0x2080, 0x1200, 6);
  EXPECT_EQ(t.find(), std::nullopt);
  TwoSegments same;
  same.string(0x1100, "go1.9.7");
  same.header(0x2040, 0x1100, 7);
  same.header(0x2080, 0x1100, 7);
  EXPECT_EQ(same.find(), "go1.9.7");
}

TEST(StringHeader, OnlyReadOnlyTargetsWholeStringsAndAgreeingReleases) {
  TwoSegments writable;  // a []byte or string built at run time, not the linker's
  writable.string(0x2800, "go1.9.7");
  writable.header(0x2040, 0x2800, 7);
  EXPECT_EQ(writable.find(), std::nullopt);
  TwoSegments longer;  // the length runs past the version
  longer.string(0x1100, "go1.9.7 and more");
  longer.header(0x2040, 0x1100, 16);
  EXPECT_EQ(longer.find(), std::nullopt);
  TwoSegments shorter;  // a prefix of something else that reads as a version
  shorter.string(0x1100, "go1.9.7");
  shorter.header(0x2040, 0x1100, 5);
  EXPECT_EQ(shorter.find(), "go1.9");  // indistinguishable: the header is the evidence
  TwoSegments wrong_table;             // Go 1.20 cannot have written a Go 1.2-1.15 pclntab
  wrong_table.string(0x1100, "go1.20");
  wrong_table.header(0x2040, 0x1100, 6);
  EXPECT_EQ(wrong_table.find(PclntabLayout::Go12), std::nullopt);
  EXPECT_EQ(wrong_table.find(PclntabLayout::Go120), "go1.20");
}

TEST(StringHeader, ThirtyTwoBitBigEndian) {
  TwoSegments t(4, true);
  t.string(0x1100, "go1.11.13");
  t.header(0x2044, 0x1100, 9);
  EXPECT_EQ(t.find(), "go1.11.13");
}

// The shared old executables: Go 1.5 (stripped, no build info) by its
// header, the others by their build info, with which the header agrees.
TEST(StringHeader, TheOldExecutables) {
  const std::pair<const char*, const char*> cases[] = {{"gold-linux-amd64-1.5.0", "go1.5"},
                                                       {"gold-linux-amd64-1.16.0", "go1.16"},
                                                       {"gold-linux-386-1.18.0", "go1.18"},
                                                       {"gold-darwin-amd64-1.20.0", "go1.20"},
                                                       {"gold-windows-amd64-1.22.0", "go1.22.0"}};
  for (const auto& [file, version] : cases) {
    const std::string path = std::string(GOHEAP_GOBIN_DIR) + "/" + file;
    if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
    Expected<Binary> b = Binary::open(path);
    ASSERT_TRUE(b.ok()) << b.error().message();
    EXPECT_EQ(b->goVersion(), version) << file;
    EXPECT_EQ(goVersionFromStringHeader(b->container(), b->moduleLayout(), b->pclntab().layout()),
              version)
        << file;
  }
}

// `strip -s` of a copy when binutils knows the format (amd64 ELF, PE), else
// the file with its symbols dropped in memory (s390x, arm, Mach-O): either
// way the module layout then comes from moduledata, as in a stripped file.
class Stripped {
 public:
  explicit Stripped(const fs::path& dir) : dir_(dir) {}
  std::optional<std::string> versionOf(const std::string& exe) {
    const fs::path copy = dir_ / fs::path(exe).filename();
    const std::string cmd = "strip -s -o '" + copy.string() + "' '" + exe + "' 2>/dev/null";
    const bool stripped = std::system(cmd.c_str()) == 0;
    stripped_ += stripped ? 1 : 0;
    Expected<Binary> b = Binary::open(stripped ? copy.string() : exe);
    if (!b.ok()) return "cannot open: " + b.error().message();
    Container c = b->container();
    c.symbols.clear();
    const std::optional<ModuleLayout> m = moduleLayoutFromModuledata(c, b->pclntab(), std::nullopt);
    return goVersionFromStringHeader(c, m, b->pclntab().layout());
  }
  // How many copies strip made: none when binutils is missing
  // (scripts/install-deps.sh installs it).
  size_t strippedCount() const { return stripped_; }

 private:
  fs::path dir_;
  size_t stripped_ = 0;
};

// Every Go executable below build/testdumps/go1.NN (what make-dumps.sh built
// with that toolchain; the Go caches beside them are not walked).
std::vector<std::string> builtExecutables() {
  std::vector<std::string> out;
  const fs::path root = GOHEAP_TESTDUMPS_DIR;
  if (!fs::exists(root)) return out;
  for (const auto& label : fs::directory_iterator(root)) {
    if (!label.path().filename().string().starts_with("go1.")) continue;
    for (const auto& e : fs::recursive_directory_iterator(
             label.path(), fs::directory_options::follow_directory_symlink)) {
      const bool other_file = e.path().has_extension() && e.path().extension() != ".exe";
      if (e.is_regular_file() && !other_file && e.file_size() > 100000) {
        out.push_back(e.path().string());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StringHeader, AgreesWithTheBuildInfoOfEveryStrippedTestExecutable) {
  const std::vector<std::string> exes = builtExecutables();
  if (exes.empty()) GTEST_SKIP() << "make-dumps.sh has not run";
  const fs::path dir = fs::temp_directory_path() / ("goheap-strip-" + std::to_string(getpid()));
  fs::create_directories(dir);
  Stripped strip(dir);
  size_t checked = 0;
  for (const std::string& exe : exes) {
    Expected<Binary> b = Binary::open(exe);
    if (!b.ok() || b->goVersionSource() != "buildinfo") continue;
    // PIEs too: Go's linker leaves the link-time address in the word it
    // relocates.
    EXPECT_EQ(strip.versionOf(exe), b->goVersion()) << exe;
    checked++;
  }
  fs::remove_all(dir);
  EXPECT_GT(checked, 10u);
  EXPECT_GT(strip.strippedCount(), 10u) << "strip made no stripped copies: is binutils installed?";
}

}  // namespace
}  // namespace goheap::bin
