// The whole pipeline (read, sort, graph, dominators, retained sizes) on dumps
// in the older header versions, go1.3, go1.4 and go1.5, with 8-byte
// little-endian and 4-byte big-endian words. No Go toolchain writes these any
// more, so each dump is built with DumpBuilder around one small object graph
// whose answers are worked out by hand below. The graph is the same in every
// version; only how pointers are described differs: go1.3 objects name a type
// record and a kind (plain, array, conservative), later ones carry their own
// field lists.
//
// W is the pointer size; sizes are in words.
//
//   object  size  contents (pointer slots marked *)
//   A       4W    *B+W (interior) *D   E (not a slot)   0
//   B       4W    *C   0 0 0
//   C       8W    F 0 0 ... (no pointer slots: go1.3 type 0, kind 0)
//   D       2W    0 0
//   E       6W    *A *F 0 0 0 0            (nothing points at E: garbage)
//   F       2W    0 0                      (only E points at it: garbage)
//   Arr     6W    *X1 Y *X2 Y *X3 Y        (go1.3: array of a 2W element with
//                                           Ptr at 0; later: slots 0, 2W, 4W)
//   X1..X3  2W    0 0
//   Y       4W    0 0 0 0                  (only non-slot words name it: garbage)
//   K       3W    *Z *7 *0                 (go1.3: conservative, every word;
//                                           later: slots 0, W, 2W)
//   Z       2W    0 0
//
//   data segment: E (not a slot), *A
//   bss segment:  *Arr, *K
//   goroutine 1, one frame main.main: *D, 0x99
//
// Reachable: A B C D Arr X1 X2 X3 K Z: 10 objects,
//   4+4+8+2+6+2+2+2+3+2 = 35W.
// Garbage: E F Y: 3 objects, 6+2+4 = 12W.
// Object-to-object edges: A->B A->D B->C E->A E->F Arr->X1 Arr->X2 Arr->X3
//   K->Z = 9 (K's 7 and 0 point nowhere).
//
// Immediate dominators: A: data segment (its only referrer besides garbage E);
// B: A; C: B; D: the super-root (reached both through data -> A and through
// goroutine -> frame); Arr, K: bss segment; X1..X3: Arr; Z: K.
//
// Retained: C 8W; B 4+8 = 12W; A 4+12 = 16W (not D); D 2W; X_i 2W;
// Arr 6+3*2 = 12W; Z 2W; K 3+2 = 5W; data 16W; bss 12+5 = 17W; frame and
// goroutine 0 (D has a second holder); super-root 16+17+2 = 35W = all
// reachable bytes.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "analysis/goroutine_info.h"
#include "analysis/paths.h"
#include "analysis/slots.h"
#include "analysis/snapshot.h"
#include "analysis/summary.h"
#include "dump/reader.h"
#include "support/dump_builder.h"
#include "support/open_heap.h"
#include "support/sample_dumps.h"

