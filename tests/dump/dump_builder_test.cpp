// The test-only dump writer, checked byte for byte against hand-written
// encodings from docs/dump-format.md, so the reader tests stand on a known
// footing.
#include <gtest/gtest.h>

#include <vector>

#include "support/dump_builder.h"

namespace goheap::testsupport {
namespace {

using dump::FieldKind;
using dump::FormatVersion;
using Bytes = std::vector<uint8_t>;

Bytes tail(const DumpBuilder& b, size_t from) {
  return Bytes(b.bytes().begin() + static_cast<std::ptrdiff_t>(from), b.bytes().end());
}

TEST(DumpBuilder, UvarintMatchesEncodingBinary) {
  EXPECT_EQ(encodeUvarint(0), Bytes({0x00}));
  EXPECT_EQ(encodeUvarint(127), Bytes({0x7f}));
  EXPECT_EQ(encodeUvarint(128), Bytes({0x80, 0x01}));
  EXPECT_EQ(encodeUvarint(300), Bytes({0xac, 0x02}));
  EXPECT_EQ(encodeUvarint(~uint64_t{0}),
            Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
}

TEST(DumpBuilder, WritesTheHeaderLine) {
  DumpBuilder b(FormatVersion::Go14, 8, false);
  const std::string want = "go1.4 heap dump\n";
  EXPECT_EQ(b.bytes(), Bytes(want.begin(), want.end()));
  DumpBuilder none(FormatVersion::Go14, 8, false, false);
  EXPECT_TRUE(none.bytes().empty());
}

TEST(DumpBuilder, PutsWordsInTheDumpsWidthAndByteOrder) {
  EXPECT_EQ(DumpBuilder(FormatVersion::Go17, 8, false).words({0x0102030405060708}),
            Bytes({8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(DumpBuilder(FormatVersion::Go17, 8, true).words({0x0102030405060708}),
            Bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(DumpBuilder(FormatVersion::Go17, 4, false).words({0x01020304, 5}),
            Bytes({4, 3, 2, 1, 5, 0, 0, 0}));
  EXPECT_EQ(DumpBuilder(FormatVersion::Go17, 4, true).words({0x01020304}), Bytes({1, 2, 3, 4}));
}

TEST(DumpBuilder, Go13ParamsCarryTheChannelHeaderSize) {
  DumpBuilder b(FormatVersion::Go13, 4, true, false);
  b.params({.hchan_size = 24,
            .heap_start = 1,
            .heap_end = 2,
            .thechar = '8',
            .second_string = "x",
            .ncpu = 3});
  // tag 6, big-endian 1, ptr 4, hchan 24, start 1, end 2, thechar '8', "x", ncpu 3
  EXPECT_EQ(b.bytes(), Bytes({6, 1, 4, 24, 1, 2, '8', 1, 'x', 3}));
}

TEST(DumpBuilder, Go14ParamsHaveThecharAndNoChannelHeaderSize) {
  DumpBuilder b(FormatVersion::Go15, 8, false, false);
  b.params({.heap_start = 1, .heap_end = 2, .thechar = '6', .second_string = "", .ncpu = 3});
  EXPECT_EQ(b.bytes(), Bytes({6, 0, 8, 1, 2, '6', 0, 3}));
}

TEST(DumpBuilder, Go17ParamsHaveGoarchString) {
  DumpBuilder b(FormatVersion::Go17, 8, false, false);
  b.params({.heap_start = 1, .heap_end = 2, .arch = "arm", .second_string = "go", .ncpu = 3});
  EXPECT_EQ(b.bytes(), Bytes({6, 0, 8, 1, 2, 3, 'a', 'r', 'm', 2, 'g', 'o', 3}));
}

TEST(DumpBuilder, Go13ObjectHasTypeAndKindButNoFieldList) {
  DumpBuilder b(FormatVersion::Go13, 8, false, false);
  Written w = b.object({.addr = 5, .contents = {9, 9}, .type_addr = 7, .kind = 1});
  EXPECT_EQ(b.bytes(), Bytes({1, 5, 7, 1, 2, 9, 9}));
  EXPECT_EQ(w.begin, 0u);
  EXPECT_EQ(w.contents, 5u);
  EXPECT_EQ(w.fieldlist, 0u);
  EXPECT_EQ(w.end, 7u);
}

TEST(DumpBuilder, LaterObjectHasContentsThenFieldList) {
  DumpBuilder b(FormatVersion::Go14, 8, false, false);
  Written w = b.object({.addr = 5,
                        .contents = {9, 9},
                        .fields = {{fieldKindCode(FormatVersion::Go14, FieldKind::Eface), 0}}});
  EXPECT_EQ(b.bytes(), Bytes({1, 5, 2, 9, 9, 3, 0, 0}));
  EXPECT_EQ(w.contents, 3u);
  EXPECT_EQ(w.fieldlist, 5u);
}

TEST(DumpBuilder, TypeRecordHasAFieldListOnlyInGo13) {
  DumpBuilder b13(FormatVersion::Go13, 8, false, false);
  b13.type({.addr = 1, .size = 2, .name = "T", .data_is_pointer = true, .fields = {{1, 0}}});
  EXPECT_EQ(b13.bytes(), Bytes({3, 1, 2, 1, 'T', 1, 1, 0, 0}));
  DumpBuilder b14(FormatVersion::Go14, 8, false, false);
  b14.type({.addr = 1, .size = 2, .name = "T", .data_is_pointer = true});
  EXPECT_EQ(b14.bytes(), Bytes({3, 1, 2, 1, 'T', 1}));
}

TEST(DumpBuilder, ItabIsABoolInGo13AndATypeAddressLater) {
  DumpBuilder b13(FormatVersion::Go13, 8, false, false);
  b13.itab({.addr = 4, .data_is_pointer = true});
  EXPECT_EQ(b13.bytes(), Bytes({8, 4, 1}));
  DumpBuilder b17(FormatVersion::Go17, 8, false, false);
  b17.itab({.addr = 4, .type_addr = 0x90});
  EXPECT_EQ(b17.bytes(), Bytes({8, 4, 0x90, 0x01}));
}

TEST(DumpBuilder, FieldKindNumbersDependOnTheVersion) {
  EXPECT_EQ(fieldKindCode(FormatVersion::Go13, FieldKind::Slice), 3u);
  EXPECT_EQ(fieldKindCode(FormatVersion::Go13, FieldKind::Eface), 5u);
  EXPECT_EQ(fieldKindCode(FormatVersion::Go14, FieldKind::Iface), 2u);
  EXPECT_EQ(fieldKindCode(FormatVersion::Go17, FieldKind::Eface), 3u);
}

TEST(DumpBuilder, FrameLayout) {
  DumpBuilder b(FormatVersion::Go17, 8, false, false);
  Written w = b.frame({.sp = 1,
                       .depth = 2,
                       .child_sp = 3,
                       .contents = {7},
                       .entry_pc = 4,
                       .pc = 5,
                       .continpc = 6,
                       .function = "f",
                       .fields = {{1, 0}}});
  EXPECT_EQ(b.bytes(), Bytes({5, 1, 2, 3, 1, 7, 4, 5, 6, 1, 'f', 1, 0, 0}));
  EXPECT_EQ(w.contents, 5u);
  EXPECT_EQ(w.fieldlist, 11u);
}

TEST(DumpBuilder, MemStatsIs281Uvarints) {
  DumpBuilder b(FormatVersion::Go17, 8, false, false);
  MemStatsValues v{};
  b.memStats(v);
  EXPECT_EQ(b.bytes().size(), 1u + 281u);
}

TEST(DumpBuilder, MemProfLayout) {
  DumpBuilder b(FormatVersion::Go17, 8, false, false);
  const size_t start = b.offset();
  b.memProf({.id = 1, .size = 2, .frames = {{"f", "g", 3}}, .allocs = 4, .frees = 5});
  EXPECT_EQ(tail(b, start), Bytes({16, 1, 2, 1, 1, 'f', 1, 'g', 3, 4, 5}));
}

TEST(DumpBuilder, SmallRecordLayouts) {
  DumpBuilder b(FormatVersion::Go17, 8, false, false);
  b.goroutine({.addr = 1,
               .sp = 2,
               .goid = 3,
               .gopc = 4,
               .status = 4,
               .is_system = true,
               .is_background = false,
               .wait_since = 5,
               .wait_reason = "w",
               .ctxt = 6,
               .m_addr = 7,
               .top_defer = 8,
               .top_panic = 9});
  EXPECT_EQ(tail(b, 0), Bytes({4, 1, 2, 3, 4, 4, 1, 0, 5, 1, 'w', 6, 7, 8, 9}));
  size_t at = b.offset();
  b.deferRecord({.addr = 1, .goroutine = 2, .sp = 3, .pc = 4, .fn_val = 5, .fn_pc = 6, .link = 7});
  EXPECT_EQ(tail(b, at), Bytes({14, 1, 2, 3, 4, 5, 6, 7}));
  at = b.offset();
  b.panicRecord(
      {.addr = 1, .goroutine = 2, .eface_type = 3, .eface_data = 4, .defer_addr = 0, .link = 5});
  EXPECT_EQ(tail(b, at), Bytes({15, 1, 2, 3, 4, 0, 5}));
  at = b.offset();
  b.queuedFinalizer({.obj = 1, .fn_val = 2, .fn_pc = 3, .arg_type = 4, .obj_type = 5});
  EXPECT_EQ(tail(b, at), Bytes({11, 1, 2, 3, 4, 5}));
  at = b.offset();
  b.osThread({.addr = 1, .id = 2, .procid = 3});
  EXPECT_EQ(tail(b, at), Bytes({9, 1, 2, 3}));
  at = b.offset();
  b.bss({.addr = 1, .contents = {0}, .fields = {}});
  EXPECT_EQ(tail(b, at), Bytes({13, 1, 1, 0, 0}));
  at = b.offset();
  b.otherRoot({.description = "r", .addr = 2});
  EXPECT_EQ(tail(b, at), Bytes({2, 1, 'r', 2}));
  at = b.offset();
  b.allocSample({.addr = 1, .bucket_id = 2});
  b.eof();
  EXPECT_EQ(tail(b, at), Bytes({17, 1, 2, 0}));
}

}  // namespace
}  // namespace goheap::testsupport
