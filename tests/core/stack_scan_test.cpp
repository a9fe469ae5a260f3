// Stack scanning of real cores of tests/programs/coreprog (the kernel's of
// the amd64 build, qemu-user's of the arm64 cross build; built by
// make-dumps.sh with each Go release) against the heap dump the program wrote
// just before it died: the dumper lists each frame's live pointer words from
// the same stack maps, so for every goroutine in both (by id) and every
// physical frame in both (by sp and pc) the core's pointer offsets, frame
// size, entry and continuation PC must be the dump's. Goroutines that ran
// between the dump and the crash (the one that wrote the dump and died) have
// other frames and are not compared. The goroutines' defer and panic
// records must be the dump's where the same goroutine holds them (coreprog
// parks one goroutine with two pending defers, one inside a deferred call
// while it panics); the addressed array of four record pointers in
// coreprog's parkedWithDefers must be a stack object with four pointer
// words, and the stack object holding the panicking goroutine's _panic must
// be scanned (the collector starts from g._panic).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/goroutines.h"
#include "core/memory_image.h"
#include "core/stack_scan.h"
#include "dump/reader.h"
#include "support/core_builder.h"
#include "support/core_goroutines.h"
#include "support/go_versions.h"
#include "support/kernel_core.h"
#include "support/param_names.h"
#include "util/format.h"

