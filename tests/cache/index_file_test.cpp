// The index file: what is written reads back as the same columns, pointing
// into the mapping; and a file that is truncated, changed in any byte, of
// another key or another layout version is refused with an Error that
// says where, never read.
#include "cache/index_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>

#include "cache/checksum.h"
#include "support/goheap_process.h"
#include "support/index_samples.h"

namespace goheap {
namespace {

using cache::IndexFile;
using cache::SectionInfo;
using namespace cache::index_layout;
using testing::AlignedBytes;
using testing::SampleIndex;
using testing::testKey;

std::string writeSample(const SampleIndex& sample, const std::string& name,
                        const cache::Key& key = testKey(1)) {
  const std::string path = testing::scratch().file(name);
  const Status s = sample.writer().write(path, key);
  EXPECT_TRUE(s.ok()) << s.error().message();
  return path;
}

template <class T>
std::vector<T> asVector(std::span<const T> s) {
  return {s.begin(), s.end()};
}

bool sameTriples(std::span<const testing::Triple> a, const std::vector<testing::Triple>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

std::string openError(const AlignedBytes& bytes, const cache::Key& key = testKey(1)) {
  auto opened = IndexFile::fromBytes(bytes.bytes(), key);
  return opened ? std::string() : opened.error().message();
}

TEST(IndexFile, RoundTripPointsIntoTheMapping) {
  SampleIndex sample(7);
  const std::string path = writeSample(sample, "round-trip.ghx");
  auto opened = IndexFile::open(path, testKey(1));
  ASSERT_TRUE(opened) << opened.error().message();
  const IndexFile& index = **opened;

  EXPECT_EQ(index.fileSize(), sample.writer().fileSize());
  EXPECT_EQ(index.key(), testKey(1));
  auto words = index.array<uint64_t>(1);
  ASSERT_TRUE(words) << words.error().message();
  EXPECT_EQ(asVector(*words), sample.words);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(words->data()) % kSectionAlignment, 0u);
  auto ids = index.array<uint32_t>(2);
  ASSERT_TRUE(ids);
  EXPECT_EQ(asVector(*ids), sample.ids);
  auto triples = index.array<testing::Triple>(3);
  ASSERT_TRUE(triples);
  EXPECT_TRUE(sameTriples(*triples, sample.triples));
  auto empty = index.array<std::array<uint8_t, 16>>(4);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());

  EXPECT_TRUE(index.has(1));
  EXPECT_FALSE(index.has(5));
  auto description = index.description();
  ASSERT_TRUE(description) << description.error().message();
  EXPECT_EQ(*description, sample.description());

  // Sorted by id, the description (a reserved id) last.
  std::vector<uint32_t> order;
  for (const SectionInfo& s : index.sections()) order.push_back(s.id);
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 2, 3, 4, cache::kDescriptionSection}));
}

TEST(IndexFile, ArrayChecksTheElementSize) {
  SampleIndex sample(1);
  auto opened = IndexFile::open(writeSample(sample, "element-size.ghx"), testKey(1));
  ASSERT_TRUE(opened);
  auto wrong = (*opened)->array<uint32_t>(1);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("elements of 8 bytes, not 4"), std::string::npos)
      << wrong.error().message();
  auto absent = (*opened)->array<uint64_t>(42);
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().message().find("no section 42"), std::string::npos);
}

TEST(IndexFile, SpansOutliveEverythingButTheSharedPointer) {
  SampleIndex sample(3);
  std::shared_ptr<const IndexFile> kept;
  std::span<const uint64_t> words;
  {
    auto opened = IndexFile::open(writeSample(sample, "kept.ghx"), testKey(1));
    ASSERT_TRUE(opened);
    kept = opened.take();
    words = *kept->array<uint64_t>(1);
  }
  EXPECT_EQ(asVector(words), sample.words);
}

