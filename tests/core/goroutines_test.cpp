// The goroutines read from a real core, against the runtime's own traceback:
// tests/programs/goroutineprog starts goroutines blocked in known ways,
// reports their ids and the functions their stacks must show, and dies of
// SIGABRT with GOTRACEBACK=crash, so the runtime prints every goroutine
// (its id, status or wait reason, frames and creator) on stderr before the
// kernel writes the core. Every goroutine the traceback lists must be read
// from the core with the same status text, the same function names in order
// (with the same sp and pc) and the same creator. amd64 cores are the kernel's; arm64 ones, of the
// cross-built program, qemu-user's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "bin/inline.h"
#include "core/core_file.h"
#include "core/goroutines.h"
#include "core/memory_image.h"
#include "support/core_builder.h"
#include "support/core_goroutines.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;

// One goroutine as the traceback printed it.
struct Traced {
  std::string status;              // in the brackets, up to a ", N minutes"
  std::vector<std::string> funcs;  // innermost first
  // Each physical frame's "sp=0x... pc=0x..." (GOTRACEBACK=crash prints
  // them on the file line; inlined calls have none).
  std::vector<std::pair<uint64_t, uint64_t>> sp_pc;
  std::string created_by;
};

// The goroutines of a GOTRACEBACK=crash traceback by id; goroutine 0 (an
// M's g0 or signal stack, not in allgs) is left out. A block is a
// "goroutine N ... [status]:" line, its frames (a function line, then a
// tab-indented file line) and "created by F in goroutine M", up to a blank
// line.
std::map<uint64_t, Traced> parseTraceback(const std::string& text) {
  std::map<uint64_t, Traced> out;
  std::istringstream in(text);
  Traced* cur = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("goroutine ", 0) == 0 && line.ends_with("]:")) {
      const uint64_t id = std::stoull(line.substr(10));
      const size_t open = line.rfind('[');
      std::string status = line.substr(open + 1, line.size() - open - 3);
      status = status.substr(0, status.find(','));
      if (const size_t scan = status.find(" (scan)"); scan != std::string::npos) {
        status.erase(scan);
      }
      cur = nullptr;
      if (id != 0 && !out.contains(id)) cur = &(out[id] = Traced{status, {}, {}, {}});
      continue;
    }
    if (line.empty()) {
      cur = nullptr;
      continue;
    }
    if (cur == nullptr || line.rfind("...", 0) == 0) continue;
    if (line[0] == '\t') {
      const size_t sp = line.find(" sp=0x"), pc = line.find(" pc=0x");
      if (sp != std::string::npos && pc != std::string::npos) {
        cur->sp_pc.emplace_back(std::stoull(line.substr(sp + 6), nullptr, 16),
                                std::stoull(line.substr(pc + 6), nullptr, 16));
      }
      continue;
    }
    if (line.rfind("created by ", 0) == 0) {
      cur->created_by = line.substr(11, line.find(" in goroutine") - 11);
      continue;
    }
    const size_t paren = line.rfind('(');
    if (paren != std::string::npos && paren > 0) cur->funcs.push_back(line.substr(0, paren));
  }
  return out;
}

std::vector<std::string> functionNames(const core::Goroutines& gs, const core::Goroutine& g) {
  std::vector<std::string> out;
  for (const core::StackFrame& f : gs.framesOf(g)) {
    out.push_back(bin::funcNameForPrint(f.where.function));
  }
  return out;
}

bool containsInOrder(const std::vector<std::string>& all, const std::vector<std::string>& part) {
  for (size_t i = 0; i + part.size() <= all.size(); ++i) {
    if (std::equal(part.begin(), part.end(), all.begin() + static_cast<ptrdiff_t>(i))) return true;
  }
  return false;
}

