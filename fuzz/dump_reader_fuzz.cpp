// libFuzzer entry for the heap dump reader and everything after it: any input
// must either fail with an Error or yield a model whose field lists stay inside
// the contents they describe, and that model must go through the graph, the
// dominators and the queries without a crash. The walk touches every word a slot names, so
// AddressSanitizer sees any read the reader's validation let through; a slot that ends past its
// contents but inside the input is caught by the explicit checks.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "analysis/diff.h"
#include "analysis/dominator_rows.h"
#include "analysis/duplicates.h"
#include "analysis/goroutine_info.h"
#include "analysis/histogram.h"
#include "analysis/object_info.h"
#include "analysis/paths.h"
#include "analysis/snapshot.h"
#include "analysis/summary.h"
#include "analysis/suspects.h"
#include "analysis/waste.h"
#include "dump/reader.h"
#include "query/open.h"

namespace {

using goheap::model::HeapModel;

[[noreturn]] void fail(const char* what, uint64_t index, uint64_t off, uint64_t size) {
  std::fprintf(stderr, "dump_reader_fuzz: %s %llu: slot at %llu outside %llu bytes\n", what,
               static_cast<unsigned long long>(index), static_cast<unsigned long long>(off),
               static_cast<unsigned long long>(size));
  std::abort();
}

// Reads every pointer word of contents whose slots `walk` reports.
template <class Walk>
uint64_t touchSlots(const HeapModel& d, const char* what, uint64_t index,
                    const goheap::model::ByteRange& contents, Walk&& walk) {
  if (contents.region >= d.regionCount()) std::abort();
  const auto region = d.region(contents.region);
  const uint64_t offset = contents.offset;
  const uint64_t size = contents.size;
  const auto words = d.words();
  const uint32_t ptr = words.ptrSize();
  if (offset > region.size() || size > region.size() - offset) fail(what, index, offset, size);
  uint64_t sum = 0;
  walk([&](uint64_t off) {
    if (off > size || ptr > size - off) fail(what, index, off, size);
    sum += words.read(region.data() + offset + off);
  });
  return sum;
}

uint64_t touchString(std::string_view s) {
  uint64_t sum = 0;
  for (char c : s) sum += static_cast<unsigned char>(c);
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result =
      goheap::dump::readDump(goheap::MappedFile::borrow(std::span<const uint8_t>(data, size)), {});
  if (!result) {
    if (result.error().message().empty()) std::abort();  // errors must say something
    return 0;
  }
  const HeapModel& d = *result;
  const uint32_t ptr = d.params.ptr_size;
  if (ptr != 4 && ptr != 8) std::abort();
  uint64_t sum = 0;

  for (size_t i = 0; i < d.objects.count(); ++i) {
    const goheap::model::ByteRange contents{d.objects.offset[i], d.objects.size[i],
                                            d.objects.region.empty() ? 0 : d.objects.region[i]};
    if (d.objectData(i) != d.bytes(contents).data()) std::abort();
    sum += touchSlots(d, "object", i, contents, [&](auto fn) { d.forEachObjectSlot(i, fn); });
  }
  for (size_t i = 0; i < d.frames.size(); ++i) {
    const auto& f = d.frames[i];
    sum += touchSlots(d, "frame", i, f.contents, [&](auto fn) { d.forEachSlot(f.layout, fn); });
    sum += touchString(f.function);
    if (f.goroutine != UINT32_MAX && f.goroutine >= d.goroutines.size()) std::abort();
  }
  for (size_t i = 0; i < d.goroutines.size(); ++i) {
    const auto& g = d.goroutines[i];
    if (uint64_t{g.first_frame} + g.frame_count > d.frames.size()) std::abort();
    sum += touchString(g.wait_reason);
  }
  for (const auto* seg : {&d.data, &d.bss}) {
    if (!seg->present) continue;
    sum += touchSlots(d, "segment", 0, seg->contents,
                      [&](auto fn) { d.forEachSlot(seg->layout, fn); });
  }
  for (const auto& t : d.types) sum += touchString(t.name);
  for (const auto& r : d.other_roots) sum += touchString(r.description);
  for (const auto& b : d.buckets) {
    if (uint64_t{b.first_frame} + b.frame_count > d.profile_frames.size()) std::abort();
  }
  for (const auto& f : d.profile_frames) sum += touchString(f.function) + touchString(f.file);
  sum += touchString(d.params.arch) + touchString(d.params.go_version) +
         touchString(d.params.experiment);

  // Keep the reads from being optimised away.
  volatile uint64_t sink = sum;
  (void)sink;

  // A dump that reads must also survive the rest of the pipeline: sorting,
  // the graph (overlapping or huge objects, pointers anywhere), dominators
  // and every query a command makes.
  // Opened again the way every front end opens a heap (query::open).
  goheap::NullSink quiet;
  goheap::query::Source source;
  source.heap = goheap::query::HeapBytes{std::span<const uint8_t>(data, size)};
  auto session = goheap::query::open(source, quiet);
  if (!session) return 0;
  const goheap::analysis::Snapshot& s = (*session)->snapshot();
  goheap::analysis::summarize(s, 5);
  goheap::analysis::histogram(s, goheap::typing::GroupKind::Name,
                              goheap::analysis::SortKey::Retained, 5);
  goheap::analysis::dominatorRows(s, 3, 0, 5);
  goheap::analysis::goroutines(s);
  if (s.heap.objectCount() > 0) {
    const goheap::NodeId last = s.heap.objectCount() - 1;
    goheap::analysis::objectInfo(s, last, 5);
    goheap::analysis::pathsToRoots(s, last, 2);
  }
  // The leak-hunting analyses, and a diff of the dump against itself: every
  // object is then matched in "OLD", and no group may change.
  goheap::analysis::SuspectOptions suspects;
  suspects.threshold_percent = 1;
  goheap::analysis::leakSuspects(s, suspects);
  goheap::analysis::findDuplicates(s, goheap::analysis::DupOptions{});
  goheap::analysis::findWaste(s, goheap::analysis::WasteOptions{});
  for (const auto& row : goheap::analysis::diffGroups(s, s, goheap::typing::GroupKind::Name,
                                                      goheap::analysis::SortKey::Retained)) {
    if (row.countDelta() != 0 || row.shallowDelta() != 0) std::abort();
  }
  if (goheap::analysis::newSince(s, s, goheap::typing::GroupKind::Name).count != 0) std::abort();
  return 0;
}
