// Every header version x pointer size x byte order: a small dump holding every
// record kind the version has is read back, and every decoded column is checked
// against what the builder wrote.
#include <gtest/gtest.h>

#include <algorithm>
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
using testsupport::SampleDump;

Expected<model::HeapModel> readBytes(const std::vector<uint8_t>& bytes) {
  return readDump(MappedFile::borrow(std::span<const uint8_t>(bytes.data(), bytes.size())), {});
}

template <class Walk>
std::vector<uint64_t> collect(Walk&& walk) {
  std::vector<uint64_t> out;
  walk([&](uint64_t off) { out.push_back(off); });
  std::sort(out.begin(), out.end());
  return out;
}

class ReaderVersions : public ::testing::TestWithParam<DumpShape> {
 protected:
  void SetUp() override {
    const DumpShape& s = GetParam();
    sample_ = testsupport::makeSampleDump(s.version, s.ptr_size, s.big_endian);
    auto r = readBytes(sample_.bytes);
    ASSERT_TRUE(r.ok()) << r.error().message();
    dump_.emplace(r.take());
  }

  bool go13() const { return sample_.version == FormatVersion::Go13; }

  SampleDump sample_;
  std::optional<model::HeapModel> dump_;
};

TEST_P(ReaderVersions, VersionAndParams) {
  const model::HeapModel& d = *dump_;
  const auto& p = sample_.params;
  ASSERT_TRUE(d.heap_dump);
  const model::HeapDumpFacts& f = *d.heap_dump;
  EXPECT_EQ(f.version, sample_.version);
  EXPECT_EQ(d.format, formatVersionName(sample_.version));
  EXPECT_EQ(d.params.big_endian, sample_.big_endian);
  EXPECT_EQ(d.params.ptr_size, sample_.ptr_size);
  EXPECT_EQ(d.params.heap_start, p.heap_start);
  EXPECT_EQ(d.params.heap_end, p.heap_end);
  EXPECT_EQ(d.params.ncpu, p.ncpu);
  EXPECT_EQ(d.words().ptrSize(), sample_.ptr_size);
  EXPECT_EQ(d.words().bigEndian(), sample_.big_endian);
  if (go13()) {
    EXPECT_EQ(f.hchan_size, p.hchan_size);
  }
  if (sample_.version == FormatVersion::Go17) {
    EXPECT_EQ(d.params.arch, p.arch);
    EXPECT_EQ(d.params.go_version, p.second_string);  // "go1.19.8"
  } else {
    EXPECT_EQ(f.thechar, p.thechar);
    EXPECT_EQ(d.params.experiment, p.second_string);
  }
}

TEST_P(ReaderVersions, Types) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.types.size(), sample_.types.size());
  for (size_t i = 0; i < d.types.size(); ++i) {
    SCOPED_TRACE("type " + std::to_string(i));
    EXPECT_EQ(d.types[i].addr, sample_.types[i].addr);
    EXPECT_EQ(d.types[i].size, sample_.types[i].size);
    EXPECT_EQ(d.types[i].name, sample_.types[i].name);
    EXPECT_EQ(d.types[i].data_is_pointer, sample_.types[i].data_is_pointer);
    if (go13()) {
      // The type's layout: the words its field list names, both of an
      // interface's.
      std::vector<uint64_t> want;
      for (const testsupport::Field& f : sample_.types[i].fields) {
        want.push_back(f.offset);
        if (f.kind == testsupport::fieldKindCode(FormatVersion::Go13, FieldKind::Iface) ||
            f.kind == testsupport::fieldKindCode(FormatVersion::Go13, FieldKind::Eface)) {
          want.push_back(f.offset + sample_.ptr_size);
        }
      }
      EXPECT_EQ(collect([&](auto fn) { d.forEachSlot(d.types[i].layout, fn); }), want);
    } else {
      EXPECT_EQ(d.types[i].layout, PointerLayouts::kNoPointers);
    }
  }
}