TEST(IndexFile, BigSectionsArePageAlignedAndVerifiedOnTwoThreads) {
  // 20 MiB: five checksum blocks, and enough to share between threads.
  SampleIndex sample(5, uint64_t{20} << 20);
  const std::string path = writeSample(sample, "big.ghx");
  for (unsigned threads : {1u, 2u}) {
    auto opened = IndexFile::open(path, testKey(1), threads);
    ASSERT_TRUE(opened) << opened.error().message();
    auto big = (*opened)->array<uint8_t>(9);
    ASSERT_TRUE(big);
    EXPECT_EQ(asVector(*big), sample.big);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big->data()) % kPageBytes, 0u);
  }
  AlignedBytes file = AlignedBytes::readFile(path);
  ASSERT_EQ(file.size(), sample.writer().fileSize());
  auto opened = IndexFile::fromBytes(file.bytes(), testKey(1));
  ASSERT_TRUE(opened);
  const SectionInfo& big = (*opened)->sections()[4];
  ASSERT_EQ(big.id, 9u);
  // A change in the last block, and one in the middle of the third.
  for (uint64_t at : {big.offset + big.length - 1, big.offset + (uint64_t{10} << 20)}) {
    file[at] ^= 0x10;
    for (unsigned threads : {1u, 2u}) {
      auto changed = IndexFile::fromBytes(file.bytes(), testKey(1), threads);
      ASSERT_FALSE(changed) << "a change at byte " << at << " went unnoticed";
      EXPECT_NE(changed.error().message().find("section id 9"), std::string::npos)
          << changed.error().message();
    }
    file[at] ^= 0x10;
  }
}

TEST(IndexFile, ChecksumsAreTheSameOnOneThreadOrTwo) {
  std::vector<uint8_t> a(uint64_t{13} << 20, 1), b(3, 2), c, d(uint64_t{9} << 20, 3);
  const std::span<const uint8_t> sections[] = {a, b, c, d};
  const std::vector<uint64_t> one = cache::sectionChecksums(sections, 1);
  EXPECT_EQ(cache::sectionChecksums(sections, 2), one);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(cache::sectionChecksum(sections[i]), one[i]);
  EXPECT_NE(one[0], one[3]);
}

TEST(IndexFile, TruncatedAnywhereInTheHeaderTableOrAtASectionBoundary) {
  SampleIndex sample(2);
  const AlignedBytes file = AlignedBytes::readFile(writeSample(sample, "truncate.ghx"));
  auto opened = IndexFile::fromBytes(file.bytes(), testKey(1));
  ASSERT_TRUE(opened);
  std::set<uint64_t> lengths;
  const uint64_t table_end = kHeaderBytes + (*opened)->sections().size() * kTableEntryBytes;
  for (uint64_t n = 0; n <= table_end; ++n) lengths.insert(n);
  for (const SectionInfo& s : (*opened)->sections()) {
    for (uint64_t n : {s.offset, s.offset + 1, s.offset + s.length / 2, s.offset + s.length - 1,
                       s.offset + s.length}) {
      lengths.insert(n);
    }
  }
  lengths.erase(file.size());
  for (uint64_t n : lengths) {
    const std::string error = openError(AlignedBytes(file.bytes().first(n)));
    ASSERT_FALSE(error.empty()) << "truncated to " << n << " bytes, it opened";
    EXPECT_NE(error.find("truncated"), std::string::npos) << n << ": " << error;
    EXPECT_NE(error.find("at byte offset"), std::string::npos) << error;
  }
}

TEST(IndexFile, TruncatedFileOnDiskNamesTheFile) {
  SampleIndex sample(2);
  const std::string path = writeSample(sample, "truncated-on-disk.ghx");
  ASSERT_EQ(::truncate(path.c_str(), 200), 0);
  auto opened = IndexFile::open(path, testKey(1));
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message().rfind(path + ": at byte offset 200 (header)", 0), 0u)
      << opened.error().message();
}

