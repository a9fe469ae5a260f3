// Stack scanning of real kernel cores of tests/programs/coreprog (built by
// make-dumps.sh with each Go release) against the heap dump the program wrote
// just before it died: the dumper lists each frame's live pointer words from
// the same stack maps, so for every goroutine in both (by id) and every
// physical frame in both (by sp and pc) the core's pointer offsets, frame
// size, entry and continuation PC must be the dump's. Goroutines that ran
// between the dump and the crash (the one that wrote the dump and died) have
// other frames and are not compared. The goroutines' defer and panic
// records must be the dump's where the same goroutine holds them.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/goroutines.h"
#include "core/memory_image.h"
#include "core/stack_scan.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/kernel_core.h"
#include "support/param_names.h"

namespace goheap {
namespace {

// The frames of the core and the dump compared, and how many agree.
struct FrameCounts {
  uint64_t goroutines = 0, frames = 0, compared = 0, matched = 0, pointer_words = 0;
};

// Compares goroutine `g`'s scanned frames with dump goroutine `dg`'s.
void compareFrames(const dump::Dump& d, const dump::Goroutine& dg, const core::StackScan& scan,
                   uint32_t gi, FrameCounts& counts) {
  std::map<std::pair<uint64_t, uint64_t>, const dump::StackFrame*> by_sp_pc;
  for (uint32_t k = 0; k < dg.frame_count; ++k) {
    const dump::StackFrame& f = d.frames[dg.first_frame + k];
    by_sp_pc[{f.sp, f.pc}] = &f;
  }
  for (const core::StackScanFrame& f : scan.frames) {
    if (f.goroutine != gi) continue;
    ++counts.frames;
    const auto it = by_sp_pc.find({f.sp, f.pc});
    if (it == by_sp_pc.end()) continue;
    const dump::StackFrame& want = *it->second;
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

class StackScanCore : public ::testing::TestWithParam<std::string> {};

TEST_P(StackScanCore, FramesMatchTheHeapDump) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  testing::KernelCoreRun run;
  const std::string dump_path = run.dir.path + "/heap.dump";
  testing::runForKernelCore(exe, run, {dump_path});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");

  auto core = core::CoreFile::open(run.core);
  ASSERT_TRUE(core) << core.error().message();
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  auto dwarf = bin::DebugInfo::read(binary->container());
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  const core::ExecutableMatch match = core::checkExecutable(*core, binary->container(), exe);
  ASSERT_TRUE(match.matches()) << match.mismatch();
  const core::MemoryImage mem(*core, binary->container(), match.bias);
  auto gs = core::readGoroutines(*core, mem, *binary, *dwarf, match.bias);
  ASSERT_TRUE(gs) << gs.error().message();
  auto scan = core::scanStacks(*gs, mem, *binary, *dwarf, match.bias);
  ASSERT_TRUE(scan) << scan.error().message();
  for (const std::string& w : scan->warnings) ADD_FAILURE() << w;
  auto read = dump::readDumpFile(dump_path);
  ASSERT_TRUE(read) << read.error().message();
  const dump::Dump& d = *read;

  std::map<uint64_t, const dump::Goroutine*> dump_by_id;
  for (const dump::Goroutine& g : d.goroutines) dump_by_id[g.goid] = &g;
  FrameCounts counts;
  std::map<uint64_t, uint32_t> same_g;  // g address -> core goroutine, for defers and panics
  for (uint32_t gi = 0; gi < gs->goroutines.size(); ++gi) {
    const core::Goroutine& g = gs->goroutines[gi];
    const auto it = dump_by_id.find(g.goid);
    if (it == dump_by_id.end()) continue;
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
  uint64_t scanned = 0;
  for (const core::StackObject& o : scan->objects) {
    const core::Goroutine& g = gs->goroutines[scan->frames[o.frame].goroutine];
    EXPECT_GE(o.addr, g.stack_lo);
    EXPECT_LE(o.addr + o.size, g.stack_hi);
    for (uint32_t off : scan->offsetsOf(o)) EXPECT_LT(off, o.size);
    scanned += o.scanned ? 1 : 0;
  }

  // Defers and panics of the goroutines the dump and the core share.
  uint64_t defers_compared = 0, panics_compared = 0;
  std::map<uint64_t, const core::StackDefer*> core_defers;
  for (const core::StackDefer& x : scan->defers) core_defers[x.addr] = &x;
  for (const dump::Defer& want : d.defers) {
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
  for (const dump::Panic& want : d.panics) {
    if (!same_g.contains(want.goroutine)) continue;
    ++panics_compared;
    const auto it = core_panics.find(want.addr);
    ASSERT_NE(it, core_panics.end()) << "panic at 0x" << std::hex << want.addr;
    EXPECT_EQ(it->second->eface_type, want.eface_type);
    EXPECT_EQ(it->second->eface_data, want.eface_data);
    EXPECT_EQ(it->second->link, want.link);
  }

  std::cout << "[ stacks ] " << GetParam() << ": " << counts.goroutines << " goroutines in both, "
            << counts.frames << " core frames, " << counts.compared << " also in the dump, "
            << counts.matched << " with the dump's " << counts.pointer_words << " pointer words; "
            << scan->objects.size() << " stack objects, " << scanned << " scanned; defers "
            << scan->defers.size() << " (" << defers_compared << " compared with the dump's "
            << d.defers.size() << "), panics " << scan->panics.size() << " (" << panics_compared
            << " of " << d.panics.size() << ")\n";
}

INSTANTIATE_TEST_SUITE_P(Versions, StackScanCore, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
