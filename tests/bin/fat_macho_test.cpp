// Universal (fat) Mach-O: the gobin darwin executable wrapped in a
// hand-built universal header beside a junk slice. goheap must pick the
// slice for this machine's CPU, else the first Go slice, and read it as it
// reads the thin file; a broken header is an Error with an offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "bin/binary.h"

namespace goheap {
namespace {

constexpr uint32_t kAmd64 = 0x01000007;
constexpr uint32_t kArm64 = 0x0100000c;
constexpr uint32_t kPpc64 = 0x01000012;

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void putBe32(std::vector<uint8_t>& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

struct Slice {
  uint32_t cputype;
  std::vector<uint8_t> bytes;
};

// magic, nfat_arch, then {cputype, cpusubtype, offset, size, align} per
// slice, big-endian; slices 4 KiB aligned (align = 12) as lipo writes them.
std::vector<uint8_t> fatFile(const std::vector<Slice>& slices) {
  std::vector<uint8_t> out(8 + 20 * slices.size(), 0);
  putBe32(out, 0, 0xcafebabe);
  putBe32(out, 4, static_cast<uint32_t>(slices.size()));
  for (size_t i = 0; i < slices.size(); ++i) {
    out.resize((out.size() + 4095) / 4096 * 4096, 0);
    const size_t offset = out.size();
    out.insert(out.end(), slices[i].bytes.begin(), slices[i].bytes.end());
    const size_t e = 8 + 20 * i;
    putBe32(out, e, slices[i].cputype);
    putBe32(out, e + 4, 3);
    putBe32(out, e + 8, static_cast<uint32_t>(offset));
    putBe32(out, e + 12, static_cast<uint32_t>(slices[i].bytes.size()));
    putBe32(out, e + 16, 12);
  }
  return out;
}

class FatMachO : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string exe = std::string(GOHEAP_GOBIN_DIR) + "/gold-darwin-amd64-1.20.0";
    if (!std::filesystem::exists(exe)) GTEST_SKIP() << "no " << exe;
    thin_ = readAll(exe);
  }
  void expectSameAsThin(const std::vector<uint8_t>& fat) {
    Expected<bin::Binary> a = bin::Binary::fromBytes(thin_, "thin");
    Expected<bin::Binary> b = bin::Binary::fromBytes(fat, "fat");
    ASSERT_TRUE(a.ok()) << a.error().message();
    ASSERT_TRUE(b.ok()) << b.error().message();
    EXPECT_EQ(b->container().format, bin::ContainerFormat::MachO);
    EXPECT_EQ(b->container().arch, "amd64");
    EXPECT_GT(b->container().slice_offset, 0u);
    EXPECT_EQ(b->goVersion(), a->goVersion());
    EXPECT_EQ(b->buildId(), a->buildId());
    ASSERT_EQ(b->pclntab().funcs().size(), a->pclntab().funcs().size());
    for (size_t i = 0; i < a->pclntab().funcs().size(); ++i) {
      ASSERT_EQ(b->pclntab().funcs()[i].entry, a->pclntab().funcs()[i].entry);
      ASSERT_EQ(b->pclntab().funcs()[i].name, a->pclntab().funcs()[i].name);
    }
    ASSERT_TRUE(b->moduleLayout().has_value());
    EXPECT_EQ(b->moduleLayout()->gofunc, a->moduleLayout()->gofunc);
    const bin::Func& f = a->pclntab().funcs()[a->pclntab().funcs().size() / 2];
    Expected<std::vector<bin::SourceFrame>> x = a->symbolize(f.end);
    Expected<std::vector<bin::SourceFrame>> y = b->symbolize(f.end);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->size(), y->size());
  }
  std::vector<uint8_t> thin_;
};

TEST_F(FatMachO, PicksTheSliceForThisMachine) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the test's Go slice is amd64";
#endif
  const std::vector<uint8_t> junk(5000, 0x5a);
  expectSameAsThin(fatFile({{kArm64, junk}, {kAmd64, thin_}}));
}

TEST_F(FatMachO, ElseTheFirstGoSlice) {
  // Neither slice is labelled with this machine's CPU; the first one is a
  // Mach-O header with no Go in it.
  std::vector<uint8_t> no_go(thin_.begin(), thin_.begin() + 32);
  putBe32(no_go, 16, 0);  // ncmds = 0 (any byte order: zero)
  putBe32(no_go, 20, 0);
  expectSameAsThin(fatFile({{kPpc64, no_go}, {kPpc64, thin_}}));
}

TEST_F(FatMachO, BrokenHeadersAreErrorsWithOffsets) {
  std::vector<uint8_t> fat = fatFile({{kAmd64, thin_}});
  std::vector<uint8_t> table_cut(fat.begin(), fat.begin() + 12);
  Expected<bin::Container> c = bin::readContainer(table_cut);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("byte offset 8"), std::string::npos) << c.error().message();
  std::vector<uint8_t> slice_cut(fat.begin(), fat.begin() + 8192);
  c = bin::readContainer(slice_cut);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("byte offset 8"), std::string::npos) << c.error().message();
  for (size_t n = 0; n < fat.size(); n += fat.size() / 53) {
    std::vector<uint8_t> cut(fat.begin(), fat.begin() + static_cast<std::ptrdiff_t>(n));
    (void)bin::Binary::fromBytes(cut, "cut");  // a value or an Error, never a crash
  }
}

}  // namespace
}  // namespace goheap
