// Bad input: every failure is an Error that says where (a byte offset), never a
// crash, a hang or a huge allocation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dump/reader.h"
#include "support/dump_builder.h"
#include "support/sample_dumps.h"

namespace goheap::dump {

using namespace model;
namespace {

using testsupport::DumpBuilder;
using testsupport::DumpShape;

// Reads an exact-size heap copy, so a read past the end is a real overflow
// that sanitizers see.
Expected<model::HeapModel> readCopy(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  auto r = readDump(MappedFile::borrow(std::span<const uint8_t>(copy.data(), copy.size())), {});
  if (r.ok()) {
    // The model views into `copy`, which is about to go: only report success.
    return Error("(read succeeded)");
  }
  return r.error();
}

// Reads and expects failure; returns the message.
std::string expectError(std::span<const uint8_t> bytes) {
  Expected<model::HeapModel> r = [&]() -> Expected<model::HeapModel> {
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    return readDump(MappedFile::borrow(std::span<const uint8_t>(copy.data(), copy.size())), {});
  }();
  if (r.ok()) {
    ADD_FAILURE() << "read succeeded on bad input";
    return {};
  }
  return r.error().message();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string joinWarnings(const model::HeapModel& d) {
  std::string all;
  for (const std::string& w : d.warnings) all += w + "\n";
  return all;
}

// --- truncation ------------------------------------------------------------

class ReaderTruncation : public ::testing::TestWithParam<DumpShape> {};

TEST_P(ReaderTruncation, EveryPrefixFailsWithAnOffset) {
  const DumpShape& s = GetParam();
  auto sample = testsupport::makeSampleDump(s.version, s.ptr_size, s.big_endian);
  const auto& bytes = sample.bytes;
  {
    auto whole = readDump(MappedFile::borrow(bytes), {});
    ASSERT_TRUE(whole.ok()) << "the untruncated dump must read: " << whole.error().message();
  }
  size_t failures = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = readCopy(std::span<const uint8_t>(bytes.data(), n));
    const std::string& m = r.error().message();
    if (m == "(read succeeded)" || !contains(m, "offset")) {
      if (++failures <= 5) {
        ADD_FAILURE() << "prefix of " << n << " of " << bytes.size() << " bytes: \"" << m << "\"";
      }
    }
  }
  EXPECT_EQ(failures, 0u) << "prefixes that read or gave no offset";
}

// Each version once with 8-byte little-endian and once with 4-byte big-endian.
INSTANTIATE_TEST_SUITE_P(Shapes, ReaderTruncation,
                         ::testing::Values(DumpShape{FormatVersion::Go13, 8, false},
                                           DumpShape{FormatVersion::Go13, 4, true},
                                           DumpShape{FormatVersion::Go14, 8, false},
                                           DumpShape{FormatVersion::Go14, 4, true},
                                           DumpShape{FormatVersion::Go15, 8, false},
                                           DumpShape{FormatVersion::Go15, 4, true},
                                           DumpShape{FormatVersion::Go17, 8, false},
                                           DumpShape{FormatVersion::Go17, 4, true}),
                         [](const auto& tp) { return testsupport::shapeName(tp.param); });

// --- header ------------------------------------------------------------------

TEST(ReaderCorrupt, EmptyFileIsAnError) {
  std::string m = expectError({});
  EXPECT_TRUE(contains(m, "offset")) << m;
}

TEST(ReaderCorrupt, UnknownHeaderLineIsAnError) {
  for (const std::string& header :
       std::vector<std::string>{"go1.8 heap dump\n", "go1.2 heap dump\n", "go1.7 heap dump\r\n",
                                "go1.7 heap dumpX", "GO1.7 HEAP DUMP\n", "hello, world\n",
                                std::string("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16)}) {
    SCOPED_TRACE(header);
    DumpBuilder b(FormatVersion::Go17, 8, false, /*write_header=*/false);
    b.raw(header);
    b.params();
    b.eof();
    std::string m = expectError(b.bytes());
    EXPECT_TRUE(contains(m, "offset")) << m;
  }
}

TEST(ReaderCorrupt, HeaderWithoutNewlineAtEndOfFileIsAnError) {
  std::string m = expectError(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("go1.7 heap dump"), 15));
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// --- record structure -----------------------------------------------------------

TEST(ReaderCorrupt, UnknownTagNamesTheTagAndItsOffset) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  const uint64_t at = b.offset();
  b.uvarint(99);
  b.uvarint(0);
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
  EXPECT_TRUE(contains(m, "99")) << m;
  EXPECT_TRUE(contains(m, std::to_string(at))) << m;
}

TEST(ReaderCorrupt, TagEighteenIsUnknown) {
  DumpBuilder b(FormatVersion::Go15, 8, false);
  b.params();
  b.uvarint(18);
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "18")) << m;
}

TEST(ReaderCorrupt, UvarintLongerThanTenBytesIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.uvarint(static_cast<uint64_t>(Tag::OsThread));
  // 11 continuation bytes, then a terminator: no 64-bit value is this long.
  const std::vector<uint8_t> longer(11, 0x80);
  b.raw(longer);
  b.raw(std::vector<uint8_t>{0x01});
  b.uvarint(1);
  b.uvarint(2);
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

TEST(ReaderCorrupt, TenByteUvarintOverflowingSixtyFourBitsIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.uvarint(static_cast<uint64_t>(Tag::OsThread));
  // nine full groups (63 bits) and a tenth byte of 2: bit 64 set.
  std::vector<uint8_t> v(9, 0xff);
  v.push_back(0x02);
  b.raw(v);
  b.uvarint(1);
  b.uvarint(2);
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

TEST(ReaderCorrupt, HugeStringLengthsAreErrorsNotAllocations) {
  for (uint64_t len : {uint64_t{1} << 40, uint64_t{1} << 63, ~uint64_t{0}}) {
    SCOPED_TRACE(len);
    DumpBuilder b(FormatVersion::Go17, 8, false);
    b.params();
    b.uvarint(static_cast<uint64_t>(Tag::OtherRoot));
    b.uvarint(len);  // description length
    b.raw("abc");
    b.eof();
    std::string m;
    EXPECT_NO_THROW(m = expectError(b.bytes()));
    EXPECT_TRUE(contains(m, "offset")) << m;
  }
}

TEST(ReaderCorrupt, HugeContentsLengthsAreErrorsNotAllocations) {
  for (FormatVersion v : {FormatVersion::Go13, FormatVersion::Go17}) {
    for (uint64_t len : {uint64_t{1} << 40, uint64_t{1} << 63}) {
      SCOPED_TRACE(std::string(testsupport::versionLabel(v)) + " " + std::to_string(len));
      DumpBuilder b(v, 8, false);
      b.params();
      b.uvarint(static_cast<uint64_t>(Tag::Object));
      b.uvarint(0xc000010000);
      if (v == FormatVersion::Go13) {
        b.uvarint(0);
        b.uvarint(127);
      }
      b.uvarint(len);
      b.raw(std::vector<uint8_t>(64, 0));
      b.eof();
      std::string m;
      EXPECT_NO_THROW(m = expectError(b.bytes()));
      EXPECT_TRUE(contains(m, "offset")) << m;
    }
  }
}

TEST(ReaderCorrupt, HugeProfileFrameCountIsAnErrorNotAnAllocation) {
  for (uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 62}) {
    SCOPED_TRACE(n);
    DumpBuilder b(FormatVersion::Go17, 8, false);
    b.params();
    b.uvarint(static_cast<uint64_t>(Tag::MemProf));
    b.uvarint(0x1000);
    b.uvarint(64);
    b.uvarint(n);  // frame count
    b.string("main.f").string("f.go").uvarint(1);
    b.uvarint(1).uvarint(0);
    b.eof();
    std::string m;
    EXPECT_NO_THROW(m = expectError(b.bytes()));
    EXPECT_TRUE(contains(m, "offset")) << m;
  }
}

// --- field lists -------------------------------------------------------------

TEST(ReaderCorrupt, FieldOffsetAtOrBeyondObjectEndIsAnError) {
  for (FormatVersion v : {FormatVersion::Go14, FormatVersion::Go15, FormatVersion::Go17}) {
    for (uint64_t off : {16u, 17u, 1000u, 9u /* word would cross the end */}) {
      SCOPED_TRACE(std::string(testsupport::versionLabel(v)) + " offset " + std::to_string(off));
      DumpBuilder b(v, 8, false);
      b.params();
      b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(16), .fields = {{1, off}}});
      b.eof();
      std::string m = expectError(b.bytes());
      EXPECT_TRUE(contains(m, "offset")) << m;
    }
  }
}

