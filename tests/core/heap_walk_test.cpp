// core::walkHeap over small cores written by CoreBuilder: a runtime.mheap_
// whose allspans points at hand-made spans (a small-object span with some
// slots below freeindex and some allocation bits set, a large object, a dead
// span, one whose struct is outside the core, one whose numbers do not fit),
// with a layout given here rather than read from DWARF. The expected objects
// follow from the bits written, by the runtime's rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/core_file.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "support/core_builder.h"

namespace goheap {
namespace {

using testsupport::CoreBuilder;

constexpr uint64_t kMeta = 0x10000;  // mheap_, allspans' array, spans, bits
constexpr uint64_t kMheap = kMeta, kArray = kMeta + 0x100, kSpans = kMeta + 0x200;
constexpr uint64_t kBits = kMeta + 0x800;
constexpr uint64_t kHeap = 0xc000000000;

core::RuntimeLayout testLayout() {
  core::RuntimeLayout l;
  l.mheap_addr = kMheap;
  l.mheap_allspans = 8;
  l.mspan_size = 64;
  l.span_start_addr = {0, 8};
  l.span_npages = {8, 8};
  l.span_freeindex = {16, 2};
  l.span_nelems = {18, 2};
  l.span_alloc_bits = {24, 8};
  l.span_elemsize = {32, 8};
  l.span_state = {40, 1};
  return l;
}

struct Span {
  uint64_t start, npages, freeindex, nelems, alloc_bits, elemsize;
  uint8_t state;
};

// A core holding mheap_ with allspans = `pointers` (len `len`, cap
// `cap`), the spans at kSpans, allocation bits `bits` at kBits and two heap
// pages at kHeap.
std::vector<uint8_t> buildCore(const std::vector<uint64_t>& pointers,
                               const std::vector<Span>& spans, const std::vector<uint8_t>& bits,
                               uint64_t len, uint64_t cap) {
  CoreBuilder b;
  std::vector<uint8_t> meta(0x1000);
  const auto put = [&](uint64_t addr, uint64_t v, uint32_t width) {
    std::vector<uint8_t> w;
    b.putWord(w, v, width);
    std::copy(w.begin(), w.end(), meta.begin() + static_cast<long>(addr - kMeta));
  };
  put(kMheap + 8, kArray, 8);
  put(kMheap + 16, len, 8);
  put(kMheap + 24, cap, 8);
  for (size_t k = 0; k < pointers.size(); ++k) put(kArray + 8 * k, pointers[k], 8);
  for (size_t k = 0; k < spans.size(); ++k) {
    const uint64_t s = kSpans + 64 * k;
    put(s, spans[k].start, 8);
    put(s + 8, spans[k].npages, 8);
    put(s + 16, spans[k].freeindex, 2);
    put(s + 18, spans[k].nelems, 2);
    put(s + 24, spans[k].alloc_bits, 8);
    put(s + 32, spans[k].elemsize, 8);
    put(s + 40, spans[k].state, 1);
  }
  std::copy(bits.begin(), bits.end(), meta.begin() + (kBits - kMeta));
  b.segment(kMeta, meta).segment(kHeap, std::vector<uint8_t>(2 * 8192));
  return b.build();
}

TEST(HeapWalk, FindsAllocatedSlotsAndCountsBadSpans) {
  std::vector<uint8_t> bits(16);
  bits[0] = 1 << 5;    // slot 5
  bits[15] = 1u << 7;  // slot 127
  const std::vector<Span> spans{
      {kHeap, 1, 3, 128, kBits, 64, 1},              // slots 0-2 below freeindex, 5, 127
      {kHeap + 8192, 1, 1, 1, kBits + 64, 8192, 1},  // a large object
      {kHeap, 1, 0, 128, kBits, 64, 0},              // dead: not walked
      {kHeap, 1, 0, 1000, kBits, 64, 1},             // 1000 slots of 64 bytes in one page
  };
  const std::vector<uint64_t> pointers{kSpans + 64 * 3, kSpans + 64, 0xdead0000, kSpans,
                                       kSpans + 128};
  const auto bytes = buildCore(pointers, spans, bits, pointers.size(), pointers.size());
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  const core::MemoryImage mem(*core);
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto heap = core::walkHeap(mem, testLayout(), told);
  ASSERT_TRUE(heap) << heap.error().message();
  const std::vector<uint64_t> want_addr{kHeap,          kHeap + 64,       kHeap + 128,
                                        kHeap + 5 * 64, kHeap + 127 * 64, kHeap + 8192};
  EXPECT_EQ(heap->addr, want_addr);
  EXPECT_EQ(heap->size, (std::vector<uint64_t>{64, 64, 64, 64, 64, 8192}));
  EXPECT_EQ(heap->bytes, 5 * 64 + 8192u);
  EXPECT_EQ(heap->spans, 5u);
  EXPECT_EQ(heap->spans_in_use, 3u);  // the inconsistent one counts as in use
  EXPECT_EQ(heap->unreadable_spans, 1u);
  EXPECT_EQ(heap->bad_spans, 1u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("span 0x102c0: inconsistent"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("span 0xdead0000: not in the core"), std::string::npos) << warnings[1];
}

TEST(HeapWalk, SpanMemoryOrBitsOutsideTheCoreAreCounted) {
  const std::vector<Span> spans{
      {0x7000000000, 1, 0, 128, kBits, 64, 1},  // its pages are not in the core
      {kHeap, 1, 0, 128, 0x9000000, 64, 1},     // nor its allocation bits
  };
  const std::vector<uint64_t> pointers{kSpans, kSpans + 64};
  const auto bytes = buildCore(pointers, spans, {}, 2, 2);
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto heap = core::walkHeap(core::MemoryImage(*core), testLayout(), told);
  ASSERT_TRUE(heap) << heap.error().message();
  EXPECT_EQ(heap->count(), 0u);
  EXPECT_EQ(heap->missing_memory, 1u);
  EXPECT_EQ(heap->unreadable_alloc_bits, 1u);
  EXPECT_EQ(warnings.size(), 2u);
}

TEST(HeapWalk, AnUnreadableAllspansIsAnError) {
  // A length beyond the capacity.
  auto bytes = buildCore({kSpans}, {}, {}, 5, 1);
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  auto heap = core::walkHeap(core::MemoryImage(*core), testLayout(), nullSink());
  ASSERT_FALSE(heap);
  EXPECT_NE(heap.error().message().find("has length 5 and capacity 1"), std::string::npos)
      << heap.error().message();
  // An array running out of the core: a length of 2^40 words.
  bytes = buildCore({kSpans}, {}, {}, uint64_t{1} << 40, uint64_t{1} << 40);
  core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  heap = core::walkHeap(core::MemoryImage(*core), testLayout(), nullSink());
  ASSERT_FALSE(heap);
  EXPECT_NE(heap.error().message().find("allspans's array"), std::string::npos)
      << heap.error().message();
}

TEST(HeapWalk, LargeObjectsAreThoseAboveTheLargestSizeClass) {
  // runtime._MaxSmallSize is 32768: an object of that size still has a size
  // class; one byte more takes a span of its own.
  core::HeapObjects heap;
  heap.size = {16, 8192, 32768, 32769, 40960, uint64_t{1} << 20};
  heap.addr = {kHeap,           kHeap + 0x10000, kHeap + 0x20000,
               kHeap + 0x30000, kHeap + 0x40000, kHeap + 0x50000};
  EXPECT_EQ(heap.largeObjects(), 3u);
  EXPECT_EQ(core::HeapObjects{}.largeObjects(), 0u);
}

}  // namespace
}  // namespace goheap
