// core::readPointerMasks over a small core written by CoreBuilder, with the
// Go 1.22+ layout given here: one heap arena whose spans array names a span
// of 16-byte objects (pointer bits at the span's end) and a span of 1024-byte
// objects with malloc headers (a type tiled over the object, a GC program,
// a mask built on demand but not yet, no type). The expected offsets follow
// from the bits and masks written, by the runtime's rules (mbitmap.go).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/core_file.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/pointer_masks.h"
#include "core/runtime_layout.h"
#include "support/core_builder.h"

namespace goheap {
namespace {

using testsupport::CoreBuilder;

constexpr uint64_t kMeta = 0x10000;  // mheap_, the arena index, heapArena, spans, types
constexpr uint64_t kL2 = kMeta + 0x100, kArena = kMeta + 0x600, kSpans = kMeta + 0x700;
constexpr uint64_t kTypes = kMeta + 0x800, kMasks = kMeta + 0x900;
constexpr uint64_t kPage = 8192, kArenaBytes = 2 * kPage;
constexpr uint64_t kHeap = 0x100000;  // arena index 64

core::RuntimeLayout testLayout() {
  core::RuntimeLayout l;
  l.mheap_addr = kMeta;
  l.mspan_size = 64;
  l.span_start_addr = {0, 8};
  l.span_npages = {8, 8};
  l.span_elemsize = {32, 8};
  return l;
}

core::HeapBitsLayout testBits() {
  core::HeapBitsLayout b;
  b.mheap_arenas = 0x40;
  b.arena_l1 = 1;
  b.arena_l2 = 128;
  b.arena_bytes = kArenaBytes;
  b.arena_spans = 0;
  b.span_spanclass = {48, 1};
  b.span_large_type = {56, 8};
  b.type_size = {0, 8};
  b.type_ptr_bytes = {8, 8};
  b.type_tflag = {16, 1};
  b.type_kind = {17, 1};
  b.type_gcdata = {24, 8};
  b.type_struct_size = 32;
  return b;
}

std::vector<uint64_t> offsetsOf(const core::PointerMasks& m, size_t i) {
  std::vector<uint64_t> out;
  m.layouts.forEachOffset(m.layout[i], [&](uint64_t off) { out.push_back(off); });
  return out;
}

TEST(PointerMasks, HeapBitsAndTypesAsTheRuntimeReadsThem) {
  CoreBuilder b;
  std::vector<uint8_t> meta(0x1000), heap(2 * kPage);
  const auto put = [&](std::vector<uint8_t>& into, uint64_t at, uint64_t v, uint32_t width) {
    std::vector<uint8_t> w;
    b.putWord(w, v, width);
    std::copy(w.begin(), w.end(), into.begin() + static_cast<long>(at));
  };
  put(meta, 0x40, kL2, 8);                        // arenas[0]
  put(meta, kL2 - kMeta + 64 * 8, kArena, 8);     // [0][64]
  put(meta, kArena - kMeta, kSpans, 8);           // page 0: span A
  put(meta, kArena - kMeta + 8, kSpans + 64, 8);  // page 1: span B
  const uint64_t spans[2][4] = {{kHeap, 1, 16, 2 << 1}, {kHeap + kPage, 1, 1024, 10 << 1}};
  for (int k = 0; k < 2; ++k) {
    const uint64_t s = kSpans - kMeta + 64 * k;
    put(meta, s, spans[k][0], 8);
    put(meta, s + 8, spans[k][1], 8);
    put(meta, s + 32, spans[k][2], 8);
    put(meta, s + 48, spans[k][3], 1);
  }
  // Span A's heap bits, its last 128 bytes: words 0 and 3 hold pointers.
  heap[kPage - 128] = 0b1001;
  // Types: T1 16 bytes, its first word a pointer; T2 a GC program; T3 a
  // mask built on demand whose slot is still empty.
  const uint64_t t1 = kTypes, t2 = kTypes + 0x20, t3 = kTypes + 0x40;
  put(meta, t1 - kMeta, 16, 8);
  put(meta, t1 - kMeta + 8, 8, 8);
  put(meta, t1 - kMeta + 24, kMasks, 8);
  meta[kMasks - kMeta] = 1;
  put(meta, t2 - kMeta, 4096, 8);
  put(meta, t2 - kMeta + 8, 4096, 8);
  meta[t2 - kMeta + 17] = 1 << 6;
  put(meta, t3 - kMeta, 4096, 8);
  put(meta, t3 - kMeta + 8, 4096, 8);
  meta[t3 - kMeta + 16] = 1 << 4;
  put(meta, t3 - kMeta + 24, kMasks + 0x10, 8);
  // Span B's objects: headers T1, T2, T3, none.
  put(heap, kPage, t1, 8);
  put(heap, kPage + 1024, t2, 8);
  put(heap, kPage + 2048, t3, 8);
  b.segment(kMeta, meta).segment(kHeap, heap);
  const auto bytes = b.build();
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  const core::MemoryImage mem(*core);

  core::HeapObjects objects;
  objects.addr = {kHeap,
                  kHeap + 16,
                  kHeap + kPage,
                  kHeap + kPage + 1024,
                  kHeap + kPage + 2048,
                  kHeap + kPage + 3072,
                  0x900000};
  objects.size = {16, 16, 1024, 1024, 1024, 1024, 16};
  std::vector<std::string> warnings;
  WarningList told(warnings);
  const core::PointerMasks m = core::readPointerMasks(mem, testLayout(), testBits(), objects, told);
  EXPECT_EQ(offsetsOf(m, 0), (std::vector<uint64_t>{0}));
  EXPECT_EQ(offsetsOf(m, 1), (std::vector<uint64_t>{8}));
  // After the 8-byte header, T1 tiled: a pointer every 16 bytes.
  std::vector<uint64_t> tiled;
  for (uint64_t off = 8; off < 1024; off += 16) tiled.push_back(off);
  EXPECT_EQ(offsetsOf(m, 2), tiled);
  for (size_t i = 3; i < 7; ++i) EXPECT_TRUE(offsetsOf(m, i).empty()) << i;
  EXPECT_EQ(m.objects_with_pointers, 3u);
  EXPECT_EQ(m.pointer_words, 2 + tiled.size());
  EXPECT_EQ(m.gc_program, 1u);
  EXPECT_EQ(m.mask_not_built, 1u);
  EXPECT_EQ(m.no_span, 1u);
  EXPECT_EQ(warnings.size(), 3u);  // one per reason
}

}  // namespace
}  // namespace goheap