TEST(ReaderCorrupt, InterfaceFieldWhoseSecondWordCrossesObjectEndIsAnError) {
  DumpBuilder b(FormatVersion::Go14, 8, false);
  b.params();
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(16), .fields = {{2, 8}}});
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

TEST(ReaderCorrupt, FieldKindOutOfRangeIsAnError) {
  struct Case {
    FormatVersion v;
    uint64_t kind;
  };
  for (const Case& c : {Case{FormatVersion::Go14, 4}, Case{FormatVersion::Go17, 9}}) {
    SCOPED_TRACE(std::string(testsupport::versionLabel(c.v)));
    DumpBuilder b(c.v, 8, false);
    b.params();
    b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(32), .fields = {{c.kind, 0}}});
    b.eof();
    std::string m = expectError(b.bytes());
    EXPECT_TRUE(contains(m, "offset")) << m;
  }
}

// Policy (the reader's): a frame's or segment's field beyond its contents is
// skipped with a warning, not an error; the read goes on and the slot is
// never reported.
TEST(ReaderCorrupt, FrameFieldOffsetBeyondFrameIsSkippedWithAWarning) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.goroutine({.addr = 0xc000001000, .goid = 1});
  b.frame({.sp = 0xc000080000,
           .contents = std::vector<uint8_t>(16),
           .function = "main.f",
           .fields = {{1, 8}, {1, 16}}});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->frames.size(), 1u);
  std::vector<uint64_t> slots;
  r->forEachSlot(r->frames[0].layout, [&](uint64_t off) { slots.push_back(off); });
  EXPECT_EQ(slots, std::vector<uint64_t>{8});
  EXPECT_FALSE(r->warnings.empty());
}

