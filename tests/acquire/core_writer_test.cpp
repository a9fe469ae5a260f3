// The core writer on a plan of more segments than ELF's 16-bit program
// header count holds (a sparse heap: one touched page, then an untouched
// run, over and over): the core uses extended numbering, and goheap's core
// reader gets every segment and every page back.
#include "acquire/core_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "core/core_file.h"
#include "support/goheap_process.h"

namespace goheap::acquire {
namespace {

constexpr uint64_t kPage = 4096;

// What a core of `plan` alone holds: no thread, no mapping; the caller
// sets what else it needs (read_memory, the note). Not to be moved: the
// contents point at its members.
struct BareCore {
  explicit BareCore(const MemoryPlan& plan) {
    contents.threads = &threads;
    contents.mappings = &mappings;
    contents.plan = &plan;
    contents.page_size = kPage;
  }
  BareCore(const BareCore&) = delete;
  BareCore& operator=(const BareCore&) = delete;
  const std::vector<StoppedThread> threads;
  const std::vector<Mapping> mappings;
  CoreContents contents;
};

// A snap's core of `pages` touched pages, each followed by an untouched
// one, in runs of `per_run` pairs with a gap of address space between runs:
// each page holds its number, so that a page read back from the wrong
// segment shows. Written to `path`; the bytes written.
// With `in_order`, writeCoreInOrder writes it through a pipe (cat), which
// cannot seek.
Expected<uint64_t> writeSparseCore(const std::string& path, uint64_t pages, uint64_t per_run,
                                   bool in_order = false) {
  constexpr uint64_t kBase = 0x7f0000000000;
  auto pageAt = [&](uint64_t i) { return kBase + 2 * i * kPage + (i / per_run) * (1 << 20); };
  MemoryPlan plan;
  for (uint64_t i = 0; i < pages; i++) {
    PlannedSegment touched;
    touched.start = pageAt(i);
    touched.end = touched.start + kPage;
    touched.read = touched.write = true;
    touched.copy = true;
    PlannedSegment untouched = touched;
    untouched.start = touched.end;
    untouched.end = untouched.start + kPage;
    untouched.copy = false;
    plan.segments.push_back(touched);
    plan.segments.push_back(untouched);
  }
  BareCore core_of(plan);
  CoreContents& contents = core_of.contents;
  contents.note.untouched_is_zero = true;
  contents.read_memory = [&](uint64_t addr, std::span<uint8_t> into) -> Status {
    const uint64_t run = (addr - kBase) / (2 * per_run * kPage + (1 << 20));
    const uint64_t i = run * per_run + (addr - pageAt(run * per_run)) / (2 * kPage);
    std::fill(into.begin(), into.end(), static_cast<uint8_t>(1 + i % 251));
    return Status::success();
  };
  if (in_order) {
    std::FILE* pipe = ::popen(("cat > '" + path + "'").c_str(), "w");
    if (pipe == nullptr) return Error("cannot start cat");
    FileOutput out(pipe);
    Expected<uint64_t> written = writeCoreInOrder(contents, out);
    if (::pclose(pipe) != 0) return Error("cat failed");
    return written;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Error("cannot write " + path);
  FileOutput out(f);
  Expected<uint64_t> written = writeCore(contents, out);
  std::fclose(f);
  return written;
}

// Reads the core back and checks every 997th page pair.
void expectSparseCoreReads(const std::string& path, uint64_t pages) {
  auto core = core::CoreFile::open(path);
  ASSERT_TRUE(core.ok()) << core.error().message();
  const std::vector<core::CoreSegment>& segments = core->segments();
  ASSERT_EQ(segments.size(), 2 * pages);
  for (uint64_t i = 0; i < pages; i += 997) {
    const core::CoreSegment& t = segments[2 * i];
    ASSERT_EQ(t.bytes.size(), kPage);
    EXPECT_EQ(t.bytes[0], 1 + i % 251) << i;
    EXPECT_EQ(t.bytes[kPage - 1], 1 + i % 251) << i;
    EXPECT_EQ(segments[2 * i + 1].filesz, 0u);  // left out: zero
    EXPECT_TRUE(segments[2 * i + 1].zero);
    EXPECT_EQ(segments[2 * i + 1].bytes.size(), kPage);
  }
}

TEST(CoreWriter, MoreThan65535SegmentsUseExtendedNumbering) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  // 40,000 touched pages in one run, each followed by an untouched one:
  // 80,000 PT_LOADs and the PT_NOTE.
  constexpr uint64_t kPages = 40000;
  const std::string path = testing::scratch().file("extended-numbering.core");
  Expected<uint64_t> written = writeSparseCore(path, kPages, kPages);
  ASSERT_TRUE(written.ok()) << written.error().message();
  expectSparseCoreReads(path, kPages);
  // The file holds the touched pages, not the untouched ones.
  EXPECT_LT(*written, (kPages + 64) * kPage + 2 * kPages * 64);
}

// 30 runs of 1,000 pieces: mapping each piece from the file would take
// 60,000 of the process's kernel mappings, near the kernel's limit of
// 65,530; past goheap's budget of 8,192 pieces (16,384 mappings) in all,
// the later runs are copied instead, and read the same.
TEST(CoreWriter, ManyRunsOfPiecesStayWithinTheMappingBudget) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  constexpr uint64_t kPages = 30000;
  const std::string path = testing::scratch().file("many-runs.core");
  Expected<uint64_t> written = writeSparseCore(path, kPages, 1000);
  ASSERT_TRUE(written.ok()) << written.error().message();
  auto count = [] {
    return std::count(std::istreambuf_iterator<char>(std::ifstream("/proc/self/maps").rdbuf()),
                      std::istreambuf_iterator<char>(), '\n');
  };
  const auto before = count();
  {
    auto core = core::CoreFile::open(path);
    ASSERT_TRUE(core.ok()) << core.error().message();
    EXPECT_LT(count() - before, 16384 + 64);
  }
  expectSparseCoreReads(path, kPages);
}

// Written front to back through a pipe, the same core reads back the
// same: every segment, every page, the extended numbering.
TEST(CoreWriter, ACoreWrittenInOrderThroughAPipeReadsTheSame) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  for (const uint64_t pages : {uint64_t{300}, uint64_t{40000}}) {
    const std::string path = testing::scratch().file("in-order.core");
    Expected<uint64_t> written = writeSparseCore(path, pages, pages, /*in_order=*/true);
    ASSERT_TRUE(written.ok()) << written.error().message();
    EXPECT_EQ(std::filesystem::file_size(path), *written);
    expectSparseCoreReads(path, pages);
  }
}