namespace goheap {
namespace {

using dump::FieldKind;
using dump::FormatVersion;
using testsupport::DumpBuilder;
using testsupport::DumpShape;
using testsupport::FieldList;

struct Layout {
  uint64_t W = 8;
  uint64_t heap = 0;
  std::map<std::string, uint64_t> addr;  // object name -> address
  std::map<std::string, uint64_t> size;
  uint64_t data = 0, bss = 0, stack = 0, g = 0;
};

Layout layoutFor(uint32_t ptr_size) {
  Layout l;
  l.W = ptr_size;
  l.heap = ptr_size == 8 ? 0xc000010000ull : 0x10010000ull;
  const std::pair<const char*, uint64_t> objects[] = {
      {"A", 4},  {"B", 4},  {"C", 8},  {"D", 2}, {"E", 6}, {"F", 2}, {"Arr", 6},
      {"X1", 2}, {"X2", 2}, {"X3", 2}, {"Y", 4}, {"K", 3}, {"Z", 2}};
  uint64_t at = l.heap;
  for (const auto& [name, words] : objects) {
    l.addr[name] = at;
    l.size[name] = words * l.W;
    at += 0x100;
  }
  l.data = ptr_size == 8 ? 0x560000ull : 0x8160000ull;
  l.bss = l.data + 0x1000;
  l.stack = ptr_size == 8 ? 0xc000080000ull : 0x10080000ull;
  l.g = l.heap + 0x8000;  // inside the arena, but no object there
  return l;
}

// Builds the dump described at the top of the file.
std::vector<uint8_t> buildDump(const DumpShape& shape, const Layout& l) {
  DumpBuilder b(shape.version, shape.ptr_size, shape.big_endian);
  const bool go13 = shape.version == FormatVersion::Go13;
  const uint64_t W = l.W;
  const uint64_t ptr = testsupport::fieldKindCode(shape.version, FieldKind::Ptr);
  auto a = [&](const char* name) { return l.addr.at(name); };
  auto zeros = [&](const char* name) { return std::vector<uint8_t>(l.size.at(name), 0); };

  testsupport::ParamsSpec p;
  p.heap_start = l.heap - 0x10000;
  p.heap_end = l.heap + 0x400000;
  p.hchan_size = 6 * W;
  p.thechar = W == 8 ? '6' : '5';
  b.params(p);

  // go1.3 objects name a type written just before them (as the runtime
  // does); later versions have the field list on the object.
  const uint64_t rodata = W == 8 ? 0x4a0000ull : 0x80a0000ull;
  auto object = [&](const char* name, std::vector<uint8_t> contents, const FieldList& fields,
                    uint64_t go13_kind = 0, uint64_t go13_type_words = 0) {
    testsupport::ObjectSpec o{.addr = a(name), .contents = std::move(contents)};
    if (go13) {
      if (go13_kind == 0 && fields.empty()) {
        // Type 0, kind 0: the runtime knew it holds no pointers.
      } else if (go13_kind == 127) {
        o.kind = 127;  // conservative: no type, every word may be a pointer
      } else {
        const uint64_t type_addr = rodata + 0x40 * (a(name) - l.heap) / 0x100;
        b.type({.addr = type_addr,
                .size = go13_type_words * W,
                .name = std::string("main.T") + name,
                .data_is_pointer = true,
                .fields = fields});
        o.type_addr = type_addr;
        o.kind = go13_kind;
      }
    } else {
      o.fields = fields;
    }
    b.object(o);
  };

  // Written out of address order: the pipeline sorts them.
  object("Z", zeros("Z"), {});
  {
    auto c = zeros("C");
    b.putWord(c, 0, a("F"));  // C has no pointer slots: F stays garbage
    object("C", c, {});
  }
  {
    auto c = b.words({a("B") + W, a("D"), a("E"), 0});
    object("A", c, {{ptr, 0}, {ptr, W}}, 0, 4);
  }
  object("Y", zeros("Y"), {});
  // K: conservative in go1.3; later, the same three words as slots.
  object("K", b.words({a("Z"), 7, 0}),
         go13 ? FieldList{} : FieldList{{ptr, 0}, {ptr, W}, {ptr, 2 * W}}, 127);
  object("E", b.words({a("A"), a("F"), 0, 0, 0, 0}), {{ptr, 0}, {ptr, W}}, 0, 6);
  object("B", b.words({a("C"), 0, 0, 0}), {{ptr, 0}}, 0, 4);
  object("X3", zeros("X3"), {});
  // Arr: go1.3 array (kind 1) of a 2W element whose word 0 is a pointer;
  // later, its three element pointers listed.
  {
    auto c = b.words({a("X1"), a("Y"), a("X2"), a("Y"), a("X3"), a("Y")});
    if (go13) {
      object("Arr", c, {{ptr, 0}}, 1, 2);
    } else {
      object("Arr", c, {{ptr, 0}, {ptr, 2 * W}, {ptr, 4 * W}});
    }
  }
  object("D", zeros("D"), {});
  object("F", zeros("F"), {});
  object("X2", zeros("X2"), {});
  object("X1", zeros("X1"), {});

  b.goroutine({.addr = l.g,
               .sp = l.stack,
               .goid = 1,
               .gopc = 0x401000,
               .status = 4,
               .wait_reason = "chan receive"});
  b.frame({.sp = l.stack,
           .depth = 0,
           .child_sp = 0,
           .contents = b.words({a("D"), 0x99}),
           .entry_pc = 0x401100,
           .pc = 0x401134,
           .continpc = 0x401134,
           .function = "main.main",
           .fields = {{ptr, 0}}});
  b.data({.addr = l.data, .contents = b.words({a("E"), a("A")}), .fields = {{ptr, W}}});
  b.bss({.addr = l.bss, .contents = b.words({a("Arr"), a("K")}), .fields = {{ptr, 0}, {ptr, W}}});
  b.eof();
  return b.take();
}

class OldFormatPipeline : public ::testing::TestWithParam<DumpShape> {
 protected:
  void SetUp() override {
    layout_ = layoutFor(GetParam().ptr_size);
    bytes_ = buildDump(GetParam(), layout_);
    auto d =
        dump::readDump(MappedFile::borrow(std::span<const uint8_t>(bytes_.data(), bytes_.size())));
    ASSERT_TRUE(d.ok()) << d.error().message();
    ASSERT_TRUE(d->heap_dump);
    EXPECT_EQ(d->heap_dump->version, GetParam().version);
    EXPECT_TRUE(d->warnings.empty()) << d->warnings.front();
    auto s = analysis::buildSnapshot(d.take());
    ASSERT_TRUE(s.ok()) << s.error().message();
    snap_ = s.take();
  }