TEST(ReaderCorrupt, DataFieldOffsetBeyondSegmentIsSkippedWithAWarning) {
  DumpBuilder b(FormatVersion::Go15, 4, true);
  b.params();
  b.data({.addr = 0x8160000, .contents = std::vector<uint8_t>(8), .fields = {{1, 8}, {1, 4}}});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  std::vector<uint64_t> slots;
  r->forEachSlot(r->data.layout, [&](uint64_t off) { slots.push_back(off); });
  EXPECT_EQ(slots, std::vector<uint64_t>{4});
  EXPECT_FALSE(r->warnings.empty());
}

// go1.3: a plain object smaller than its type cannot use the type's field
// list. Policy (the reader's): the object is scanned conservatively (every
// whole word), with a warning; no slot lies outside the object.
TEST(ReaderCorrupt, Go13TypeLargerThanPlainObjectFallsBackToEveryWord) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  b.type({.addr = 0x4a0000,
          .size = 64,
          .name = "main.Big",
          .data_is_pointer = true,
          .fields = {{1, 56}}});
  b.object({.addr = 0xc000010000,
            .contents = std::vector<uint8_t>(16),
            .type_addr = 0x4a0000,
            .kind = 0});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  std::vector<uint64_t> slots;
  r->forEachObjectSlot(0, [&](uint64_t off) { slots.push_back(off); });
  EXPECT_EQ(slots, (std::vector<uint64_t>{0, 8}));
  EXPECT_FALSE(r->warnings.empty());
}