TEST(IndexFile, EveryFlippedByteIsFound) {
  SampleIndex sample(4);
  AlignedBytes file = AlignedBytes::readFile(writeSample(sample, "flip.ghx"));
  ASSERT_TRUE(openError(file).empty());
  for (size_t at = 0; at < file.size(); ++at) {
    for (uint8_t bit : {uint8_t{0x01}, uint8_t{0x80}}) {
      file[at] ^= bit;
      ASSERT_FALSE(openError(file).empty()) << "byte " << at << " changed, unnoticed";
      file[at] ^= bit;
    }
  }
  EXPECT_TRUE(openError(file).empty());
}

TEST(IndexFile, WrongKeyIsRefused) {
  SampleIndex sample(1);
  const std::string path = writeSample(sample, "key.ghx", testKey(1));
  auto opened = IndexFile::open(path, testKey(2));
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("at byte offset 24 (header): the entry's key is " +
                                          testKey(1).hex() + ", not " + testKey(2).hex()),
            std::string::npos)
      << opened.error().message();
}

TEST(IndexFile, OtherLayoutVersionIsRefused) {
  SampleIndex sample(1);
  AlignedBytes file = AlignedBytes::readFile(writeSample(sample, "version.ghx"));
  const uint32_t next = kLayoutVersion + 1;
  std::memcpy(file.data() + kVersionOffset, &next, sizeof next);
  resealHeader(file);
  EXPECT_NE(openError(file).find("at byte offset 8 (header): layout version 2; this goheap reads "
                                 "version 1"),
            std::string::npos)
      << openError(file);
}

TEST(IndexFile, OtherByteOrderIsRefused) {
  SampleIndex sample(1);
  AlignedBytes file = AlignedBytes::readFile(writeSample(sample, "bom.ghx"));
  const uint32_t swapped = __builtin_bswap32(kByteOrderMark);
  std::memcpy(file.data() + 12, &swapped, sizeof swapped);
  resealHeader(file);
  EXPECT_NE(openError(file).find("other byte order"), std::string::npos) << openError(file);
}

// A table changed on purpose and resealed, so that the structural checks
// behind the header checksum are what refuses it.
class BadTable : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = AlignedBytes::readFile(writeSample(sample_, "table.ghx"));
    ASSERT_TRUE(openError(file_).empty());
  }
  // Entry `i`'s field at `field` (0 id, 4 element size, 8 count, 16 offset,
  // 24 length) set to `value`.
  template <class T>
  std::string withField(size_t i, uint64_t field, T value) {
    AlignedBytes changed = file_;
    std::memcpy(changed.data() + kHeaderBytes + i * kTableEntryBytes + field, &value, sizeof value);
    resealHeader(changed);
    return openError(changed);
  }
  uint64_t offsetOf(size_t i) {
    uint64_t v;
    std::memcpy(&v, file_.data() + kHeaderBytes + i * kTableEntryBytes + 16, sizeof v);
    return v;
  }

  SampleIndex sample_{6};
  AlignedBytes file_;
};

TEST_F(BadTable, OverlappingSections) {
  const std::string e = withField<uint64_t>(1, 16, offsetOf(0));
  EXPECT_NE(e.find("overlaps section id"), std::string::npos) << e;
}

TEST_F(BadTable, UnalignedOffset) {
  const std::string e = withField<uint64_t>(1, 16, offsetOf(1) + 8);
  EXPECT_NE(e.find("is not aligned to 64"), std::string::npos) << e;
}

TEST_F(BadTable, CountTimesSizeIsNotTheLength) {
  const std::string e = withField<uint64_t>(0, 8, 301);
  EXPECT_NE(e.find("301 elements of 8 bytes do not make its length 2400"), std::string::npos) << e;
  // A count whose product overflows 64 bits.
  const std::string overflow = withField<uint64_t>(0, 8, uint64_t{1} << 62);
  EXPECT_NE(overflow.find("do not make its length"), std::string::npos) << overflow;
}

TEST_F(BadTable, ZeroElementSize) {
  const std::string e = withField<uint32_t>(0, 4, 0);
  EXPECT_NE(e.find("element size 0"), std::string::npos) << e;
}

TEST_F(BadTable, SectionPastTheEnd) {
  const std::string e = withField<uint64_t>(0, 16, uint64_t{1} << 40);
  EXPECT_NE(e.find("run past the end of the file"), std::string::npos) << e;
}

