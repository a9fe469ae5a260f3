// The second reader thread never changes the result: with threads = 2 every
// column, count and warning, and every error, is what threads = 1 gives,
// wherever the second thread starts looking for a record boundary, on real
// dumps, on a dump whose object contents hold a false boundary, and on every
// header version.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dump/reader.h"
#include "support/dump_builder.h"
#include "support/go_versions.h"
#include "support/sample_dumps.h"

namespace goheap::dump {

using namespace model;
namespace {

using testsupport::DumpBuilder;
using testsupport::DumpShape;

Expected<model::HeapModel> readWith(const std::vector<uint8_t>& bytes, unsigned threads,
                                    uint64_t split_search_from = 0, ReadStats* stats = nullptr) {
  ReadOptions options;
  options.threads = threads;
  options.split_search_from = split_search_from;
  options.stats = stats;
  return readDump(MappedFile::borrow(std::span<const uint8_t>(bytes.data(), bytes.size())),
                  options);
}

std::vector<uint8_t> fileBytes(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) {
    ADD_FAILURE() << file.error().message();
    return {};
  }
  std::span<const uint8_t> b = file->bytes();
  return {b.begin(), b.end()};
}

// Everything the reader decodes that a thread could change.
void expectSameDump(const model::HeapModel& a, const model::HeapModel& b) {
  const Objects& x = a.objects;
  const Objects& y = b.objects;
  ASSERT_EQ(x.count(), y.count());
  EXPECT_TRUE(x.addr == y.addr);
  EXPECT_TRUE(x.offset == y.offset);
  EXPECT_TRUE(x.region == y.region);
  EXPECT_TRUE(x.layout == y.layout);
  EXPECT_TRUE(a.layouts.begin == b.layouts.begin);
  EXPECT_TRUE(a.layouts.offsets == b.layouts.offsets);
  EXPECT_TRUE(a.layouts.stride == b.layouts.stride);
  EXPECT_TRUE(a.layouts.repeats == b.layouts.repeats);
  EXPECT_TRUE(x.size == y.size);
  ASSERT_TRUE(a.heap_dump && b.heap_dump);
  EXPECT_TRUE(a.heap_dump->object_type_addr == b.heap_dump->object_type_addr);
  EXPECT_TRUE(a.heap_dump->object_type_index == b.heap_dump->object_type_index);
  EXPECT_TRUE(a.heap_dump->object_kind == b.heap_dump->object_kind);
  EXPECT_EQ(a.total_field_entries, b.total_field_entries);
  EXPECT_EQ(a.heap_dump->record_counts, b.heap_dump->record_counts);
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.types.size(), b.types.size());
  EXPECT_EQ(a.itabs.size(), b.itabs.size());
  EXPECT_EQ(a.goroutines.size(), b.goroutines.size());
  EXPECT_EQ(a.frames.size(), b.frames.size());
  EXPECT_EQ(a.other_roots.size(), b.other_roots.size());
  EXPECT_EQ(a.finalizers.size(), b.finalizers.size());
}

// Reads `bytes` with one thread, then with two splitting at each offset in
// `splits`; returns how many of those splits used the second thread's work.
uint64_t expectSameForSplits(const std::vector<uint8_t>& bytes,
                             const std::vector<uint64_t>& splits) {
  auto one = readWith(bytes, 1);
  uint64_t used = 0;
  for (uint64_t from : splits) {
    SCOPED_TRACE("second thread searching from " + std::to_string(from));
    ReadStats stats;
    auto two = readWith(bytes, 2, from, &stats);
    EXPECT_EQ(one.ok(), two.ok()) << (one.ok() ? two.error().message() : one.error().message());
    if (one.ok() != two.ok()) continue;
    if (!one.ok()) {
      EXPECT_EQ(one.error().message(), two.error().message());
      continue;
    }
    expectSameDump(*one, *two);
    if (stats.second_objects > 0) used++;
  }
  return used;
}