// go1.3: an element type's field list must fit in one element.
TEST(ReaderCorrupt, Go13TypeFieldBeyondElementSizeIsAnError) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  b.type(
      {.addr = 0x4a0000, .size = 8, .name = "main.E", .data_is_pointer = true, .fields = {{1, 8}}});
  b.object({.addr = 0xc000010000,
            .contents = std::vector<uint8_t>(32),
            .type_addr = 0x4a0000,
            .kind = 1});
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// go1.3: a type's field list is applied to every element of an array, so a
// list repeating an offset would multiply the work; the runtime writes
// offsets in increasing order, and the reader insists on it.
TEST(ReaderCorrupt, Go13TypeFieldOffsetsThatDoNotIncreaseAreAnError) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  b.type({.addr = 0x4a0000,
          .size = 16,
          .name = "main.E",
          .data_is_pointer = true,
          .fields = {{1, 0}, {1, 8}, {1, 8}}});
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
  EXPECT_TRUE(contains(m, "increase")) << m;
}

TEST(ReaderCorrupt, Go13UnknownObjectKindIsAnError) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(16), .kind = 3});
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// --- params ---------------------------------------------------------------------

TEST(ReaderCorrupt, PointerSizeOtherThanFourOrEightIsAnError) {
  for (uint64_t ptr : {0u, 3u, 16u}) {
    for (FormatVersion v : {FormatVersion::Go13, FormatVersion::Go17}) {
      SCOPED_TRACE(std::string(testsupport::versionLabel(v)) + " ptr " + std::to_string(ptr));
      DumpBuilder b(v, 8, false);
      b.params({.ptr_size = ptr});
      b.eof();
      std::string m = expectError(b.bytes());
      EXPECT_TRUE(contains(m, "offset")) << m;
    }
  }
}

TEST(ReaderCorrupt, ObjectBeforeParamsIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(8), .fields = {{1, 0}}});
  b.params();
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

TEST(ReaderCorrupt, SecondParamsRecordIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.params({.ptr_size = 4});
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// --- the end --------------------------------------------------------------------

TEST(ReaderCorrupt, MissingEofIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(8), .fields = {{1, 0}}});
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// Decision: bytes after the EOF record are a warning, not an error. The runtime
// never writes any, but a dump written over an older, longer file without
// truncating it (os.OpenFile without O_TRUNC) ends that way and is otherwise
// fine. Everything before EOF is read.
TEST(ReaderCorrupt, TrailingBytesAfterEofGiveAWarning) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.osThread({.addr = 0x5a0000, .id = 1, .procid = 2});
  b.eof();
  b.raw("junk");
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->threads.size(), 1u);
  EXPECT_TRUE(contains(joinWarnings(*r), "EOF")) << joinWarnings(*r);
}

TEST(ReaderCorrupt, BoolOtherThanZeroOrOneIsAnError) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.uvarint(static_cast<uint64_t>(Tag::Type));
  b.uvarint(0x4a0000).uvarint(8).string("main.T").uvarint(2);
  b.eof();
  std::string m = expectError(b.bytes());
  EXPECT_TRUE(contains(m, "offset")) << m;
}

// Policy (the reader's): a frame that follows no goroutine is kept, belongs to
// none (goroutine == UINT32_MAX) and gives a warning.
TEST(ReaderCorrupt, FrameBeforeAnyGoroutineBelongsToNone) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params();
  b.frame({.sp = 0xc000080000, .contents = std::vector<uint8_t>(8), .function = "main.f"});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->frames.size(), 1u);
  EXPECT_EQ(r->frames[0].goroutine, UINT32_MAX);
  EXPECT_FALSE(r->warnings.empty());
}

}  // namespace
}  // namespace goheap::dump