// Reads the goroutines of RUN's core of EXE and compares them with the
// traceback in its output and the program's report.
void expectMatchesTraceback(const testing::KernelCoreRun& run, const std::string& exe,
                            const std::string& label) {
  const std::string& core_path = run.core;
  const std::string& report_path = run.report;
  const JsonValue report = JsonValue::parseFile(report_path);
  const std::map<uint64_t, Traced> traced =
      parseTraceback(testing::readText(run.dir.path + "/output.txt"));
  ASSERT_FALSE(traced.empty()) << "no traceback in the program's output";

  auto opened = testing::readCoreGoroutines(core_path, exe);
  ASSERT_TRUE(opened) << opened.error().message();
  const core::Goroutines* gs = &opened->goroutines;
  const bin::Binary* binary = opened->binary.get();
  for (const std::string& w : opened->warnings) ADD_FAILURE() << w;

  // The same goroutines.
  std::set<uint64_t> ours, theirs;
  std::map<uint64_t, const core::Goroutine*> by_id;
  for (const core::Goroutine& g : gs->goroutines) {
    ours.insert(g.goid);
    by_id[g.goid] = &g;
  }
  for (const auto& [id, t] : traced) theirs.insert(id);
  EXPECT_EQ(ours, theirs);

  // Each one's status text, frames and creator.
  size_t unwound_elsewhere = 0, statuses = 0, stacks = 0, traced_stacks = 0, creators = 0,
         traced_creators = 0;
  for (const auto& [id, t] : traced) {
    const auto it = by_id.find(id);
    if (it == by_id.end()) continue;
    const core::Goroutine& g = *it->second;
    const std::string status = gs->statusText(g);
    EXPECT_EQ(status, t.status) << "goroutine " << id;
    statuses += status == t.status;
    if (g.frame_count == 0) {
      // Only a goroutine running on a thread whose registers are elsewhere
      // (the signal handler's stack) may have none, and it says why.
      EXPECT_EQ(status, "running") << "goroutine " << id << ": no frames: " << g.note;
      EXPECT_FALSE(g.note.empty()) << "goroutine " << id;
      ++unwound_elsewhere;
    } else if (!t.funcs.empty()) {
      ++traced_stacks;
      const std::vector<std::string> names = functionNames(*gs, g);
      EXPECT_EQ(names, t.funcs) << "goroutine " << id << " [" << t.status << "] " << g.note;
      std::vector<std::pair<uint64_t, uint64_t>> sp_pc;
      for (const core::StackFrame& f : gs->framesOf(g)) {
        if (!f.where.inlined) sp_pc.emplace_back(f.sp, f.pc);
      }
      EXPECT_FALSE(t.sp_pc.empty()) << "goroutine " << id << ": no sp= in the traceback";
      EXPECT_EQ(sp_pc, t.sp_pc) << "goroutine " << id << ": frames' sp and pc";
      stacks += names == t.funcs && sp_pc == t.sp_pc;
    }
    const std::string by = bin::funcNameForPrint(gs->createdBy(g, *binary, opened->bias));
    EXPECT_EQ(by, t.created_by) << "goroutine " << id;
    if (!t.created_by.empty()) {
      ++traced_creators;
      creators += by == t.created_by;
    }
  }
  // The program's own goroutines: blocked, with the functions it expects.
  size_t reported = 0;
  for (const JsonValue& r : report["goroutines"].items()) {
    const uint64_t id = r["goid"].u64();
    const auto it = by_id.find(id);
    ASSERT_NE(it, by_id.end()) << r["name"].str() << ": goroutine " << id << " not in the core";
    EXPECT_EQ(it->second->status & ~goruntime::kGscan, goruntime::kGwaiting) << r["name"].str();
    std::vector<std::string> want;
    for (const JsonValue& f : r["funcs"].items()) want.push_back(f.str());
    const std::vector<std::string> names = functionNames(*gs, *it->second);
    EXPECT_TRUE(containsInOrder(names, want)) << r["name"].str();
    EXPECT_EQ(names.empty() ? "" : names.back(), "runtime.goexit") << r["name"].str();
    ++reported;
  }
  // goheap core-info --goroutines lists the same ones, with their frames.
  const testing::RunResult info =
      testing::runGoheap({"core-info", "--json", "--goroutines", core_path, exe});
  ASSERT_TRUE(info.exited && info.code == 0) << info.describe();
  const JsonValue json = JsonValue::parse(info.out);
  std::set<uint64_t> listed;
  for (const JsonValue& g : json["goroutines"].items()) {
    listed.insert(g["goid"].u64());
    const auto it = traced.find(g["goid"].u64());
    if (it == traced.end()) continue;
    EXPECT_EQ(g["status"].str(), it->second.status);
    if (g["frames"].size() > 0 && !it->second.funcs.empty()) {
      EXPECT_EQ(g["frames"][size_t{0}]["function"].str(), it->second.funcs[0]);
    }
  }
  EXPECT_EQ(listed, theirs);
  EXPECT_GT(reported, 0u) << "the program reports no goroutine of its own";

  std::cout << label << ": " << ours.size() << " goroutines in the core, " << theirs.size()
            << " in the traceback; status " << statuses << "/" << traced.size() << ", frames "
            << stacks << "/" << traced_stacks << ", created by " << creators << "/"
            << traced_creators << ", running without frames " << unwound_elsewhere << ", reported "
            << reported << "\n";
}

