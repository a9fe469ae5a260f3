// The note goheap snap writes into its cores (core/snap_note.h): its keys
// read back as written, and its mapping lines, which `goheap memory` reads
// each mapping's Rss from, with malformed ones skipped and counted.
#include <gtest/gtest.h>

#include <string>

#include "core/snap_note.h"

namespace goheap::core {
namespace {

SnapMapping mapping(uint64_t start, uint64_t end, std::string perms, uint64_t rss,
                    std::string path) {
  SnapMapping m;
  m.start = start;
  m.end = end;
  m.perms = std::move(perms);
  m.rss = rss;
  m.path = std::move(path);
  return m;
}

TEST(SnapNote, MappingsReadBackAsWritten) {
  SnapNote note;
  note.pid = 4242;
  note.exe_path = "/usr/bin/server";
  note.untouched_is_zero = true;
  note.mappings = {mapping(0x400000, 0x402000, "r--p", 8192, "/usr/bin/server"),
                   mapping(0xc000000000, 0xc004000000, "rw-p", 1 << 20, ""),
                   mapping(0x7f0000000000, 0x7f0000001000, "r--s", 0, "/tmp/a file with spaces"),
                   mapping(0x7ffc00000000, 0x7ffc00021000, "rw-p", 4096, "[stack]")};
  note.mappings[2].offset = 0x3000;
  const SnapNote back = parseSnapNote(formatSnapNote(note));
  EXPECT_EQ(back.pid, 4242u);
  EXPECT_EQ(back.skipped_mapping_lines, 0u);
  ASSERT_EQ(back.mappings.size(), note.mappings.size());
  for (size_t i = 0; i < note.mappings.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(back.mappings[i].start, note.mappings[i].start);
    EXPECT_EQ(back.mappings[i].end, note.mappings[i].end);
    EXPECT_EQ(back.mappings[i].perms, note.mappings[i].perms);
    EXPECT_EQ(back.mappings[i].offset, note.mappings[i].offset);
    EXPECT_EQ(back.mappings[i].rss, note.mappings[i].rss);
    EXPECT_EQ(back.mappings[i].path, note.mappings[i].path);
  }
  EXPECT_TRUE(back.mappings[2].shared());
  EXPECT_FALSE(back.mappings[1].shared());
}

TEST(SnapNote, MalformedMappingLinesAreSkippedAndCounted) {
  const std::string text =
      "pid=7\n"
      "mapping=400000-401000 r--p 0 4096 /bin/x\n"
      "mapping=zz-401000 r--p 0 4096\n"       // not hex
      "mapping=402000-401000 r--p 0 0 \n"     // ends before it starts
      "mapping=500000-501000 rw 0 0 \n"       // perms are four letters
      "mapping=600000-601000 rw-p 0 8192 \n"  // more resident than mapped
      "mapping=300000-301000 rw-p 0 0 \n"     // out of order
      "mapping=700000-701000 rw-p 0\n"        // no Rss
      "mapping=800000-801000 rw-p 0 4096 [heap]\n"
      "unknown_key=ignored\n";
  const SnapNote note = parseSnapNote(text);
  EXPECT_EQ(note.pid, 7u);
  ASSERT_EQ(note.mappings.size(), 2u);
  EXPECT_EQ(note.mappings[0].path, "/bin/x");
  EXPECT_EQ(note.mappings[1].path, "[heap]");
  EXPECT_EQ(note.mappings[1].rss, 4096u);
  EXPECT_EQ(note.skipped_mapping_lines, 6u);
}

// A path with a newline (possible, if perverse) is cut there, so that it
// cannot write a line of its own.
TEST(SnapNote, APathCannotAddALine) {
  SnapNote note;
  note.mappings = {mapping(0x1000, 0x2000, "rw-p", 0, "/tmp/x\nmapping=3000-4000 rw-p 0 0 /evil")};
  const SnapNote back = parseSnapNote(formatSnapNote(note));
  ASSERT_EQ(back.mappings.size(), 1u);
  EXPECT_EQ(back.mappings[0].path, "/tmp/x");
}

}  // namespace
}  // namespace goheap::core
