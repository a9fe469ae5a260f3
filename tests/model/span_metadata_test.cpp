// The records runtime/heapdump.go writes over the reserved tail of a small
// span (heap bits since Go 1.22, Green Tea's inline mark bits since Go 1.26)
// are found from the dump alone: hand-built spans of each layout, one page
// each, checked slot by slot against the runtime's own arithmetic (mheap.go's
// nelems, mbitmap.go's spanHeapBitsRange). Real dumps are checked in
// tests/integration/heap_alloc_test.cpp.
#include "model/span_metadata.h"

#include <gtest/gtest.h>

#include "analysis/snapshot.h"
#include "dump/reader.h"
#include "model/object_order.h"
#include "support/dump_builder.h"

namespace goheap::model {
namespace {

using testsupport::DumpBuilder;

constexpr uint64_t kPage = 0x1e338a700000;  // a randomized heap base (Go 1.26+)
constexpr uint64_t kPage32 = 0x10700000;

struct SpanSpec {
  uint64_t page = kPage;
  uint64_t size = 16;
  std::vector<uint64_t> slots;  // which slots the dump holds
  bool pointers = false;        // objects hold a pointer in their first word
};

class SpanDump {
 public:
  explicit SpanDump(std::string version, uint32_t ptr_size = 8)
      : b_(FormatVersion::Go17, ptr_size) {
    const uint64_t page = ptr_size == 8 ? kPage : kPage32;
    testsupport::ParamsSpec p;
    p.heap_start = page - 0x100000;
    p.heap_end = page + 0x400000;
    p.arch = ptr_size == 8 ? "amd64" : "arm";
    p.second_string = std::move(version);
    b_.params(p);
  }
  // Every slot's record, in the order the runtime writes them.
  SpanDump& span(const SpanSpec& s) {
    for (uint64_t slot : s.slots) {
      testsupport::ObjectSpec o{.addr = s.page + slot * s.size,
                                .contents = std::vector<uint8_t>(s.size, 0)};
      if (s.pointers) o.fields = {{1, 0}};
      b_.object(o);
    }
    return *this;
  }
  HeapModel read() {
    b_.eof();
    bytes_ = b_.take();
    Expected<HeapModel> d = dump::readDump(MappedFile::borrow(std::span<const uint8_t>(bytes_)));
    EXPECT_TRUE(d.ok()) << d.error().message();
    HeapModel out = d.take();
    sortObjectsByAddress(out);
    markSpanMetadata(out);
    return out;
  }