// A made-up core of a real executable whose allgs holds a g that is not in
// the core, a g whose saved pc is in no function, a dead g, and a g whose
// stack is not in the core: warnings and notes, never a crash.
void putLe(std::vector<uint8_t>& buf, uint64_t at, uint64_t v, uint32_t width) {
  for (uint32_t i = 0; i < width; ++i) buf[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(CoreGoroutinesBadInput, UnreadableMemoryGivesWarningsAndNotes) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/goroutineprog";
  if (!fs::exists(exe)) GTEST_SKIP() << exe << " is missing";
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  auto dwarf = bin::DebugInfo::read(binary->container());
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  auto layout = core::GoroutineLayout::fromDwarf(*dwarf);
  ASSERT_TRUE(layout) << layout.error().message();
  const bin::Func* chain4 = nullptr;
  for (const bin::Func& f : binary->pclntab().funcs()) {
    if (f.name == "main.chain4") chain4 = &f;
  }
  ASSERT_NE(chain4, nullptr);

  // Four g pointers at 0xc000000000, then three g's.
  const uint64_t heap = 0xc000000000, g_size = layout->g_size;
  std::vector<uint8_t> mem(64 + 3 * g_size, 0);
  const uint64_t g1 = heap + 64, g2 = g1 + g_size, g3 = g2 + g_size;
  putLe(mem, 0, 0xdead0000, 8);
  putLe(mem, 8, g1, 8);
  putLe(mem, 16, g2, 8);
  putLe(mem, 24, g3, 8);
  auto fill = [&](uint64_t g, uint64_t goid, uint32_t status, uint64_t pc, uint64_t sp) {
    const uint64_t at = g - heap;
    putLe(mem, at + layout->goid, goid, 8);
    putLe(mem, at + layout->atomicstatus, status, 4);
    putLe(mem, at + layout->sched_pc, pc, 8);
    putLe(mem, at + layout->sched_sp, sp, 8);
    putLe(mem, at + layout->stack_lo, 0xc000100000, 8);
    putLe(mem, at + layout->stack_hi, 0xc000108000, 8);
  };
  fill(g1, 42, goruntime::kGwaiting, 0x1234, 0xc000107f00);
  fill(g2, 43, goruntime::kGdead, 0, 0);
  fill(g3, 44, goruntime::kGwaiting, chain4->entry, 0xc000107f00);
  std::vector<uint8_t> allgs(24, 0);
  putLe(allgs, 0, heap, 8);
  putLe(allgs, 8, 4, 8);
  putLe(allgs, 16, 4, 8);
  testsupport::CoreBuilder builder;
  builder.segment(layout->allgs, allgs).segment(heap, mem);
  const std::vector<uint8_t> bytes = builder.build();
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  const core::MemoryImage image(*core, binary->container(), 0);
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto gs = core::readGoroutines(*core, image, *binary, *dwarf, 0, told);
  ASSERT_TRUE(gs) << gs.error().message();

  ASSERT_EQ(gs->goroutines.size(), 2u);  // the unreadable and the dead g left out
  bool warned = false;
  for (const std::string& w : warnings) warned = warned || w.find("0xdead0000") != w.npos;
  EXPECT_TRUE(warned);
  const core::Goroutine& bad_pc = gs->goroutines[0];
  EXPECT_EQ(bad_pc.goid, 42u);
  EXPECT_EQ(bad_pc.frame_count, 0u);
  EXPECT_NE(bad_pc.note.find("no function holds pc 0x1234"), std::string::npos) << bad_pc.note;
  const core::Goroutine& no_stack = gs->goroutines[1];
  EXPECT_EQ(no_stack.goid, 44u);
  ASSERT_EQ(no_stack.frame_count, 1u);
  EXPECT_EQ(gs->framesOf(no_stack)[0].where.function, "main.chain4");
  EXPECT_NE(no_stack.note.find("unreadable"), std::string::npos) << no_stack.note;

  // An allgs whose length is absurd is an error, not an allocation.
  putLe(allgs, 8, uint64_t{1} << 40, 8);
  testsupport::CoreBuilder huge;
  huge.segment(layout->allgs, allgs).segment(heap, mem);
  const std::vector<uint8_t> huge_bytes = huge.build();
  auto huge_core = core::CoreFile::fromBytes(huge_bytes);
  ASSERT_TRUE(huge_core) << huge_core.error().message();
  const core::MemoryImage huge_image(*huge_core, binary->container(), 0);
  auto none = core::readGoroutines(*huge_core, huge_image, *binary, *dwarf, 0, nullSink());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("runtime.allgs at 0x"), std::string::npos)
      << none.error().message();
}

class CoreGoroutines : public ::testing::TestWithParam<std::string> {};

TEST_P(CoreGoroutines, MatchTheRuntimeTraceback) {
  testing::KernelCoreRun run;
  testing::runForKernelCore(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/goroutineprog",
                            run);
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  expectMatchesTraceback(run,
                         std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/goroutineprog",
                         GetParam() + " amd64");
}

// arm64, from the core qemu-user writes: the unwinder's link-register case.
class QemuArm64Goroutines : public ::testing::TestWithParam<std::string> {};

TEST_P(QemuArm64Goroutines, MatchTheRuntimeTraceback) {
  const std::string exe =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/cross/goroutineprog-arm64";
  testing::KernelCoreRun run;
  testing::runForQemuArm64Core(exe, run);
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  expectMatchesTraceback(run, exe, GetParam() + " arm64");
}

INSTANTIATE_TEST_SUITE_P(Versions, CoreGoroutines,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);
INSTANTIATE_TEST_SUITE_P(Versions, QemuArm64Goroutines, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
