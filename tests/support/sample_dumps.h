// Small, complete heap dumps for each header version, pointer size and byte
// order, built with DumpBuilder, together with what was written (the specs and
// where each record landed) so tests can check every decoded column against
// it. Also used by fuzz/make_corpus.cpp for the seed corpus.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model/heap_model.h"
#include "support/dump_builder.h"

namespace goheap::testsupport {

struct SampleDump {
  dump::FormatVersion version = dump::FormatVersion::Go17;
  uint32_t ptr_size = 8;
  bool big_endian = false;
  std::vector<uint8_t> bytes;

  ParamsSpec params;
  std::vector<TypeSpec> types;  // file order
  std::vector<Written> type_pos;
  std::vector<ItabSpec> itabs;
  std::vector<ObjectSpec> objects;  // file order
  std::vector<Written> object_pos;
  // Word offsets within each object that may hold a pointer, ascending, worked
  // out by hand from the version's rules (not from the reader).
  std::vector<std::vector<uint64_t>> object_slots;
  std::vector<OtherRootSpec> other_roots;
  std::vector<GoroutineSpec> goroutines;
  std::vector<FrameSpec> frames;
  std::vector<Written> frame_pos;
  std::vector<uint32_t> frame_goroutine;  // index into goroutines
  std::vector<std::vector<uint64_t>> frame_slots;
  std::vector<FinalizerSpec> finalizers;
  std::vector<FinalizerSpec> queued_finalizers;
  std::vector<OsThreadSpec> threads;
  SegmentSpec data;
  Written data_pos;
  std::vector<uint64_t> data_slots;
  SegmentSpec bss;
  Written bss_pos;
  std::vector<uint64_t> bss_slots;
  std::vector<DeferSpec> defers;
  std::vector<PanicSpec> panics;
  MemStatsValues memstats{};
  std::vector<BucketSpec> buckets;
  std::vector<AllocSampleSpec> samples;
  std::array<uint64_t, dump::kTagCount> record_counts{};  // tags written, EOF included
};

// Every record kind the version has: params, types, itabs, objects (go1.3:
// plain, array, channel and conservative ones), other root, two goroutines
// with frames, a defer and a panic, OS threads, data, bss, a finalizer, a
// queued finalizer, memstats, two memprof buckets, two alloc samples, EOF.
SampleDump makeSampleDump(dump::FormatVersion version, uint32_t ptr_size, bool big_endian);

// The smallest valid dump: header, params, EOF.
std::vector<uint8_t> makeMinimalDump(dump::FormatVersion version, uint32_t ptr_size,
                                     bool big_endian);

// Test-parameter helpers.
struct DumpShape {
  dump::FormatVersion version;
  uint32_t ptr_size;
  bool big_endian;
};
std::vector<DumpShape> allDumpShapes();  // 4 versions x {4, 8} x {little, big}
std::string shapeName(const DumpShape& s);
inline void PrintTo(const DumpShape& s, std::ostream* os) {
  *os << shapeName(s);
}

}  // namespace goheap::testsupport
