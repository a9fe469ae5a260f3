#include "support/sample_dumps.h"

#include <string>

namespace goheap::testsupport {

using dump::FieldKind;
using dump::FormatVersion;
using dump::Tag;

namespace {

// Builds the sample while recording what was written.
class SampleWriter {
 public:
  SampleWriter(FormatVersion v, uint32_t ptr, bool be) : b_(v, ptr, be) {
    s_.version = v;
    s_.ptr_size = ptr;
    s_.big_endian = be;
  }

  DumpBuilder& builder() { return b_; }
  SampleDump& sample() { return s_; }
  uint64_t code(FieldKind k) const { return fieldKindCode(s_.version, k); }

  void params(const ParamsSpec& p) {
    s_.params = p;
    b_.params(p);
    count(Tag::Params);
  }
  void type(const TypeSpec& t) {
    s_.types.push_back(t);
    s_.type_pos.push_back(b_.type(t));
    count(Tag::Type);
  }
  void itab(const ItabSpec& i) {
    s_.itabs.push_back(i);
    b_.itab(i);
    count(Tag::Itab);
  }
  void object(const ObjectSpec& o, std::vector<uint64_t> slots) {
    s_.objects.push_back(o);
    s_.object_pos.push_back(b_.object(o));
    s_.object_slots.push_back(std::move(slots));
    count(Tag::Object);
  }
  void otherRoot(const OtherRootSpec& r) {
    s_.other_roots.push_back(r);
    b_.otherRoot(r);
    count(Tag::OtherRoot);
  }
  void goroutine(const GoroutineSpec& g) {
    s_.goroutines.push_back(g);
    b_.goroutine(g);
    count(Tag::Goroutine);
  }
  void frame(const FrameSpec& f, std::vector<uint64_t> slots) {
    s_.frames.push_back(f);
    s_.frame_pos.push_back(b_.frame(f));
    s_.frame_goroutine.push_back(static_cast<uint32_t>(s_.goroutines.size() - 1));
    s_.frame_slots.push_back(std::move(slots));
    count(Tag::StackFrame);
  }
  void deferRecord(const DeferSpec& d) {
    s_.defers.push_back(d);
    b_.deferRecord(d);
    count(Tag::Defer);
  }
  void panicRecord(const PanicSpec& p) {
    s_.panics.push_back(p);
    b_.panicRecord(p);
    count(Tag::Panic);
  }
  void osThread(const OsThreadSpec& t) {
    s_.threads.push_back(t);
    b_.osThread(t);
    count(Tag::OsThread);
  }
  void data(const SegmentSpec& d, std::vector<uint64_t> slots) {
    s_.data = d;
    s_.data_pos = b_.data(d);
    s_.data_slots = std::move(slots);
    count(Tag::Data);
  }
  void bss(const SegmentSpec& d, std::vector<uint64_t> slots) {
    s_.bss = d;
    s_.bss_pos = b_.bss(d);
    s_.bss_slots = std::move(slots);
    count(Tag::Bss);
  }
  void finalizer(const FinalizerSpec& f) {
    s_.finalizers.push_back(f);
    b_.finalizer(f);
    count(Tag::Finalizer);
  }
  void queuedFinalizer(const FinalizerSpec& f) {
    s_.queued_finalizers.push_back(f);
    b_.queuedFinalizer(f);
    count(Tag::QueuedFinalizer);
  }
  void memStats(const MemStatsValues& v) {
    s_.memstats = v;
    b_.memStats(v);
    count(Tag::MemStats);
  }
  void memProf(const BucketSpec& bucket) {
    s_.buckets.push_back(bucket);
    b_.memProf(bucket);
    count(Tag::MemProf);
  }
  void allocSample(const AllocSampleSpec& a) {
    s_.samples.push_back(a);
    b_.allocSample(a);
    count(Tag::AllocSample);
  }
  SampleDump finish() {
    b_.eof();
    count(Tag::Eof);
    s_.bytes = b_.take();
    return std::move(s_);
  }

 private:
  void count(Tag t) { ++s_.record_counts[static_cast<size_t>(t)]; }