  NodeId node(const std::string& name) const {
    auto n = analysis::objectAt(*snap_, layout_.addr.at(name));
    EXPECT_TRUE(n.has_value()) << name;
    return n.value_or(kNoNode);
  }
  NodeId idom(const std::string& name) const { return snap_->dom.idom[node(name)]; }
  uint64_t retained(const std::string& name) const { return snap_->retained[node(name)]; }
  // The root node of a kind (one data, one bss, one goroutine, one frame here).
  NodeId root(graph::RootKind kind) const {
    for (NodeId n = snap_->heap.objectCount(); n < snap_->heap.nodeCount(); n++) {
      if (snap_->heap.rootKind(n) == kind) return n;
    }
    ADD_FAILURE() << "no root of kind " << graph::rootKindName(kind);
    return kNoNode;
  }

  Layout layout_;
  std::vector<uint8_t> bytes_;  // the Dump borrows them
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(OldFormatPipeline, EveryObjectIsFoundAtItsAddress) {
  ASSERT_EQ(snap_->heap.objectCount(), 13u);
  for (const auto& [name, a] : layout_.addr) {
    NodeId n = node(name);
    ASSERT_NE(n, kNoNode);
    EXPECT_EQ(snap_->address(n), a) << name;
    EXPECT_EQ(snap_->shallowSize(n), layout_.size.at(name)) << name;
  }
  // An interior address finds its object; the first byte after it does not.
  EXPECT_EQ(analysis::objectAt(*snap_, layout_.addr.at("B") + layout_.W), node("B"));
  EXPECT_EQ(analysis::objectAt(*snap_, layout_.addr.at("B") + 4 * layout_.W - 1), node("B"));
  EXPECT_FALSE(analysis::objectAt(*snap_, layout_.addr.at("B") + 4 * layout_.W).has_value());
}

TEST_P(OldFormatPipeline, ReachabilityAndGarbage) {
  const uint64_t W = layout_.W;
  for (const char* name : {"A", "B", "C", "D", "Arr", "X1", "X2", "X3", "K", "Z"}) {
    EXPECT_TRUE(snap_->reachable(node(name))) << name;
  }
  // E: nothing points at it. F: only E (a pointer slot) and C (not a slot).
  // Y: only non-slot words of Arr. The data segment's first word names E
  // but is not a slot; A's third word names E but is not a slot.
  for (const char* name : {"E", "F", "Y"}) {
    EXPECT_FALSE(snap_->reachable(node(name))) << name;
    EXPECT_EQ(idom(name), kNoNode) << name;
  }
  EXPECT_EQ(snap_->reachable_objects, 10u);
  EXPECT_EQ(snap_->reachable_bytes, 35 * W);
  EXPECT_EQ(snap_->garbage_objects, 3u);
  EXPECT_EQ(snap_->garbage_bytes, 12 * W);

  analysis::Summary s = analysis::summarize(*snap_, 10);
  EXPECT_EQ(s.objects, 13u);
  EXPECT_EQ(s.bytes, 47 * W);
  EXPECT_EQ(s.reachable_objects, 10u);
  EXPECT_EQ(s.garbage_objects, 3u);
  EXPECT_EQ(s.pointers, 9u);
  EXPECT_EQ(s.ptr_size, W);
  EXPECT_EQ(s.big_endian, GetParam().big_endian);
}

TEST_P(OldFormatPipeline, ImmediateDominators) {
  const NodeId data = root(graph::RootKind::DataSegment);
  const NodeId bss = root(graph::RootKind::BssSegment);
  EXPECT_EQ(idom("A"), data);
  EXPECT_EQ(idom("B"), node("A"));  // through A's interior pointer
  EXPECT_EQ(idom("C"), node("B"));
  EXPECT_EQ(idom("D"), snap_->heap.superRoot());  // data -> A -> D and goroutine -> frame -> D
  EXPECT_EQ(idom("Arr"), bss);
  for (const char* x : {"X1", "X2", "X3"}) EXPECT_EQ(idom(x), node("Arr")) << x;
  EXPECT_EQ(idom("K"), bss);
  EXPECT_EQ(idom("Z"), node("K"));  // found only by the conservative scan (go1.3)
  EXPECT_EQ(snap_->dom.idom[data], snap_->heap.superRoot());
  EXPECT_EQ(snap_->dom.idom[root(graph::RootKind::StackFrame)], root(graph::RootKind::Goroutine));
}

TEST_P(OldFormatPipeline, RetainedSizes) {
  const uint64_t W = layout_.W;
  EXPECT_EQ(retained("C"), 8 * W);
  EXPECT_EQ(retained("B"), 12 * W);
  EXPECT_EQ(retained("A"), 16 * W);
  EXPECT_EQ(retained("D"), 2 * W);
  for (const char* x : {"X1", "X2", "X3"}) EXPECT_EQ(retained(x), 2 * W) << x;
  EXPECT_EQ(retained("Arr"), 12 * W);
  EXPECT_EQ(retained("Z"), 2 * W);
  EXPECT_EQ(retained("K"), 5 * W);
  EXPECT_EQ(snap_->retained[root(graph::RootKind::DataSegment)], 16 * W);
  EXPECT_EQ(snap_->retained[root(graph::RootKind::BssSegment)], 17 * W);
  EXPECT_EQ(snap_->retained[root(graph::RootKind::StackFrame)], 0u);
  EXPECT_EQ(snap_->retained[root(graph::RootKind::Goroutine)], 0u);
  EXPECT_EQ(snap_->retained[snap_->heap.superRoot()], 35 * W);
  // Garbage retains nothing, however much it points at.
  for (const char* name : {"E", "F", "Y"}) EXPECT_EQ(retained(name), 0u) << name;
}

TEST_P(OldFormatPipeline, PathsNameTheSlotsTheyGoThrough) {
  const uint64_t W = layout_.W;
  // C: data segment (+W) -> A (+0, the interior pointer into B) -> B (+0) -> C.
  auto paths = analysis::pathsToRoots(*snap_, node("C"), 5);
  ASSERT_EQ(paths.size(), 1u);
  const auto& steps = paths[0].steps;
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].node.kind, "data segment");
  EXPECT_EQ(steps[0].offset, W);
  EXPECT_EQ(steps[0].slot_address, layout_.data + W);
  EXPECT_EQ(steps[1].node.address, layout_.addr.at("A"));
  EXPECT_EQ(steps[1].offset, 0u);
  EXPECT_EQ(steps[2].node.address, layout_.addr.at("B"));
  EXPECT_EQ(steps[2].offset, 0u);
  EXPECT_EQ(steps[3].node.address, layout_.addr.at("C"));
  EXPECT_FALSE(steps[3].offset.has_value());