std::vector<uint64_t> evenlySpaced(uint64_t size, uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t i = 1; i <= n; i++) out.push_back(size * i / (n + 1));
  return out;
}

class ReaderThreadsRealDump : public ::testing::TestWithParam<std::string> {};

TEST_P(ReaderThreadsRealDump, TwoThreadsReadWhatOneReads) {
  const std::vector<uint8_t> bytes = fileBytes(std::string(GOHEAP_SOURCE_DIR) + "/" + GetParam());
  ASSERT_FALSE(bytes.empty());
  const std::vector<uint64_t> splits = evenlySpaced(bytes.size(), 25);
  const uint64_t used = expectSameForSplits(bytes, splits);
  // Where the second thread starts among the objects, short of the last
  // few, its records are taken.
  auto one = readWith(bytes, 1);
  ASSERT_TRUE(one.ok());
  const Objects& o = one->objects;
  ASSERT_GT(o.count(), 10u);
  uint64_t among_objects = 0;
  for (uint64_t at : splits) {
    if (at > o.offset[0] && at < o.offset[o.count() - 10]) among_objects++;
  }
  EXPECT_GE(among_objects, 5u);
  EXPECT_EQ(used, among_objects);
  // The reader's own choice of pieces, if the file is large enough for it.
  auto two = readWith(bytes, 2);
  ASSERT_TRUE(two.ok());
  expectSameDump(*one, *two);
}

std::vector<std::string> realDumps() {
  std::vector<std::string> out;
  for (const std::string& f : goheap::testing::fixtureNames()) {
    out.push_back("tests/fixtures/" + f + "/retention.dump");
  }
  out.push_back("examples/leaky.dump");
  return out;
}

INSTANTIATE_TEST_SUITE_P(Dumps, ReaderThreadsRealDump, ::testing::ValuesIn(realDumps()));

// Since Go 1.26 the 64-bit heap starts at a random address (not 0xc000...):
// the second thread still finds object records by the params' heap range,
// and takes them.
TEST(ReaderThreads, RandomizedHeapBaseOfGo127) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27/leaks.dump";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << path << " is missing (make-dumps.sh writes it when Go 1.27 is installed)";
  }
  const std::vector<uint8_t> bytes = fileBytes(path);
  auto one = readWith(bytes, 1);
  ASSERT_TRUE(one.ok()) << one.error().message();
  EXPECT_NE(one->params.heap_start >> 32, 0xc0u) << "not a randomized heap base";
  EXPECT_GE(expectSameForSplits(bytes, evenlySpaced(bytes.size(), 8)), 6u);
}

TEST(ReaderThreads, CorruptionInTheSecondHalfIsReportedAsWithOneThread) {
  const std::vector<uint8_t> clean =
      fileBytes(std::string(GOHEAP_SOURCE_DIR) + "/tests/fixtures/go1.24-amd64/retention.dump");
  ASSERT_FALSE(clean.empty());
  const uint64_t split = clean.size() / 2;
  int failures = 0;
  for (uint64_t at : evenlySpaced(clean.size(), 40)) {
    if (at <= split) continue;
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0x7f}, uint8_t{0xff}}) {
      std::vector<uint8_t> bytes = clean;
      bytes[at] = value;
      SCOPED_TRACE("byte " + std::to_string(at) + " set to " + std::to_string(value));
      auto one = readWith(bytes, 1);
      if (!one.ok()) failures++;
      expectSameForSplits(bytes, {split, at - 1, at});
    }
    std::vector<uint8_t> cut(clean.begin(), clean.begin() + static_cast<ptrdiff_t>(at));
    expectSameForSplits(cut, {split, at - 100});
  }
  EXPECT_GT(failures, 0);  // some of the changes broke the file
}