// A copied piece's zero gaps are written as zeros, unread.
TEST(CoreWriter, ZeroGapsOfACoreWrittenInOrderReadAsZero) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  MemoryPlan plan;
  PlannedSegment piece;
  piece.start = 0x7f0000000000;
  piece.end = piece.start + 8 * kPage;
  piece.read = piece.write = piece.copy = true;
  piece.zero_gaps = {{piece.start + 2 * kPage, piece.start + 5 * kPage}};
  plan.segments = {piece};
  BareCore core_of(plan);
  CoreContents& contents = core_of.contents;
  std::vector<uint64_t> read_at;
  contents.read_memory = [&](uint64_t addr, std::span<uint8_t> into) -> Status {
    read_at.push_back(addr);
    std::fill(into.begin(), into.end(), uint8_t{0xab});
    return Status::success();
  };
  MemoryOutput out(0);
  Expected<uint64_t> written = writeCoreInOrder(contents, out);
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(out.size(), *written);
  const std::string path = testing::scratch().file("zero-gaps.core");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  NullSink sink;
  ASSERT_TRUE(out.writeTo(f, sink));
  std::fclose(f);
  auto core = core::CoreFile::open(path);
  ASSERT_TRUE(core.ok()) << core.error().message();
  ASSERT_EQ(core->segments().size(), 1u);
  const auto& bytes = core->segments()[0].bytes;
  ASSERT_EQ(bytes.size(), 8 * kPage);
  for (uint64_t page = 0; page < 8; page++) {
    const uint8_t expected = page >= 2 && page < 5 ? 0 : 0xab;
    EXPECT_EQ(bytes[page * kPage], expected) << page;
    EXPECT_EQ(bytes[page * kPage + kPage - 1], expected) << page;
  }
  EXPECT_EQ(read_at, (std::vector<uint64_t>{piece.start, piece.start + 5 * kPage}));
}

// The executable a streamed core carries reads back as the file it came
// from: the same bytes, the same Go build ID.
TEST(CoreWriter, ACoreCarriesItsExecutableInANote) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/zoo";
  std::ifstream in(exe, std::ios::binary);
  ASSERT_TRUE(in) << exe << " is missing";
  const std::vector<uint8_t> exe_bytes((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  MemoryPlan plan;
  BareCore core_of(plan);
  CoreContents& contents = core_of.contents;
  contents.executable = exe_bytes;
  contents.read_memory = [](uint64_t, std::span<uint8_t>) { return Status::success(); };
  const std::string path = testing::scratch().file("carries-exe.core");
  std::FILE* pipe = ::popen(("cat > '" + path + "'").c_str(), "w");
  ASSERT_NE(pipe, nullptr);
  FileOutput out(pipe);
  Expected<uint64_t> written = writeCoreInOrder(contents, out);
  ASSERT_EQ(::pclose(pipe), 0);
  ASSERT_TRUE(written.ok()) << written.error().message();

  auto core = core::CoreFile::open(path);
  ASSERT_TRUE(core.ok()) << core.error().message();
  ASSERT_TRUE(core->carriedExecutable().has_value());
  EXPECT_EQ(core->carriedExecutable()->size, exe_bytes.size());
  Expected<bin::Binary> carried = bin::Binary::openPart(path, core->carriedExecutable()->offset,
                                                        core->carriedExecutable()->size);
  ASSERT_TRUE(carried.ok()) << carried.error().message();
  Expected<bin::Binary> original = bin::Binary::open(exe);
  ASSERT_TRUE(original.ok()) << original.error().message();
  EXPECT_FALSE(original->buildId().empty());
  EXPECT_EQ(carried->buildId(), original->buildId());
  EXPECT_EQ(carried->goVersion(), original->goVersion());
  EXPECT_TRUE(std::equal(carried->file().bytes().begin(), carried->file().bytes().end(),
                         exe_bytes.begin(), exe_bytes.end()));
}

}  // namespace
}  // namespace goheap::acquire