TEST_P(ReaderVersions, Itabs) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.itabs.size(), sample_.itabs.size());
  for (size_t i = 0; i < d.itabs.size(); ++i) {
    SCOPED_TRACE("itab " + std::to_string(i));
    EXPECT_EQ(d.itabs[i].addr, sample_.itabs[i].addr);
    if (go13()) {
      EXPECT_EQ(d.itabs[i].data_is_pointer, sample_.itabs[i].data_is_pointer);
      EXPECT_EQ(d.itabs[i].type_addr, 0u);
    } else {
      EXPECT_EQ(d.itabs[i].type_addr, sample_.itabs[i].type_addr);
    }
  }
}

TEST_P(ReaderVersions, Objects) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.objects.count(), sample_.objects.size());
  ASSERT_EQ(d.objects.offset.size(), sample_.objects.size());
  EXPECT_TRUE(d.objects.region.empty());  // a dump's objects are all in its file, region 0
  ASSERT_EQ(d.regionCount(), 1u);
  EXPECT_EQ(d.region(0).data(), d.file().data());
  EXPECT_EQ(d.region(0).size(), d.file().size());
  ASSERT_EQ(d.objects.size.size(), sample_.objects.size());
  for (size_t i = 0; i < d.objects.count(); ++i) {
    SCOPED_TRACE("object " + std::to_string(i));
    const auto& o = sample_.objects[i];
    EXPECT_EQ(d.objects.addr[i], o.addr);
    EXPECT_EQ(d.objects.offset[i], sample_.object_pos[i].contents);
    EXPECT_EQ(d.objects.size[i], o.contents.size());
    auto bytes = d.objectBytes(i);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), o.contents.begin(), o.contents.end()));
    EXPECT_EQ(bytes.data(), d.file().data() + sample_.object_pos[i].contents);
    if (go13()) {
      ASSERT_TRUE(d.heap_dump);
      const model::HeapDumpFacts& f = *d.heap_dump;
      ASSERT_EQ(f.object_type_addr.size(), d.objects.count());
      ASSERT_EQ(f.object_kind.size(), d.objects.count());
      ASSERT_EQ(f.object_type_index.size(), d.objects.count());
      EXPECT_EQ(f.object_type_addr[i], o.type_addr);
      EXPECT_EQ(f.object_kind[i], o.kind);
      if (o.type_addr == 0) {
        EXPECT_EQ(f.object_type_index[i], UINT32_MAX);
      } else {
        ASSERT_LT(f.object_type_index[i], d.types.size());
        EXPECT_EQ(d.types[f.object_type_index[i]].addr, o.type_addr);
      }
    }
  }
}

TEST_P(ReaderVersions, ObjectSlots) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.objects.count(), sample_.objects.size());
  for (size_t i = 0; i < d.objects.count(); ++i) {
    SCOPED_TRACE("object " + std::to_string(i));
    auto got = collect([&](auto fn) { d.forEachObjectSlot(i, fn); });
    EXPECT_EQ(got, sample_.object_slots[i]);
    for (uint64_t off : got) EXPECT_LE(off + sample_.ptr_size, d.objects.size[i]);
  }
}

TEST_P(ReaderVersions, ObjectWordsDecodeInDumpByteOrder) {
  const model::HeapModel& d = *dump_;
  ASSERT_GE(d.objects.count(), 2u);
  // Object 0's first word points at object 1, whatever the version.
  auto bytes = d.objectBytes(0);
  ASSERT_GE(bytes.size(), sample_.ptr_size);
  EXPECT_EQ(d.words().read(bytes.data()), sample_.objects[1].addr);
}

TEST_P(ReaderVersions, OtherRoots) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.other_roots.size(), sample_.other_roots.size());
  for (size_t i = 0; i < d.other_roots.size(); ++i) {
    EXPECT_EQ(d.other_roots[i].description, sample_.other_roots[i].description);
    EXPECT_EQ(d.other_roots[i].addr, sample_.other_roots[i].addr);
  }
}