TEST_F(BadTable, SectionInsideTheTable) {
  const std::string e = withField<uint64_t>(0, 16, 64);
  EXPECT_NE(e.find("lies in the header or section table"), std::string::npos) << e;
}

TEST_F(BadTable, DuplicateAndUnsortedIds) {
  EXPECT_NE(withField<uint32_t>(1, 0, 1).find("in the table twice"), std::string::npos);
  EXPECT_NE(withField<uint32_t>(1, 0, 0).find("not sorted by id"), std::string::npos);
}

TEST_F(BadTable, HugeSectionCountIsCheckedBeforeAnythingIsAllocated) {
  AlignedBytes changed = file_;
  const uint32_t huge = 0xffffffff;
  std::memcpy(changed.data() + kSectionCountOffset, &huge, sizeof huge);
  resealHeader(changed);
  EXPECT_NE(openError(changed).find("after the end of the file"), std::string::npos)
      << openError(changed);
}

TEST_F(BadTable, BytesBetweenOrAfterSectionsMustBeZero) {
  AlignedBytes padded = file_;
  const uint64_t gap = offsetOf(0) - 1;  // between the table and the first section
  ASSERT_EQ(padded[gap], 0);
  padded[gap] = 1;
  EXPECT_NE(openError(padded).find("between sections is not zero"), std::string::npos);

  // One more byte at the end, with the header's size to match.
  std::vector<uint8_t> plus(file_.bytes().begin(), file_.bytes().end());
  plus.push_back(0);
  AlignedBytes longer(plus);
  const uint64_t size = plus.size();
  std::memcpy(longer.data() + kFileSizeOffset, &size, sizeof size);
  resealHeader(longer);
  EXPECT_NE(openError(longer).find("1 bytes after the last section"), std::string::npos)
      << openError(longer);
}

TEST(IndexFile, NotAnIndexAtAll) {
  EXPECT_NE(openError(AlignedBytes()).find("the file ends after 0 bytes"), std::string::npos);
  std::vector<uint8_t> junk(4096, 0x5a);
  EXPECT_NE(openError(AlignedBytes(junk)).find("no GOHEAPIX magic"), std::string::npos);
  const std::string path = testing::scratch().file("empty.ghx");
  std::ofstream(path).close();
  auto opened = IndexFile::open(path, testKey(1));
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("truncated"), std::string::npos);
}

TEST(IndexFile, MemoryMustBeAligned) {
  SampleIndex sample(1);
  const AlignedBytes file = AlignedBytes::readFile(writeSample(sample, "unaligned.ghx"));
  std::vector<uint8_t> shifted(file.size() + 1);
  std::memcpy(shifted.data() + 1, file.data(), file.size());
  auto opened = IndexFile::fromBytes(std::span(shifted).subspan(1), testKey(1));
  if (reinterpret_cast<uintptr_t>(shifted.data() + 1) % 64 != 0) {
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().message().find("aligned"), std::string::npos);
  }
}

TEST(IndexFile, PeekReadsTheDescriptionWithoutTheKey) {
  SampleIndex sample(8);
  const std::string path = writeSample(sample, "peek.ghx", testKey(9));
  auto peek = IndexFile::peek(path);
  ASSERT_TRUE(peek) << peek.error().message();
  EXPECT_EQ(peek->key, testKey(9));
  EXPECT_EQ(peek->file_size, sample.writer().fileSize());
  EXPECT_EQ(peek->sections, 5u);
  ASSERT_TRUE(peek->description) << peek->description.error().message();
  EXPECT_EQ(*peek->description, sample.description());
}

