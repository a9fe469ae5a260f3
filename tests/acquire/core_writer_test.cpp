// The core writer on a plan of more segments than ELF's 16-bit program
// header count holds (a sparse heap: one touched page, then an untouched
// run, over and over): the core uses extended numbering, and goheap's core
// reader gets every segment and every page back.
#include "acquire/core_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/core_file.h"
#include "support/goheap_process.h"

namespace goheap::acquire {
namespace {

constexpr uint64_t kPage = 4096;

TEST(CoreWriter, MoreThan65535SegmentsUseExtendedNumbering) {
  if (!canWriteCores()) GTEST_SKIP() << canWriteCores().error().message();
  // 40,000 touched pages, each followed by an untouched one: 80,000 PT_LOADs
  // and the PT_NOTE.
  constexpr uint64_t kRuns = 40000, kBase = 0x7f0000000000;
  MemoryPlan plan;
  for (uint64_t i = 0; i < kRuns; i++) {
    PlannedSegment touched;
    touched.start = kBase + 2 * i * kPage;
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
  // Each page holds its run's number, so that a page read back from the
  // wrong segment shows.
  contents.read_memory = [&](uint64_t addr, std::span<uint8_t> into) -> Status {
    for (size_t k = 0; k < into.size(); k++) {
      into[k] = static_cast<uint8_t>(1 + ((addr + k - kBase) / (2 * kPage)) % 251);
    }
    return Status::success();
  };
  const std::string path = testing::scratch().file("extended-numbering.core");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  FileOutput out(f);
  Expected<uint64_t> written = writeCore(contents, out);
  std::fclose(f);
  ASSERT_TRUE(written.ok()) << written.error().message();

  auto core = core::CoreFile::open(path);
  ASSERT_TRUE(core.ok()) << core.error().message();
  const std::vector<core::CoreSegment>& segments = core->segments();
  ASSERT_EQ(segments.size(), 2 * kRuns);
  for (uint64_t i = 0; i < kRuns; i += 997) {
    const core::CoreSegment& t = segments[2 * i];
    ASSERT_EQ(t.vaddr, kBase + 2 * i * kPage);
    ASSERT_EQ(t.bytes.size(), kPage);
    EXPECT_EQ(t.bytes[0], 1 + i % 251);
    EXPECT_EQ(t.bytes[kPage - 1], 1 + i % 251);
    EXPECT_EQ(segments[2 * i + 1].filesz, 0u);  // left out: zero
    EXPECT_TRUE(segments[2 * i + 1].zero);
  }
  // The file holds the touched pages, not the untouched ones.
  EXPECT_LT(*written, (kRuns + 64) * kPage + 2 * kRuns * 64);
}

}  // namespace
}  // namespace goheap::acquire