// go1.7 objects, the middle one holding bytes that decode as a run of
// plausible object records: a boundary the second thread finds where the
// first never lands.
struct PlantedDump {
  std::vector<uint8_t> bytes;
  uint64_t fake_start = 0;  // where the look-alike records begin
};

PlantedDump plantedDump() {
  DumpBuilder b(FormatVersion::Go17);
  b.params({});
  uint64_t addr = 0xc000001000;
  auto object = [&](std::vector<uint8_t> contents) {
    testsupport::ObjectSpec o;
    o.addr = addr;
    addr += 0x100;
    o.fields = {{1, 0}};
    o.contents = std::move(contents);
    if (o.contents.size() < 8) o.contents.resize(8);
    return b.object(o);
  };
  for (int i = 0; i < 300; i++) object({});
  // The look-alike records: what the builder writes for real objects.
  DumpBuilder fake(FormatVersion::Go17, 8, false, /*write_header=*/false);
  for (int i = 0; i < 10; i++) {
    testsupport::ObjectSpec o;
    o.addr = 0xc000200000 + 0x10 * static_cast<uint64_t>(i);
    o.contents.assign(16, 0xab);
    o.fields = {{1, 8}};
    fake.object(o);
  }
  std::vector<uint8_t> contents = fake.take();
  contents.resize((contents.size() + 7) / 8 * 8 + 8, 0x55);
  const uint64_t before = b.offset();
  object(contents);
  PlantedDump out;
  // Tag, address (6 bytes as a uvarint) and length (2) come before the contents.
  out.fake_start = before + 1 + testsupport::encodeUvarint(0xc000001000 + 300 * 0x100).size() +
                   testsupport::encodeUvarint(contents.size()).size();
  for (int i = 0; i < 300; i++) object({});
  b.eof();
  out.bytes = b.take();
  return out;
}

TEST(ReaderThreads, AFalseBoundaryInsideContentsIsDropped) {
  PlantedDump d = plantedDump();
  ASSERT_EQ(d.bytes[d.fake_start], 1);  // the first look-alike's tag
  ReadStats stats;
  auto one = readWith(d.bytes, 1);
  auto two = readWith(d.bytes, 2, d.fake_start, &stats);
  ASSERT_TRUE(one.ok()) << one.error().message();
  ASSERT_TRUE(two.ok()) << two.error().message();
  EXPECT_EQ(one->objects.count(), 601u);
  expectSameDump(*one, *two);
  EXPECT_TRUE(stats.split);
  EXPECT_EQ(stats.pieces_dropped, 1u);
  EXPECT_EQ(stats.second_objects, 0u);
  // Every other starting point agrees too.
  std::vector<uint64_t> all;
  for (uint64_t at = 1; at < d.bytes.size(); at += 7) all.push_back(at);
  EXPECT_GT(expectSameForSplits(d.bytes, all), 0u);
}

class ReaderThreadsShapes : public ::testing::TestWithParam<DumpShape> {};

// Every starting point of the sample dumps of every version: go1.3 dumps
// are never split (their objects have another layout), the others may be.
TEST_P(ReaderThreadsShapes, EveryStartingPointReadsTheSame) {
  const DumpShape& s = GetParam();
  auto sample = testsupport::makeSampleDump(s.version, s.ptr_size, s.big_endian);
  std::vector<uint64_t> all;
  for (uint64_t at = 1; at < sample.bytes.size(); at++) all.push_back(at);
  expectSameForSplits(sample.bytes, all);
  if (s.version == FormatVersion::Go13) {
    for (uint64_t at : {sample.bytes.size() / 3, sample.bytes.size() / 2}) {
      ReadStats stats;
      ASSERT_TRUE(readWith(sample.bytes, 2, at, &stats).ok());
      EXPECT_FALSE(stats.split);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ReaderThreadsShapes,
                         ::testing::ValuesIn(testsupport::allDumpShapes()),
                         [](const auto& tp) { return testsupport::shapeName(tp.param); });

}  // namespace
}  // namespace goheap::dump