TEST_P(ReaderVersions, GoroutinesAndFrames) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.goroutines.size(), sample_.goroutines.size());
  ASSERT_EQ(d.frames.size(), sample_.frames.size());
  for (size_t i = 0; i < d.goroutines.size(); ++i) {
    SCOPED_TRACE("goroutine " + std::to_string(i));
    const auto& g = sample_.goroutines[i];
    const auto& got = d.goroutines[i];
    EXPECT_EQ(got.addr, g.addr);
    EXPECT_EQ(got.sp, g.sp);
    EXPECT_EQ(got.goid, g.goid);
    EXPECT_EQ(got.gopc, g.gopc);
    EXPECT_EQ(got.status, g.status);
    EXPECT_EQ(got.is_system, g.is_system);
    EXPECT_EQ(got.is_background, g.is_background);
    EXPECT_EQ(got.wait_since, g.wait_since);
    EXPECT_EQ(got.wait_reason, g.wait_reason);
    EXPECT_EQ(got.ctxt, g.ctxt);
    EXPECT_EQ(got.m_addr, g.m_addr);
    EXPECT_EQ(got.top_defer, g.top_defer);
    EXPECT_EQ(got.top_panic, g.top_panic);
    uint32_t first = UINT32_MAX, count = 0;
    for (uint32_t f = 0; f < sample_.frame_goroutine.size(); ++f) {
      if (sample_.frame_goroutine[f] != i) continue;
      if (first == UINT32_MAX) first = f;
      ++count;
    }
    EXPECT_EQ(got.frame_count, count);
    if (count > 0) {
      EXPECT_EQ(got.first_frame, first);
    }
  }
  for (size_t i = 0; i < d.frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const auto& f = sample_.frames[i];
    const auto& got = d.frames[i];
    EXPECT_EQ(got.sp, f.sp);
    EXPECT_EQ(got.depth, f.depth);
    EXPECT_EQ(got.child_sp, f.child_sp);
    EXPECT_EQ(got.contents.offset, sample_.frame_pos[i].contents);
    EXPECT_EQ(got.contents.size, f.contents.size());
    EXPECT_EQ(got.entry_pc, f.entry_pc);
    EXPECT_EQ(got.pc, f.pc);
    EXPECT_EQ(got.continpc, f.continpc);
    EXPECT_EQ(got.function, f.function);
    EXPECT_EQ(got.goroutine, sample_.frame_goroutine[i]);
    auto slots = collect([&](auto fn) { d.forEachSlot(got.layout, fn); });
    EXPECT_EQ(slots, sample_.frame_slots[i]);
  }
}

TEST_P(ReaderVersions, Finalizers) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.finalizers.size(), sample_.finalizers.size() + sample_.queued_finalizers.size());
  size_t reg = 0, queued = 0;
  for (const Finalizer& f : d.finalizers) {
    const auto& want =
        f.queued ? sample_.queued_finalizers.at(queued++) : sample_.finalizers.at(reg++);
    EXPECT_EQ(f.obj, want.obj);
    EXPECT_EQ(f.fn_val, want.fn_val);
    EXPECT_EQ(f.fn_pc, want.fn_pc);
    EXPECT_EQ(f.arg_type, want.arg_type);
    EXPECT_EQ(f.obj_type, want.obj_type);
  }
  EXPECT_EQ(reg, sample_.finalizers.size());
  EXPECT_EQ(queued, sample_.queued_finalizers.size());
}

TEST_P(ReaderVersions, OsThreads) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.threads.size(), sample_.threads.size());
  for (size_t i = 0; i < d.threads.size(); ++i) {
    EXPECT_EQ(d.threads[i].addr, sample_.threads[i].addr);
    EXPECT_EQ(d.threads[i].id, sample_.threads[i].id);
    EXPECT_EQ(d.threads[i].procid, sample_.threads[i].procid);
  }
}

TEST_P(ReaderVersions, DataAndBss) {
  const model::HeapModel& d = *dump_;
  struct Case {
    const char* name;
    const Segment& got;
    const testsupport::SegmentSpec& want;
    const testsupport::Written& pos;
    const std::vector<uint64_t>& slots;
  };
  for (const Case& c : {Case{"data", d.data, sample_.data, sample_.data_pos, sample_.data_slots},
                        Case{"bss", d.bss, sample_.bss, sample_.bss_pos, sample_.bss_slots}}) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(c.got.present);
    EXPECT_EQ(c.got.addr, c.want.addr);
    EXPECT_EQ(c.got.contents.offset, c.pos.contents);
    EXPECT_EQ(c.got.contents.size, c.want.contents.size());
    auto slots = collect([&](auto fn) { d.forEachSlot(c.got.layout, fn); });
    EXPECT_EQ(slots, c.slots);
  }
}

