// The dump's own memstats record says how many bytes of objects the heap
// holds (HeapAlloc: every allocated slot, unswept garbage included). The
// object records goheap counts as objects, reachable and garbage, must add
// up to it: the runtime's span metadata that the dump writes as objects
// (heap bits since Go 1.22, Green Tea's inline mark bits since Go 1.26; see
// dump/span_metadata.h) must not be counted, and nothing real may be lost
// with it. Checked on Go 1.25 (heap bits only), Go 1.26 and 1.27 (Green
// Tea), and Go 1.27 built without Green Tea.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/snapshot.h"
#include "model/span_metadata.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

struct Expectation {
  const char* dump;  // under build/testdumps
  bool inline_mark_bits;
};

void PrintTo(const Expectation& e, std::ostream* os) {
  *os << e.dump;
}

class HeapAlloc : public ::testing::TestWithParam<Expectation> {
 protected:
  void SetUp() override {
    const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam().dump;
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << path << " is missing: make-dumps.sh writes it when that Go toolchain is "
                   << "installed (scripts/install-deps.sh)";
    }
    auto snap = goheap::testing::openSnapshot(path);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    snap_ = snap.take();
    ASSERT_TRUE(snap_->model.memstats.present);
  }
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(HeapAlloc, ObjectBytesWithoutMetadataAreHeapAlloc) {
  const uint64_t objects = snap_->reachable_bytes + snap_->garbage_bytes;
  const uint64_t heap_alloc = snap_->model.memstats.heap_alloc;
  const uint64_t diff = objects > heap_alloc ? objects - heap_alloc : heap_alloc - objects;
  EXPECT_LE(diff * 100, heap_alloc * 2)
      << "objects " << objects << " B (" << snap_->reachable_bytes << " reachable, "
      << snap_->garbage_bytes << " garbage; " << snap_->metadata_bytes
      << " B of span metadata left out) vs HeapAlloc " << heap_alloc << " B";
  // HeapObjects counts the same slots.
  const uint64_t count = snap_->reachable_objects + snap_->garbage_objects;
  const uint64_t heap_objects = snap_->model.memstats.heap_objects;
  const uint64_t count_diff = count > heap_objects ? count - heap_objects : heap_objects - count;
  EXPECT_LE(count_diff * 100, heap_objects * 2)
      << count << " objects vs HeapObjects " << heap_objects << " (" << snap_->metadata_objects
      << " metadata records left out)";
  // Every Go since 1.22 keeps heap bits in the tail of a span with pointers.
  EXPECT_GT(snap_->metadata_objects, 0u);
}

TEST_P(HeapAlloc, InlineMarkBitsOnlyWithGreenTea) {
  uint64_t with_marks = 0;
  for (uint8_t bits : snap_->model.objects.span_metadata) {
    if ((bits & model::kSpanInlineMarkBits) != 0) with_marks++;
  }
  if (GetParam().inline_mark_bits) {
    EXPECT_GT(with_marks, 0u);
  } else {
    EXPECT_EQ(with_marks, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dumps, HeapAlloc,
    ::testing::Values(Expectation{"go1.24/zoo.dump", false}, Expectation{"go1.25/zoo.dump", false},
                      Expectation{"go1.25/leaks.dump", false}, Expectation{"go1.26/zoo.dump", true},
                      Expectation{"go1.27/zoo.dump", true}, Expectation{"go1.27/leaks.dump", true},
                      Expectation{"go1.27/nogreentea/zoo.dump", false}),
    [](const ::testing::TestParamInfo<Expectation>& p) {
      return testing::pathParamName(::testing::TestParamInfo<std::string>(p.param.dump, p.index));
    });

}  // namespace
}  // namespace goheap
