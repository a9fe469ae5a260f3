// What snap copies of a process: /proc/PID/maps as the kernel prints it,
// and the plan made from it with the touched pages given, against what the
// rules in memory_plan.h say by hand on small mappings.
#include "acquire/memory_plan.h"

#include <gtest/gtest.h>

#include <map>

namespace goheap::acquire {
namespace {

constexpr uint64_t kPage = 4096;

TEST(ParseMaps, ReadsTheKernelsLines) {
  auto maps = parseMaps(
      "00400000-004c7000 r-xp 00000000 fe:00 11043533                           /tmp/zoo\n"
      "c000000000-c000400000 rw-p 00000000 00:00 0 \n"
      "7f11cbd8c000-7f11cbd90000 r--p 00000000 00:00 0                          [vvar]\n"
      "7ffecfc2c000-7ffecfc4d000 rw-p 00000000 00:00 0                          [stack]\n"
      "7f0000000000-7f0000001000 rw-s 00001000 00:05 77   /memfd:x (deleted)\n");
  ASSERT_TRUE(maps.ok()) << maps.error().message();
  ASSERT_EQ(maps->size(), 5u);
  const Mapping& text = (*maps)[0];
  EXPECT_EQ(text.start, 0x400000u);
  EXPECT_EQ(text.end, 0x4c7000u);
  EXPECT_TRUE(text.read && text.exec && !text.write && !text.shared);
  EXPECT_EQ(text.path, "/tmp/zoo");
  EXPECT_TRUE(text.fileBacked());
  EXPECT_EQ((*maps)[1].path, "");
  EXPECT_FALSE((*maps)[1].fileBacked());
  EXPECT_EQ((*maps)[3].path, "[stack]");
  EXPECT_TRUE((*maps)[4].shared);
  EXPECT_EQ((*maps)[4].offset, 0x1000u);
  EXPECT_EQ((*maps)[4].path, "/memfd:x (deleted)");
}

TEST(ParseMaps, SaysWhichLineDoesNotParse) {
  auto maps = parseMaps("00400000-004c7000 r-xp 00000000 fe:00 1 /x\nnot a mapping\n");
  ASSERT_FALSE(maps.ok());
  EXPECT_NE(maps.error().message().find("line 2"), std::string::npos) << maps.error().message();
  EXPECT_FALSE(parseMaps("5000-4000 rw-p 0 00:00 0\n").ok());  // ends before it starts
}

// The plan of `maps` with anonymous memory touched where `touched` says
// (by mapping start: one flag per page).
MemoryPlan plan(const std::vector<Mapping>& maps, std::map<uint64_t, std::vector<bool>> touched) {
  PlanInputs in;
  in.mappings = &maps;
  in.page_size = kPage;
  in.touched = [&](uint64_t start, uint64_t) -> Expected<std::vector<bool>> {
    return touched.at(start);
  };
  in.is_elf_header = [](const Mapping& m) { return m.path == "/usr/bin/prog"; };
  auto p = planMemory(in);
  EXPECT_TRUE(p.ok());
  return p.ok() ? p.take() : MemoryPlan{};
}

Mapping mapping(uint64_t start, uint64_t pages, const char* perms, std::string path = "",
                uint64_t inode = 0) {
  Mapping m;
  m.start = start;
  m.end = start + pages * kPage;
  m.read = perms[0] == 'r';
  m.write = perms[1] == 'w';
  m.exec = perms[2] == 'x';
  m.shared = perms[3] == 's';
  m.path = std::move(path);
  m.inode = inode;
  return m;
}

TEST(PlanMemory, CopiesTouchedRunsAndLeavesOutTheRest) {
  // 40 pages: touched 0-1, a gap of 3, 5-6, a gap of 30, 37; the last two
  // untouched. Every gap is left out, however short.
  std::vector<bool> t(40, false);
  for (int p : {0, 1, 5, 6, 37}) t[p] = true;
  const uint64_t base = 0x100000;
  const MemoryPlan p = plan({mapping(base, 40, "rw-p")}, {{base, t}});
  std::vector<std::tuple<uint64_t, uint64_t, bool>> got;
  for (const PlannedSegment& s : p.segments) {
    got.emplace_back((s.start - base) / kPage, (s.end - base) / kPage, s.copy);
    EXPECT_TRUE(s.zero_gaps.empty());
  }
  const std::vector<std::tuple<uint64_t, uint64_t, bool>> want = {
      {0, 2, true}, {2, 5, false}, {5, 7, true}, {7, 37, false}, {37, 38, true}, {38, 40, false}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(p.copied_bytes, 5 * kPage);  // the touched pages only
  EXPECT_EQ(p.writable_bytes, 40 * kPage);
}

TEST(PlanMemory, FollowsTheRulesForEachKindOfMapping) {
  const std::vector<Mapping> maps = {
      mapping(0x400000, 10, "r-xp", "/usr/bin/prog", 7),    // text: its first page
      mapping(0x40a000, 4, "rw-p", "/usr/bin/prog", 7),     // data: whole
      mapping(0x500000, 4, "---p"),                         // reservation: nothing
      mapping(0x600000, 2, "rw-s", "/var/db/file", 9),      // shared file: not copied
      mapping(0x700000, 1, "r--p", "[vvar]"),               // never read
      mapping(0x701000, 2, "r-xp", "[vdso]"),               // whole
      mapping(0x800000, 2, "r--p", "/usr/lib/libc.so", 8),  // not an ELF header here
  };
  const MemoryPlan p = plan(maps, {});
  std::vector<std::tuple<uint64_t, uint64_t, bool>> got;
  for (const PlannedSegment& s : p.segments) got.emplace_back(s.start, s.end, s.copy);
  const std::vector<std::tuple<uint64_t, uint64_t, bool>> want = {
      {0x400000, 0x401000, true},  {0x401000, 0x40a000, false}, {0x40a000, 0x40e000, true},
      {0x600000, 0x602000, false}, {0x701000, 0x703000, true},  {0x800000, 0x802000, false}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(p.writable_bytes, (4 + 2) * kPage);
}

TEST(PlanMemory, ABufferTouchedAtItsFirstByteCopiesOnePage) {
  // 2,000 buffers of 64 KiB (16 pages), each touched at its first page, as
  // the Go runtime hands out fresh memory: a core of the touched pages, not
  // of the mapping (which merging runs of 16 untouched pages had copied).
  std::vector<bool> t(2000 * 16, false);
  for (size_t i = 0; i < t.size(); i += 16) t[i] = true;
  const MemoryPlan p = plan({mapping(0x10000000, t.size(), "rw-p")}, {{0x10000000, t}});
  EXPECT_EQ(p.segments.size(), 4000u);
  EXPECT_EQ(p.copied_bytes, 2000 * kPage);
}

TEST(PlanMemory, MergesUntouchedRunsRatherThanListAMillionSegments) {
  // Every other page touched over 2.2 million pages: 1.1 million runs, 2.2
  // million segments unmerged. Runs of one untouched page merge first.
  std::vector<bool> t(2200000, false);
  for (size_t i = 0; i < t.size(); i += 2) t[i] = true;
  const MemoryPlan p = plan({mapping(0x10000000, t.size(), "rw-p")}, {{0x10000000, t}});
  EXPECT_EQ(p.segments.size(), 2u);  // one merged run, and the untouched last page
  EXPECT_EQ(p.copied_bytes, (t.size() - 1) * kPage);
}

}  // namespace
}  // namespace goheap::acquire