 private:
  DumpBuilder b_;
  std::vector<uint8_t> bytes_;
};

std::vector<uint64_t> range(uint64_t from, uint64_t to) {
  std::vector<uint64_t> v;
  for (uint64_t i = from; i < to; i++) v.push_back(i);
  return v;
}

std::vector<uint64_t> concat(std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The metadata bits of the record at slot `slot` of a page of `size` slots.
uint8_t bitsAt(const HeapModel& d, uint64_t page, uint64_t size, uint64_t slot) {
  for (size_t i = 0; i < d.objects.count(); i++) {
    if (d.objects.addr[i] == page + slot * size) {
      return d.objects.span_metadata.empty() ? 0 : d.objects.span_metadata[i];
    }
  }
  ADD_FAILURE() << "no record at slot " << slot;
  return 0;
}

TEST(SpanMetadata, HeapBitsEndASpanWithPointersSinceGo122) {
  // 8192 - 128 bytes of heap bits leave 504 slots of 16 bytes; 512 fit.
  HeapModel d = SpanDump("go1.24.4")
                    .span({.slots = concat({0, 1, 503}, range(504, 512)), .pointers = true})
                    .read();
  EXPECT_EQ(bitsAt(d, kPage, 16, 0), 0);
  EXPECT_EQ(bitsAt(d, kPage, 16, 503), 0);
  for (uint64_t slot = 504; slot < 512; slot++) {
    EXPECT_EQ(bitsAt(d, kPage, 16, slot), kSpanHeapBits) << slot;
  }
}

TEST(SpanMetadata, ASpanWithoutPointersHasNoTailBeforeGreenTea) {
  HeapModel d = SpanDump("go1.25.12").span({.slots = range(500, 512)}).read();
  for (uint64_t slot = 500; slot < 512; slot++) EXPECT_EQ(bitsAt(d, kPage, 16, slot), 0) << slot;
}

TEST(SpanMetadata, GreenTeaKeepsMarkBitsInEverySmallSpan) {
  // 128 bytes of spanInlineMarkBits, pointers or not.
  HeapModel d = SpanDump("go1.26.11").span({.slots = concat({0}, range(503, 512))}).read();
  EXPECT_EQ(bitsAt(d, kPage, 16, 503), 0);
  for (uint64_t slot = 504; slot < 512; slot++) {
    EXPECT_EQ(bitsAt(d, kPage, 16, slot), kSpanInlineMarkBits) << slot;
  }
}

TEST(SpanMetadata, GreenTeaHeapBitsComeBeforeTheMarkBits) {
  // 48-byte objects with pointers: 256 reserved bytes leave 165 slots;
  // heap bits are [7936, 8064), mark bits [8064, 8192).
  HeapModel d =
      SpanDump("go1.27.4")
          .span({.size = 48, .slots = concat({0, 164}, range(165, 170)), .pointers = true})
          .read();
  EXPECT_EQ(bitsAt(d, kPage, 48, 164), 0);
  EXPECT_EQ(bitsAt(d, kPage, 48, 165), kSpanHeapBits);  // [7920, 7968): padding, heap bits
  EXPECT_EQ(bitsAt(d, kPage, 48, 167), kSpanHeapBits);  // [8016, 8064)
  EXPECT_EQ(bitsAt(d, kPage, 48, 168), kSpanInlineMarkBits);
  EXPECT_EQ(bitsAt(d, kPage, 48, 169), kSpanInlineMarkBits);
  // A slot across both: 80-byte objects, 93 slots; slot 100 is [8000, 8080).
  HeapModel d80 = SpanDump("go1.27.4")
                      .span({.size = 80, .slots = concat({0}, range(99, 102)), .pointers = true})
                      .read();
  EXPECT_EQ(bitsAt(d80, kPage, 80, 100), kSpanHeapBits | kSpanInlineMarkBits);
  EXPECT_EQ(spanMetadataName(kSpanHeapBits | kSpanInlineMarkBits),
            "runtime metadata (span heap bits and inline mark bits)");
}

TEST(SpanMetadata, NoGreenTeaExperimentMeansHeapBitsOnly) {
  HeapModel d = SpanDump("go1.27.4-X:nogreenteagc").span({.slots = range(500, 512)}).read();
  for (uint64_t slot = 500; slot < 512; slot++) EXPECT_EQ(bitsAt(d, kPage, 16, slot), 0) << slot;
  HeapModel opt_in = SpanDump("go1.25.12 X:greenteagc").span({.slots = range(503, 512)}).read();
  EXPECT_EQ(bitsAt(opt_in, kPage, 16, 504), kSpanInlineMarkBits);
}

TEST(SpanMetadata, AnEmptySpanWithPointersShowsItsTailAlone) {
  // No object left, so no pointer slot says the span has heap bits; its
  // records are exactly the slots past nelems.
  HeapModel d = SpanDump("go1.24.4").span({.slots = range(504, 512)}).read();
  for (uint64_t slot = 504; slot < 512; slot++) {
    EXPECT_EQ(bitsAt(d, kPage, 16, slot), kSpanHeapBits) << slot;
  }
}

TEST(SpanMetadata, ThirtyTwoBitSpansReserveMoreHeapBits) {
  // 4-byte words: 256 bytes of heap bits, and Green Tea's 128: 488 slots.
  HeapModel d =
      SpanDump("go1.27.4", 4)
          .span({.page = kPage32, .slots = concat({487}, range(488, 512)), .pointers = true})
          .read();
  EXPECT_EQ(bitsAt(d, kPage32, 16, 487), 0);
  EXPECT_EQ(bitsAt(d, kPage32, 16, 488), kSpanHeapBits);
  EXPECT_EQ(bitsAt(d, kPage32, 16, 511), kSpanInlineMarkBits);
  // Objects over 128 bytes have malloc headers on 32-bit: no tail.
  HeapModel big =
      SpanDump("go1.27.4", 4).span({.page = kPage32, .size = 144, .slots = range(54, 56)}).read();
  EXPECT_EQ(bitsAt(big, kPage32, 144, 55), 0);
}

TEST(SpanMetadata, OlderReleasesAndOtherPagesAreLeftAlone) {
  HeapModel old = SpanDump("go1.21.5").span({.slots = range(500, 512), .pointers = true}).read();
  EXPECT_TRUE(old.objects.span_metadata.empty());
  // Over 512 bytes (malloc headers), or a page that is not one span's.
  HeapModel big = SpanDump("go1.27.4").span({.size = 576, .slots = range(12, 14)}).read();
  EXPECT_EQ(bitsAt(big, kPage, 576, 13), 0);
  HeapModel mixed = SpanDump("go1.27.4")
                        .span({.size = 32, .slots = {0}})
                        .span({.size = 16, .slots = range(504, 512)})
                        .read();
  EXPECT_EQ(bitsAt(mixed, kPage, 16, 511), 0);
}

// Metadata records are neither reachable nor garbage, have no edges either
// way, and are named as what they are.
TEST(SpanMetadata, TheSnapshotCountsThemApart) {
  DumpBuilder b(FormatVersion::Go17, 8);
  testsupport::ParamsSpec p;
  p.heap_start = kPage - 0x100000;
  p.heap_end = kPage + 0x400000;
  p.second_string = "go1.26.11";
  b.params(p);
  const uint64_t data_addr = 0x5b0000;
  // A global holds slot 0 and points into the tail (a stale word).
  b.data({.addr = data_addr,
          .contents = b.words({kPage, kPage + 504 * 16}),
          .fields = {{1, 0}, {1, 8}}});
  b.object({.addr = kPage, .contents = b.words({0, 0}), .fields = {{1, 0}}});
  b.object({.addr = kPage + 16, .contents = b.words({0, 0}), .fields = {{1, 0}}});  // garbage
  for (uint64_t slot = 504; slot < 512; slot++) {
    // The tail's bytes look like a pointer to slot 0: no edge may come of it.
    b.object({.addr = kPage + slot * 16, .contents = b.words({kPage, 0}), .fields = {{1, 0}}});
  }
  b.eof();
  const std::vector<uint8_t> bytes = b.take();
  Expected<HeapModel> d = dump::readDump(MappedFile::borrow(std::span<const uint8_t>(bytes)));
  ASSERT_TRUE(d.ok()) << d.error().message();
  auto s = analysis::buildSnapshot(d.take());
  ASSERT_TRUE(s.ok()) << s.error().message();
  const analysis::Snapshot& snap = **s;
  EXPECT_EQ(snap.reachable_objects, 1u);
  EXPECT_EQ(snap.garbage_objects, 1u);
  EXPECT_EQ(snap.metadata_objects, 8u);
  EXPECT_EQ(snap.metadata_bytes, 128u);
  const NodeId tail = snap.heap.addresses().find(kPage + 504 * 16);
  ASSERT_NE(tail, kNoNode);
  EXPECT_TRUE(snap.isRuntimeMetadata(tail));
  EXPECT_FALSE(snap.isGarbage(tail));
  EXPECT_EQ(snap.heap.successors.neighbors(tail).size(), 0u);
  EXPECT_EQ(snap.heap.predecessors().neighbors(tail).size(), 0u);
  typing::NameSource source{};
  EXPECT_EQ(snap.namer().name(tail, &source), "runtime metadata (span inline mark bits)");
  EXPECT_EQ(source, typing::NameSource::Runtime);
}

}  // namespace
}  // namespace goheap::model