TEST_P(ReaderVersions, DefersAndPanics) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.defers.size(), sample_.defers.size());
  for (size_t i = 0; i < d.defers.size(); ++i) {
    const auto& w = sample_.defers[i];
    const auto& g = d.defers[i];
    EXPECT_EQ(g.addr, w.addr);
    EXPECT_EQ(g.goroutine, w.goroutine);
    EXPECT_EQ(g.sp, w.sp);
    EXPECT_EQ(g.pc, w.pc);
    EXPECT_EQ(g.fn_val, w.fn_val);
    EXPECT_EQ(g.fn_pc, w.fn_pc);
    EXPECT_EQ(g.link, w.link);
  }
  ASSERT_EQ(d.panics.size(), sample_.panics.size());
  for (size_t i = 0; i < d.panics.size(); ++i) {
    const auto& w = sample_.panics[i];
    const auto& g = d.panics[i];
    EXPECT_EQ(g.addr, w.addr);
    EXPECT_EQ(g.goroutine, w.goroutine);
    EXPECT_EQ(g.eface_type, w.eface_type);
    EXPECT_EQ(g.eface_data, w.eface_data);
    EXPECT_EQ(g.link, w.link);
  }
}

TEST_P(ReaderVersions, MemStats) {
  const MemStats& m = dump_->memstats;
  const auto& v = sample_.memstats;
  EXPECT_TRUE(m.present);
  const uint64_t scalars[] = {m.alloc,        m.total_alloc, m.sys,           m.lookups,
                              m.mallocs,      m.frees,       m.heap_alloc,    m.heap_sys,
                              m.heap_idle,    m.heap_inuse,  m.heap_released, m.heap_objects,
                              m.stack_inuse,  m.stack_sys,   m.mspan_inuse,   m.mspan_sys,
                              m.mcache_inuse, m.mcache_sys,  m.buck_hash_sys, m.gc_sys,
                              m.other_sys,    m.next_gc,     m.last_gc,       m.pause_total_ns};
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(scalars[i], v[i]) << "memstats field " << i;
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(m.pause_ns[i], v[24 + i]) << "PauseNs[" << i << "]";
  EXPECT_EQ(m.num_gc, v[280]);
}

TEST_P(ReaderVersions, ProfileBucketsAndSamples) {
  const model::HeapModel& d = *dump_;
  ASSERT_EQ(d.buckets.size(), sample_.buckets.size());
  for (size_t i = 0; i < d.buckets.size(); ++i) {
    SCOPED_TRACE("bucket " + std::to_string(i));
    const auto& w = sample_.buckets[i];
    const auto& g = d.buckets[i];
    EXPECT_EQ(g.id, w.id);
    EXPECT_EQ(g.size, w.size);
    EXPECT_EQ(g.allocs, w.allocs);
    EXPECT_EQ(g.frees, w.frees);
    ASSERT_EQ(g.frame_count, w.frames.size());
    ASSERT_LE(uint64_t{g.first_frame} + g.frame_count, d.profile_frames.size());
    for (size_t f = 0; f < w.frames.size(); ++f) {
      const ProfileFrame& pf = d.profile_frames[g.first_frame + f];
      EXPECT_EQ(pf.function, w.frames[f].function);
      EXPECT_EQ(pf.file, w.frames[f].file);
      EXPECT_EQ(pf.line, w.frames[f].line);
    }
  }
  ASSERT_EQ(d.alloc_samples.size(), sample_.samples.size());
  for (size_t i = 0; i < d.alloc_samples.size(); ++i) {
    EXPECT_EQ(d.alloc_samples[i].addr, sample_.samples[i].addr);
    EXPECT_EQ(d.alloc_samples[i].bucket_id, sample_.samples[i].bucket_id);
  }
}