namespace goheap {
namespace {

// The frames of the core and the dump compared, and how many agree.
struct FrameCounts {
  uint64_t goroutines = 0, frames = 0, compared = 0, matched = 0, pointer_words = 0;
  uint64_t ran_since = 0;  // goroutines whose frames changed after the dump
};

// Whether goroutine `gi` of the scan has the frames (sp and pc) of dump
// goroutine `dg`, no more and no fewer.
bool sameFrames(const model::HeapModel& d, const model::Goroutine& dg, const core::StackScan& scan,
                uint32_t gi) {
  std::set<std::pair<uint64_t, uint64_t>> in_dump, in_core;
  for (uint32_t k = 0; k < dg.frame_count; ++k) {
    const model::StackFrame& f = d.frames[dg.first_frame + k];
    in_dump.insert({f.sp, f.pc});
  }
  for (const core::StackScanFrame& f : scan.frames) {
    if (f.goroutine == gi) in_core.insert({f.sp, f.pc});
  }
  return in_dump == in_core;
}

// Compares goroutine `g`'s scanned frames with dump goroutine `dg`'s.
void compareFrames(const model::HeapModel& d, const model::Goroutine& dg,
                   const core::StackScan& scan, uint32_t gi, FrameCounts& counts) {
  std::map<std::pair<uint64_t, uint64_t>, const model::StackFrame*> by_sp_pc;
  for (uint32_t k = 0; k < dg.frame_count; ++k) {
    const model::StackFrame& f = d.frames[dg.first_frame + k];
    by_sp_pc[{f.sp, f.pc}] = &f;
  }
  for (const core::StackScanFrame& f : scan.frames) {
    if (f.goroutine != gi) continue;
    ++counts.frames;
    const auto it = by_sp_pc.find({f.sp, f.pc});
    if (it == by_sp_pc.end()) continue;
    const model::StackFrame& want = *it->second;
    ++counts.compared;
    std::vector<uint64_t> want_offsets;
    d.forEachSlot(want.layout, [&](uint64_t off) { want_offsets.push_back(off); });
    std::sort(want_offsets.begin(), want_offsets.end());
    const std::span<const uint64_t> got = scan.offsetsOf(f);
    const std::vector<uint64_t> got_offsets(got.begin(), got.end());
    const bool same = got_offsets == want_offsets && f.fp - f.sp == want.contents.size &&
                      f.entry == want.entry_pc && f.continpc == want.continpc &&
                      f.function == want.function;
    counts.pointer_words += want_offsets.size();
    if (same) {
      ++counts.matched;
    } else {
      ADD_FAILURE() << "goroutine " << dg.goid << " frame " << f.function << " sp=0x" << std::hex
                    << f.sp << " pc=0x" << f.pc << std::dec << ": " << got_offsets.size()
                    << " pointer words (dump: " << want_offsets.size() << "), " << f.fp - f.sp
                    << " bytes (dump: " << want.contents.size << "), continpc 0x" << std::hex
                    << f.continpc << " (dump: 0x" << want.continpc << ")" << std::dec;
    }
  }
}

// Scans the stacks of RUN's core of EXE and compares them with the heap
// dump at DUMP_PATH that the program wrote before dying.
void expectStacksMatchDump(const testing::KernelCoreRun& run, const std::string& exe,
                           const std::string& dump_path, const std::string& label) {
  auto opened = testing::readCoreGoroutines(run.core, exe);
  ASSERT_TRUE(opened) << opened.error().message();
  const core::Goroutines* gs = &opened->goroutines;
  const bin::Binary* binary = opened->binary.get();
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto scan = core::scanStacks(*gs, *opened->mem, *binary, *opened->dwarf, opened->bias, told);
  ASSERT_TRUE(scan) << scan.error().message();
  for (const std::string& w : warnings) ADD_FAILURE() << w;
  auto read = dump::readDumpFile(dump_path);
  ASSERT_TRUE(read) << read.error().message();
  const model::HeapModel& d = *read;

  std::map<uint64_t, const model::Goroutine*> dump_by_id;
  for (const model::Goroutine& g : d.goroutines) dump_by_id[g.goid] = &g;
  FrameCounts counts;
  std::map<uint64_t, uint32_t> same_g;  // g address -> core goroutine, for defers and panics
  for (uint32_t gi = 0; gi < gs->goroutines.size(); ++gi) {
    const core::Goroutine& g = gs->goroutines[gi];
    const auto it = dump_by_id.find(g.goid);
    if (it == dump_by_id.end()) continue;
    // A goroutine that ran between the dump and the crash (a background one
    // of the runtime's, woken meanwhile) may have parked again at the same
    // place by another path: only one whose frames are the dump's, all of
    // them, is compared.
    if (!sameFrames(d, *it->second, *scan, gi)) {
      ++counts.ran_since;
      continue;
    }
    ++counts.goroutines;
    if (it->second->addr == g.address) same_g[g.address] = gi;
    compareFrames(d, *it->second, *scan, gi, counts);
  }
  // Only the goroutine that wrote the dump and then crashed has moved on:
  // all but a few frames are the dump's.
  EXPECT_GE(counts.goroutines, 3u);
  EXPECT_GE(counts.compared + 8, counts.frames);
  EXPECT_GT(counts.pointer_words, 0u);

  // Stack objects: inside their goroutine's stack, the scanned ones with
  // their pointer words inside the object.
  uint64_t scanned = 0, record_arrays = 0, panic_objects = 0;
  const uint32_t ptr = binary->container().ptr_size;
  for (const core::StackObject& o : scan->objects) {
    const core::StackScanFrame& f = scan->frames[o.frame];
    const core::Goroutine& g = gs->goroutines[f.goroutine];
    EXPECT_GE(o.addr, g.stack_lo);
    EXPECT_LE(o.addr + o.size, g.stack_hi);
    for (uint32_t off : scan->offsetsOf(o)) EXPECT_LT(off, o.size);
    scanned += o.scanned ? 1 : 0;
    const std::span<const uint32_t> offs = scan->offsetsOf(o);
    if (f.function == "main.parkedWithDefers" && o.size == 4 * ptr &&
        std::vector<uint32_t>(offs.begin(), offs.end()) ==
            std::vector<uint32_t>{0, ptr, 2 * ptr, 3 * ptr}) {
      ++record_arrays;
    }
    // The collector always scans the object holding g._panic (scanstack
    // starts from it).
    for (const core::StackPanic& p : scan->panics) {
      if (p.goroutine == f.goroutine && p.addr >= o.addr && p.addr < o.addr + o.size) {
        EXPECT_TRUE(o.scanned) << "the _panic at 0x" << std::hex << p.addr;
        ++panic_objects;
      }
    }
  }
  EXPECT_EQ(record_arrays, 1u) << "main.parkedWithDefers's [4]*record is not a stack object";
  EXPECT_EQ(panic_objects, 1u) << "no stack object holds the _panic";

  // Defers and panics of the goroutines the dump and the core share.
  uint64_t defers_compared = 0, panics_compared = 0;
  std::map<uint64_t, const core::StackDefer*> core_defers;
  for (const core::StackDefer& x : scan->defers) core_defers[x.addr] = &x;
  for (const model::Defer& want : d.defers) {
    if (!same_g.contains(want.goroutine)) continue;
    ++defers_compared;
    const auto it = core_defers.find(want.addr);
    ASSERT_NE(it, core_defers.end()) << "defer at 0x" << std::hex << want.addr;
    const core::StackDefer& got = *it->second;
    EXPECT_EQ(got.goroutine, same_g[want.goroutine]);
    EXPECT_EQ(got.sp, want.sp);
    EXPECT_EQ(got.pc, want.pc);
    EXPECT_EQ(got.fn_val, want.fn_val);
    EXPECT_EQ(got.fn_pc, want.fn_pc);
    EXPECT_EQ(got.link, want.link);
  }
  std::map<uint64_t, const core::StackPanic*> core_panics;
  for (const core::StackPanic& x : scan->panics) core_panics[x.addr] = &x;
  for (const model::Panic& want : d.panics) {
    if (!same_g.contains(want.goroutine)) continue;
    ++panics_compared;
    const auto it = core_panics.find(want.addr);
    ASSERT_NE(it, core_panics.end()) << "panic at 0x" << std::hex << want.addr;
    EXPECT_EQ(it->second->eface_type, want.eface_type);
    EXPECT_EQ(it->second->eface_data, want.eface_data);
    EXPECT_EQ(it->second->link, want.link);
  }

  EXPECT_GE(defers_compared, 2u);
  EXPECT_GE(panics_compared, 1u);

  std::cout << "[ stacks ] " << label << ": " << counts.goroutines << " goroutines in both ("
            << counts.ran_since << " more ran after the dump), " << counts.frames
            << " core frames, " << counts.compared << " also in the dump, " << counts.matched
            << " with the dump's " << counts.pointer_words << " pointer words; "
            << scan->objects.size() << " stack objects, " << scanned << " scanned; defers "
            << scan->defers.size() << " (" << defers_compared << " compared with the dump's "
            << d.defers.size() << "), panics " << scan->panics.size() << " (" << panics_compared
            << " of " << d.panics.size() << ")\n";
}

class StackScanCore : public ::testing::TestWithParam<std::string> {};

TEST_P(StackScanCore, FramesMatchTheHeapDump) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  testing::KernelCoreRun run;
  const std::string dump_path = run.dir.path + "/heap.dump";
  testing::runForKernelCore(exe, run, {dump_path});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  expectStacksMatchDump(run, exe, dump_path, GetParam());
}

// The same for arm64 (a link register: no return address pushed, the
// arguments above the caller's saved LR), of coreprog cross-built by
// make-dumps.sh, under qemu-user, which writes the guest's core.
class StackScanQemuArm64 : public ::testing::TestWithParam<std::string> {};

TEST_P(StackScanQemuArm64, FramesMatchTheHeapDump) {
  const std::string exe =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/cross/coreprog-arm64";
  testing::KernelCoreRun run;
  const std::string dump_path = run.dir.path + "/heap.dump";
  testing::runForQemuArm64Core(exe, run, {dump_path});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  expectStacksMatchDump(run, exe, dump_path, GetParam() + " arm64");
}

// Bad input is an Error or a warning, never a crash: a core without the
// runtime's module data is an Error naming its address; with it (the
// executable's section holding it copied into the core) but a goroutine whose PC is
// in no function and one whose stack is not in the core, warnings.
TEST(StackScan, MissingMemoryIsAnErrorOrAWarning) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27/coreprog";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << exe << " is missing (make-dumps.sh builds it)";
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  auto dwarf = bin::DebugInfo::read(binary->container());
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  const bin::GlobalVariable* md = core::runtimeGlobal(*dwarf, "runtime.firstmoduledata");
  ASSERT_NE(md, nullptr);