  // D: one path per root, both three steps long.
  auto to_d = analysis::pathsToRoots(*snap_, node("D"), 5);
  ASSERT_EQ(to_d.size(), 2u);
  std::vector<std::string> first_kinds;
  for (const auto& p : to_d) {
    EXPECT_EQ(p.steps.size(), 3u);
    first_kinds.push_back(p.steps[0].node.kind);
  }
  std::sort(first_kinds.begin(), first_kinds.end());
  EXPECT_EQ(first_kinds, (std::vector<std::string>{"data segment", "goroutine"}));

  // Garbage has no path.
  EXPECT_TRUE(analysis::pathsToRoots(*snap_, node("Y"), 5).empty());
}

TEST_P(OldFormatPipeline, GoroutineAndItsFrame) {
  auto gs = analysis::goroutines(*snap_);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(gs[0].id, 1u);
  EXPECT_EQ(gs[0].wait_reason, "chan receive");
  ASSERT_EQ(gs[0].frames.size(), 1u);
  EXPECT_EQ(gs[0].frames[0].function, "main.main");
  EXPECT_EQ(gs[0].frames[0].frame_size, 2 * layout_.W);
  EXPECT_EQ(gs[0].retained, 0u);
}

std::vector<DumpShape> oldShapes() {
  std::vector<DumpShape> out;
  for (FormatVersion v : {FormatVersion::Go13, FormatVersion::Go14, FormatVersion::Go15}) {
    out.push_back({v, 8, false});
    out.push_back({v, 4, true});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(OldFormats, OldFormatPipeline, ::testing::ValuesIn(oldShapes()),
                         [](const auto& param_info) {
                           return testsupport::shapeName(param_info.param);
                         });

}  // namespace
}  // namespace goheap