TEST_P(ReaderVersions, ValidDumpGivesNoWarnings) {
  for (const std::string& w : dump_->warnings) ADD_FAILURE() << "warning: " << w;
}

TEST_P(ReaderVersions, RecordCounts) {
  const model::HeapModel& d = *dump_;
  ASSERT_TRUE(d.heap_dump);
  // Every tag but EOF (whether EOF is counted is the reader's business).
  for (size_t t = 1; t < kTagCount; ++t) {
    EXPECT_EQ(d.heap_dump->record_counts[t], sample_.record_counts[t]) << "tag " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(AllShapes, ReaderVersions,
                         ::testing::ValuesIn(testsupport::allDumpShapes()),
                         [](const auto& tp) { return testsupport::shapeName(tp.param); });

// ---------------------------------------------------------------------------
// Behaviour of particular versions, taken from the runtime's writers (see
// docs/dump-format.md). One behaviour per test.

// go1.3 wrote type 0 / kind 0 for an object it had no type for and that was
// not scannable (a no-pointer allocation); only kind 127 means "scan every
// word".
TEST(ReaderGo13, UntypedPlainObjectHasNoPointerSlots) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  b.object({.addr = 0xc000010000,
            .contents = b.words({0xc000010000, 0xc000010008}),
            .type_addr = 0,
            .kind = 0});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto slots = collect([&](auto fn) { r->forEachObjectSlot(0, fn); });
  EXPECT_TRUE(slots.empty()) << "got " << slots.size() << " slots";
}

// go1.3 may write the same type record twice (its type cache overflows).
TEST(ReaderGo13, DuplicateTypeRecordsAreAccepted) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params();
  testsupport::TypeSpec t{
      .addr = 0x4a0000, .size = 16, .name = "main.P", .data_is_pointer = true, .fields = {{1, 8}}};
  b.type(t);
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(16), .type_addr = 0x4a0000});
  b.type(t);
  b.object({.addr = 0xc000010010, .contents = std::vector<uint8_t>(16), .type_addr = 0x4a0000});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->objects.count(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    auto slots = collect([&](auto fn) { r->forEachObjectSlot(i, fn); });
    EXPECT_EQ(slots, std::vector<uint64_t>{8});
  }
}

// go1.3 channel whose element type has size 0: no element slots at all.
TEST(ReaderGo13, ChannelOfZeroSizeElementsHasNoSlots) {
  DumpBuilder b(FormatVersion::Go13, 8, false);
  b.params({.hchan_size = 48});
  b.type({.addr = 0x4a0000, .size = 0, .name = "struct {}", .data_is_pointer = false});
  b.object({.addr = 0xc000010000,
            .contents = std::vector<uint8_t>(64),
            .type_addr = 0x4a0000,
            .kind = 2});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto slots = collect([&](auto fn) { r->forEachObjectSlot(0, fn); });
  EXPECT_TRUE(slots.empty());
}

// go1.3 and go1.4 write the type records a frame's eface words need just
// before that frame, so type records sit between a goroutine and its frames.
TEST(ReaderGo13And14, TypeRecordsBetweenFramesKeepFramesWithTheirGoroutine) {
  for (FormatVersion v : {FormatVersion::Go13, FormatVersion::Go14}) {
    SCOPED_TRACE(std::string(testsupport::versionLabel(v)));
    DumpBuilder b(v, 8, false);
    b.params();
    b.goroutine({.addr = 0xc000001000, .goid = 1});
    b.type({.addr = 0x4a0000, .size = 8, .name = "main.E", .data_is_pointer = true});
    b.frame({.sp = 0xc000080000,
             .depth = 0,
             .contents = std::vector<uint8_t>(16),
             .function = "main.f"});
    b.type({.addr = 0x4a0040, .size = 8, .name = "main.F", .data_is_pointer = true});
    b.frame({.sp = 0xc000080010,
             .depth = 1,
             .child_sp = 0xc000080000,
             .contents = std::vector<uint8_t>(16),
             .function = "main.main"});
    b.goroutine({.addr = 0xc000002000, .goid = 2});
    b.frame({.sp = 0xc000090000, .depth = 0, .function = "main.g"});
    b.eof();
    auto r = readDump(MappedFile::borrow(b.bytes()), {});
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_EQ(r->goroutines.size(), 2u);
    ASSERT_EQ(r->frames.size(), 3u);
    EXPECT_EQ(r->goroutines[0].first_frame, 0u);
    EXPECT_EQ(r->goroutines[0].frame_count, 2u);
    EXPECT_EQ(r->goroutines[1].first_frame, 2u);
    EXPECT_EQ(r->goroutines[1].frame_count, 1u);
    EXPECT_EQ(r->frames[0].goroutine, 0u);
    EXPECT_EQ(r->frames[1].goroutine, 0u);
    EXPECT_EQ(r->frames[2].goroutine, 1u);
    EXPECT_EQ(r->types.size(), 2u);
  }
}