  core::Goroutines gs;
  const bin::Func* f = nullptr;
  for (const bin::Func& fn : binary->pclntab().funcs()) {
    if (fn.name == "main.parkedHolding") f = &fn;
  }
  ASSERT_NE(f, nullptr);
  gs.frames.push_back({0x10, 0x7000, bin::SourceFrame{"nowhere", {}, 0, false, nullptr}});
  gs.frames.push_back({f->entry + 1, 0x8000, bin::SourceFrame{f->name, {}, 0, false, f}});
  core::Goroutine lost, unmapped;
  lost.address = unmapped.address = 0x9000;
  lost.goid = 1;
  lost.frame_count = 1;
  unmapped.goid = 2;
  unmapped.first_frame = 1;
  unmapped.frame_count = 1;
  gs.goroutines = {lost, unmapped};

  auto empty = core::CoreFile::fromBytes(testsupport::CoreBuilder().build());
  ASSERT_TRUE(empty) << empty.error().message();
  const core::MemoryImage bare(*empty, binary->container(), 0);
  auto none = core::scanStacks(gs, bare, *binary, *dwarf, 0, nullSink());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find(formatHex(md->address)), std::string::npos)
      << none.error().message();

  const bin::Section* module = nullptr;
  for (const bin::Section& s : binary->container().sections) {
    if (s.has_file_data && s.addr <= md->address && md->address < s.addr + s.size) module = &s;
  }
  ASSERT_NE(module, nullptr);
  const auto bytes = binary->container().file.bytes().subspan(module->offset, module->size);
  const std::vector<uint8_t> core_bytes =
      testsupport::CoreBuilder()
          .segment(module->addr, std::vector<uint8_t>(bytes.begin(), bytes.end()))
          .build();
  auto with_md = core::CoreFile::fromBytes(core_bytes);
  ASSERT_TRUE(with_md) << with_md.error().message();
  const core::MemoryImage mem(*with_md, binary->container(), 0);
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto scan = core::scanStacks(gs, mem, *binary, *dwarf, 0, told);
  ASSERT_TRUE(scan) << scan.error().message();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no function at pc 0x10"), std::string::npos) << warnings[0];
  // The frame in unmapped memory still has its maps' words: they come from
  // the executable, not the stack.
  ASSERT_EQ(scan->frames.size(), 1u);
  EXPECT_EQ(scan->frames[0].goroutine, 1u);
  EXPECT_EQ(scan->frames[0].function, "main.parkedHolding");
  EXPECT_TRUE(scan->defers.empty());
  EXPECT_TRUE(scan->panics.empty());
}

INSTANTIATE_TEST_SUITE_P(Versions, StackScanCore,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);
INSTANTIATE_TEST_SUITE_P(Versions, StackScanQemuArm64,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