  DumpBuilder b_;
  SampleDump s_;
};

}  // namespace

SampleDump makeSampleDump(FormatVersion v, uint32_t ptr, bool be) {
  SampleWriter w(v, ptr, be);
  DumpBuilder& b = w.builder();
  const uint64_t W = ptr;
  const bool go13 = v == FormatVersion::Go13;
  const bool go14 = v == FormatVersion::Go14;
  const bool wide = ptr == 8;

  // Addresses that fit the pointer width.
  const uint64_t heap = wide ? 0xc000010000ull : 0x10010000ull;
  const uint64_t text = wide ? 0x401000ull : 0x8049000ull;
  const uint64_t rodata = wide ? 0x4a0000ull : 0x80a0000ull;
  const uint64_t stack = wide ? 0xc000080000ull : 0x10080000ull;
  const uint64_t dataseg = wide ? 0x560000ull : 0x8160000ull;
  const uint64_t mstruct = wide ? 0x5a0000ull : 0x81a0000ull;

  ParamsSpec p;
  p.hchan_size = 6 * W;
  p.heap_start = heap - 0x10000;
  p.heap_end = heap + 0x400000;
  p.thechar = wide ? (be ? '9' : '6') : '8';
  p.arch = wide ? (be ? "s390x" : "amd64") : (be ? "mips" : "386");
  p.second_string = v == FormatVersion::Go17 ? "go1.19.8" : "fieldtrack";
  p.ncpu = 3;
  w.params(p);

  // Itabs (go1.4+: each after the type record of its data word).
  const uint64_t itab_addr = rodata + 0x800;
  const uint64_t itab_type = rodata + 0x100;
  if (go13) {
    w.itab({.addr = itab_addr, .data_is_pointer = true});
    w.itab({.addr = itab_addr + 0x20, .data_is_pointer = false});
  } else {
    w.type({.addr = itab_type,
            .size = v == FormatVersion::Go17 ? 3 * W : W,
            .name = v == FormatVersion::Go17 ? "main.T" : "",
            .data_is_pointer = true});
    w.itab({.addr = itab_addr, .type_addr = itab_type});
  }

  // Objects.
  const uint64_t o0 = heap, o1 = heap + 0x40, o2 = heap + 0x100, o3 = heap + 0x200;
  const uint64_t o4 = heap + 0x300;
  {
    ObjectSpec a{.addr = o0, .contents = b.words({o1, 0x1234, itab_type, o2})};
    if (go13) {
      // plain object of type A: Ptr at 0, Eface at 2W
      w.type({.addr = rodata + 0x200,
              .size = 4 * W,
              .name = "main.A",
              .data_is_pointer = true,
              .fields = {{w.code(FieldKind::Ptr), 0}, {w.code(FieldKind::Eface), 2 * W}}});
      a.type_addr = rodata + 0x200;
      a.kind = 0;
    } else if (go14) {
      // an eface type word: its type record precedes the object
      w.type({.addr = itab_type + 0x40, .size = W, .name = "main.E", .data_is_pointer = true});
      a.fields = {{w.code(FieldKind::Ptr), 0}, {w.code(FieldKind::Eface), 2 * W}};
    } else {
      a.fields = {{1, 0}, {1, 2 * W}, {1, 3 * W}};
    }
    w.object(a, {0, 2 * W, 3 * W});
  }
  {
    // go1.3: array of B (2W: String at 0), 7 words: elements at 0, 2W, 4W.
    // later: go1.4 an Iface at 0; go1.5+ no pointers.
    ObjectSpec o{.addr = o1};
    std::vector<uint64_t> slots;
    if (go13) {
      o.contents.assign(7 * W, 0);
      b.putWord(o.contents, 0, o0);
      b.putWord(o.contents, 2 * W, rodata + 0x3000);
      w.type({.addr = rodata + 0x240,
              .size = 2 * W,
              .name = "string",
              .data_is_pointer = true,
              .fields = {{w.code(FieldKind::String), 0}}});
      o.type_addr = rodata + 0x240;
      o.kind = 1;
      slots = {0, 2 * W, 4 * W};
    } else if (go14) {
      o.contents = b.words({itab_addr, o0});
      o.fields = {{w.code(FieldKind::Iface), 0}};
      slots = {0, W};
    } else {
      o.contents = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    }
    w.object(o, slots);
  }
  {
    // go1.3: channel of *T (W: Ptr at 0) with a 6W header: elements at 6W, 7W, 8W.
    // later: a pointer in the second word of 3.
    ObjectSpec o{.addr = o2};
    std::vector<uint64_t> slots;
    if (go13) {
      o.contents.assign(9 * W, 0);
      b.putWord(o.contents, 6 * W, o3);
      w.type({.addr = rodata + 0x280,
              .size = W,
              .name = "",
              .data_is_pointer = true,
              .fields = {{w.code(FieldKind::Ptr), 0}}});
      o.type_addr = rodata + 0x280;
      o.kind = 2;
      slots = {6 * W, 7 * W, 8 * W};
    } else {
      o.contents = b.words({7, o3, 9});
      o.fields = {{1, W}};
      slots = {W};
    }
    w.object(o, slots);
  }
  {
    // go1.3: conservatively scanned, 3.5 words: every whole word.
    // later: a pointer at the end of an odd-sized slot.
    ObjectSpec o{.addr = o3};
    std::vector<uint64_t> slots;
    if (go13) {
      o.contents = b.words({o0, 5, o1});
      o.contents.resize(o.contents.size() + W / 2, 0xee);
      o.kind = 127;
      slots = {0, W, 2 * W};
    } else {
      o.contents = b.words({5, o4});
      o.contents.resize(o.contents.size() + W / 2, 0xee);
      o.fields = {{1, W}};
      slots = {W};
    }
    w.object(o, slots);
  }
  {
    // A zero-length object (size-class 0 never happens, but the format allows it).
    ObjectSpec o{.addr = o4};
    if (go13) {
      o.kind = 127;
    }
    w.object(o, {});
  }

  // Goroutines, each followed by its frames (innermost first), defers, panics.
  const uint64_t g0 = heap + 0x1000, g1 = heap + 0x1200;
  const uint64_t defer0 = heap + 0x1400, panic0 = heap + 0x1480;
  w.goroutine({.addr = g0,
               .sp = stack + 0x7f00,
               .goid = 1,
               .gopc = text + 0x10,
               .status = 4,
               .is_system = false,
               .is_background = false,
               .wait_since = 123456789,
               .wait_reason = "chan receive",
               .ctxt = 0,
               .m_addr = mstruct,
               .top_defer = defer0,
               .top_panic = panic0});
  {
    FrameSpec f{.sp = stack + 0x7f00,
                .depth = 0,
                .child_sp = 0,
                .contents = b.words({o0, 17, itab_addr, o1}),
                .entry_pc = text + 0x100,
                .pc = text + 0x134,
                .continpc = text + 0x134,
                .function = "main.worker"};
    std::vector<uint64_t> slots;
    if (go13) {
      // Ptr, a slice (data, len, cap), an iface
      f.contents = b.words({o0, o1, 3, 3, itab_addr, o2});
      f.fields = {{w.code(FieldKind::Ptr), 0},
                  {w.code(FieldKind::Slice), W},
                  {w.code(FieldKind::Iface), 4 * W}};
      slots = {0, W, 4 * W, 5 * W};
    } else if (go14) {
      f.fields = {{w.code(FieldKind::Ptr), 0}, {w.code(FieldKind::Iface), 2 * W}};
      slots = {0, 2 * W, 3 * W};
    } else {
      f.fields = {{1, 0}, {1, 3 * W}};
      slots = {0, 3 * W};
    }
    w.frame(f, slots);
  }
  w.frame({.sp = stack + 0x7f00 + 4 * W,
           .depth = 1,
           .child_sp = stack + 0x7f00,
           .contents = b.words({3, o2}),
           .entry_pc = text + 0x200,
           .pc = text + 0x250,
           .continpc = text + 0x250,
           .function = "main.main",
           .fields = {{1, W}}},
          {W});
  w.deferRecord({.addr = defer0,
                 .goroutine = g0,
                 .sp = stack + 0x7f00 + 4 * W,
                 .pc = text + 0x260,
                 .fn_val = rodata + 0x900,
                 .fn_pc = text + 0x300,
                 .link = 0});
  w.panicRecord({.addr = panic0,
                 .goroutine = g0,
                 .eface_type = itab_type,
                 .eface_data = o3,
                 .defer_addr = go13 ? defer0 : 0,
                 .link = 0});

  w.goroutine({.addr = g1,
               .sp = stack + 0x3f80,
               .goid = 17,
               .gopc = text + 0x280,
               .status = 1,
               .is_system = true,
               .is_background = go13,
               .wait_since = 0,
               .wait_reason = "",
               .ctxt = rodata + 0x940,
               .m_addr = 0,
               .top_defer = 0,
               .top_panic = 0});
  w.frame({.sp = stack + 0x3f80,
           .depth = 0,
           .child_sp = 0,
           .contents = {},
           .entry_pc = text + 0x400,
           .pc = text + 0x400,
           .continpc = 0,
           .function = "runtime.gopark",
           .fields = {}},
          {});

  w.osThread({.addr = mstruct, .id = 0, .procid = 4242});
  w.osThread({.addr = mstruct + 0x400, .id = 1, .procid = 4243});

  {
    SegmentSpec d{.addr = dataseg, .contents = b.words({1, o0, itab_type, o1})};
    std::vector<uint64_t> slots;
    if (go13) {
      d.fields = {{w.code(FieldKind::Ptr), W}, {w.code(FieldKind::String), 2 * W}};
      slots = {W, 2 * W};
    } else if (go14) {
      d.fields = {{w.code(FieldKind::Ptr), W}, {w.code(FieldKind::Eface), 2 * W}};
      slots = {W, 2 * W, 3 * W};
    } else {
      d.fields = {{1, W}, {1, 3 * W}};
      slots = {W, 3 * W};
    }
    w.data(d, slots);
  }
  w.bss({.addr = dataseg + 0x1000, .contents = b.words({o2, 0}), .fields = {{1, 0}}}, {0});

  w.otherRoot({.description = "runtime type info", .addr = o4});

  w.finalizer({.obj = o3,
               .fn_val = rodata + 0xa00,
               .fn_pc = text + 0x500,
               .arg_type = rodata + 0x280,
               .obj_type = rodata + 0x280});
  w.queuedFinalizer({.obj = o4,
                     .fn_val = rodata + 0xa20,
                     .fn_pc = text + 0x520,
                     .arg_type = rodata + 0x2c0,
                     .obj_type = rodata + 0x2c0});

  MemStatsValues ms{};
  for (size_t i = 0; i < ms.size(); ++i) ms[i] = (i + 1) * 0x10001ull;
  ms[0] = 1ull << 40;            // Alloc: a long varint
  ms[kMemStatsValues - 1] = 77;  // NumGC
  w.memStats(ms);

  const uint64_t bucket0 = wide ? 0x7f0000001000ull : 0xb7001000ull;
  w.memProf({.id = bucket0,
             .size = 4 * W,
             .frames = {{"main.alloc", "/src/main.go", 12}, {"main.main", "/src/main.go", 30}},
             .allocs = 5,
             .frees = 2});
  w.memProf({.id = bucket0 + 0x100, .size = 0, .frames = {}, .allocs = 0, .frees = 0});
  w.allocSample({.addr = o0, .bucket_id = bucket0});
  w.allocSample({.addr = o1, .bucket_id = bucket0 + 0x100});

  return w.finish();
}

std::vector<uint8_t> makeMinimalDump(FormatVersion version, uint32_t ptr_size, bool big_endian) {
  DumpBuilder b(version, ptr_size, big_endian);
  b.params();
  b.eof();
  return b.take();
}

std::vector<DumpShape> allDumpShapes() {
  std::vector<DumpShape> out;
  for (FormatVersion v :
       {FormatVersion::Go13, FormatVersion::Go14, FormatVersion::Go15, FormatVersion::Go17}) {
    for (uint32_t ptr : {4u, 8u}) {
      for (bool be : {false, true}) out.push_back({v, ptr, be});
    }
  }
  return out;
}

std::string shapeName(const DumpShape& s) {
  std::string name;
  switch (s.version) {
    case FormatVersion::Go13:
      name = "go13";
      break;
    case FormatVersion::Go14:
      name = "go14";
      break;
    case FormatVersion::Go15:
      name = "go15";
      break;
    case FormatVersion::Go17:
      name = "go17";
      break;
  }
  name += s.ptr_size == 8 ? "_ptr8" : "_ptr4";
  name += s.big_endian ? "_big" : "_little";
  return name;
}

}  // namespace goheap::testsupport