// The go1.7 header's second params string is GOEXPERIMENT in Go 1.7-era
// releases; later releases put the Go version there.
TEST(ReaderGo17, SecondParamsStringThatIsNotAGoVersionIsTheExperiment) {
  DumpBuilder b(FormatVersion::Go17, 8, false);
  b.params({.arch = "arm64", .second_string = "framepointer"});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->params.arch, "arm64");
  EXPECT_EQ(r->params.experiment, "framepointer");
  EXPECT_EQ(r->params.go_version, "");
}

// Before go1.7 the architecture is thechar; the reader derives arch from it.
TEST(ReaderGo14, ArchIsDerivedFromThechar) {
  struct Case {
    uint64_t thechar;
    uint32_t ptr;
    const char* arch;
  };
  for (const Case& c : {Case{'6', 8, "amd64"}, Case{'8', 4, "386"}, Case{'5', 4, "arm"}}) {
    DumpBuilder b(FormatVersion::Go14, c.ptr, false);
    b.params({.thechar = c.thechar});
    b.eof();
    auto r = readDump(MappedFile::borrow(b.bytes()), {});
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->params.arch, c.arch) << "thechar " << static_cast<char>(c.thechar);
  }
}

// go1.5+ field lists hold only kind 1, but kinds 2 (Iface) and 3 (Eface) still
// mean two words (the wiki keeps them defined).
TEST(ReaderGo15, IfaceAndEfaceKindsCoverTwoWords) {
  DumpBuilder b(FormatVersion::Go15, 8, false);
  b.params();
  b.object(
      {.addr = 0xc000010000, .contents = std::vector<uint8_t>(32), .fields = {{2, 0}, {3, 16}}});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto slots = collect([&](auto fn) { r->forEachObjectSlot(0, fn); });
  EXPECT_EQ(slots, (std::vector<uint64_t>{0, 8, 16, 24}));
}

// The wiki says Go 1.6 files may start "go1.6 heap dump\n" with the go1.5 layout.
TEST(ReaderGo15, Go16HeaderReadsAsGo15) {
  DumpBuilder b(FormatVersion::Go15, 8, false, /*write_header=*/false);
  b.raw("go1.6 heap dump\n");
  b.params();
  b.object({.addr = 0xc000010000, .contents = std::vector<uint8_t>(8), .fields = {{1, 0}}});
  b.eof();
  auto r = readDump(MappedFile::borrow(b.bytes()), {});
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->heap_dump);
  EXPECT_EQ(r->heap_dump->version, FormatVersion::Go15);
  EXPECT_EQ(r->objects.count(), 1u);
}

// A dump with only header, params and EOF is valid and empty.
TEST(ReaderAllVersions, MinimalDumpIsEmpty) {
  for (const auto& s : testsupport::allDumpShapes()) {
    SCOPED_TRACE(testsupport::shapeName(s));
    auto bytes = testsupport::makeMinimalDump(s.version, s.ptr_size, s.big_endian);
    auto r = readDump(MappedFile::borrow(bytes), {});
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->objects.count(), 0u);
    EXPECT_EQ(r->goroutines.size(), 0u);
    EXPECT_FALSE(r->data.present);
    EXPECT_FALSE(r->memstats.present);
  }
}

}  // namespace
}  // namespace goheap::dump