TEST(IndexWriter, MistakesAreReportedByWrite) {
  const std::vector<uint64_t> words(4, 1);
  const std::vector<uint8_t> odd(7, 1);
  auto mistake = [&](auto&& add) {
    cache::IndexWriter w;
    add(w);
    const Status s = w.write(testing::scratch().file("mistake.ghx"), testKey(1));
    return s.ok() ? std::string() : s.error().message();
  };
  EXPECT_NE(mistake([&](cache::IndexWriter& w) {
              w.addArray<uint64_t>(1, words);
              w.addArray<uint64_t>(1, words);
            }).find("index section 1 is added twice"),
            std::string::npos);
  EXPECT_NE(mistake([&](cache::IndexWriter& w) { w.add(2, 0, odd); }).find("0 bytes"),
            std::string::npos);
  EXPECT_NE(mistake([&](cache::IndexWriter& w) {
              w.add(2, 4, odd);
            }).find("7 bytes, not a whole number of 4-byte elements"),
            std::string::npos);
  EXPECT_NE(mistake([&](cache::IndexWriter& w) {
              w.addArray<uint64_t>(cache::kDescriptionSection, words);
            }).find("is reserved"),
            std::string::npos);
}

// A section added with addLast is made only once the others are written
// (the goroutine leak analysis, still running when the columns go out), and
// reads back like any other: checksummed, placed after them, aligned.
TEST(IndexWriter, ALastSectionIsMadeAfterTheOthersAreWritten) {
  const std::vector<uint64_t> big(300000, 7);  // over 1 MiB: page-aligned
  const std::vector<uint32_t> small{1, 2, 3};
  const std::string path = testing::scratch().file("last-section.ghx");
  cache::IndexWriter w;
  w.addArray<uint64_t>(1, big);
  bool made = false;
  w.addLast(9, 4, [&] {
    // The big section is in the file already.
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    EXPECT_GE(static_cast<uint64_t>(in.tellg()), big.size() * sizeof(uint64_t));
    made = true;
    std::vector<uint8_t> bytes(12);
    std::memcpy(bytes.data(), small.data(), bytes.size());
    return bytes;
  });
  w.addArray<uint32_t>(2, small);
  ASSERT_TRUE(w.write(path, testKey(4)).ok());
  EXPECT_TRUE(made);
  auto opened = IndexFile::open(path, testKey(4));
  ASSERT_TRUE(opened) << opened.error().message();
  auto last = (*opened)->array<uint32_t>(9);
  ASSERT_TRUE(last) << last.error().message();
  EXPECT_EQ(asVector(*last), small);
  EXPECT_EQ(asVector(*(*opened)->array<uint64_t>(1)), big);
  auto offsetOf = [&](uint32_t id) {
    for (const SectionInfo& info : (*opened)->sections()) {
      if (info.id == id) return info.offset;
    }
    ADD_FAILURE() << "no section " << id;
    return uint64_t{0};
  };
  EXPECT_EQ(offsetOf(9) % kSectionAlignment, 0u);
  EXPECT_GT(offsetOf(9), offsetOf(2));

  // A last section whose bytes are not whole elements is the caller's
  // mistake, said by write(); and its id is taken like any other's.
  cache::IndexWriter odd;
  odd.addLast(3, 4, [] { return std::vector<uint8_t>(7, 1); });
  const Status s = odd.write(testing::scratch().file("last-odd.ghx"), testKey(4));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("7 bytes, not a whole number of 4-byte elements"),
            std::string::npos);
  cache::IndexWriter twice;
  twice.addArray<uint32_t>(5, small);
  twice.addLast(5, 4, [] { return std::vector<uint8_t>(4, 0); });
  const Status t = twice.write(testing::scratch().file("last-twice.ghx"), testKey(4));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("is added twice"), std::string::npos);
}

TEST(IndexWriter, AnEmptyIndexIsJustTheHeader) {
  cache::IndexWriter w;
  EXPECT_EQ(w.fileSize(), kHeaderBytes);
  const std::string path = testing::scratch().file("empty-index.ghx");
  ASSERT_TRUE(w.write(path, testKey(3)).ok());
  auto opened = IndexFile::open(path, testKey(3));
  ASSERT_TRUE(opened) << opened.error().message();
  EXPECT_TRUE((*opened)->sections().empty());
  EXPECT_FALSE((*opened)->description());
}

}  // namespace
}  // namespace goheap
