// The core writer on a plan of more segments than ELF's 16-bit program
// header count holds (a sparse heap: one touched page, then an untouched
// run, over and over): the core uses extended numbering, and goheap's core
// reader gets every segment and every page back.
#include "acquire/core_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/core_file.h"
#include "support/goheap_process.h"

namespace goheap::acquire {
namespace {

constexpr uint64_t kPage = 4096;

// A snap's core of `pages` touched pages, each followed by an untouched
// one, in runs of `per_run` pairs with a gap of address space between runs:
// each page holds its number, so that a page read back from the wrong
// segment shows. Written to `path`; the bytes written.
Expected<uint64_t> writeSparseCore(const std::string& path, uint64_t pages, uint64_t per_run) {
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
  const std::vector<StoppedThread> threads;
  const std::vector<Mapping> mappings;
  CoreContents contents;
  contents.threads = &threads;
  contents.mappings = &mappings;
  contents.plan = &plan;
  contents.page_size = kPage;
  contents.note.untouched_is_zero = true;
  contents.read_memory = [&](uint64_t addr, std::span<uint8_t> into) -> Status {
    const uint64_t run = (addr - kBase) / (2 * per_run * kPage + (1 << 20));
    const uint64_t i = run * per_run + (addr - pageAt(run * per_run)) / (2 * kPage);
    std::fill(into.begin(), into.end(), static_cast<uint8_t>(1 + i % 251));
    return Status::success();
  };
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

}  // namespace
}  // namespace goheap::acquire
