// Real cores written by the Linux kernel (and, for arm64, by qemu-user): tests/programs/coreprog,
// built by make-dumps.sh with each Go release, is run here in a temporary directory with the core
// size limit raised; it reports where its heap values are and what they hold, and dies of SIGABRT
// with GOTRACEBACK=crash. The core must hold those bytes, the executable (through the memory
// image's fallback) the string constant, NT_FILE must name the executable, AT_ENTRY minus the load
// bias must be the executable's own e_entry, and a thread must have been in its text. The heap
// objects walked from the core must match the heap dump the program wrote just before it died,
// and so must each object's pointer words, read from the runtime's GC metadata.
// The core (about 40 MB) is deleted at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/pointer_masks.h"
#include "core/runtime_layout.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/open_heap.h"
#include "support/param_names.h"
#include "util/format.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;

std::vector<uint8_t> fromHex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// e_entry and e_type read from the executable's own header (ELF64,
// little-endian: the amd64 test programs), independently of bin/.
void elfEntry(const std::string& exe, uint64_t& entry, uint16_t& type) {
  std::ifstream in(exe, std::ios::binary);
  unsigned char h[32] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  type = static_cast<uint16_t>(h[16] | h[17] << 8);
  entry = 0;
  for (int i = 7; i >= 0; --i) entry = entry << 8 | h[24 + i];
}

// Checks a core of coreprog against its report: the executable matches,
// AT_ENTRY minus the bias is its own e_entry, the values' bytes are in the
// core, the constant comes from the executable, and a thread was in .text.
// The kernel leaves read-only data out (`rodata_left_out`); qemu-user does not.
void expectHoldsReport(const core::CoreFile& core, const std::string& exe, const JsonValue& report,
                       bool rodata_left_out) {
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  const bin::Container& c = binary->container();
  // The match checks, each made (but the path without NT_FILE) and passed.
  const core::ExecutableMatch match = core::checkExecutable(core, c, exe);
  EXPECT_TRUE(match.matches()) << match.mismatch();
  ASSERT_FALSE(match.checks.empty());
  for (const auto& check : match.checks) {
    EXPECT_TRUE(check.checked || (check.name == "path" && core.files().empty()))
        << check.name << ": " << check.detail;
  }
  // AT_ENTRY - bias = the executable's own e_entry.
  uint64_t e_entry = 0;
  uint16_t e_type = 0;
  elfEntry(exe, e_entry, e_type);
  ASSERT_TRUE(core.aux(core::kAtEntry));
  EXPECT_EQ(*core.aux(core::kAtEntry) - match.bias, e_entry);
  if (e_type == 2) {
    EXPECT_EQ(match.bias, 0u);
  }

  // Every value's bytes, from the core.
  const core::MemoryImage mem(core, c, match.bias);
  ASSERT_GT(report["values"].size(), 0u);
  for (const JsonValue& v : report["values"].items()) {
    const uint64_t addr = v["addr"].hexAddress();
    const std::vector<uint8_t> want = fromHex(v["hex"].str());
    auto got = mem.read(addr, want.size());
    ASSERT_TRUE(got) << v["name"].str() << ": " << got.error().message();
    EXPECT_EQ(std::vector<uint8_t>(got->begin(), got->end()), want) << v["name"].str();
    EXPECT_EQ(mem.sourceOf(addr), core::MemorySource::Core) << v["name"].str();
  }
  // The string constant, which the dumper leaves out: from the executable.
  const uint64_t rodata = report["rodata"]["addr"].hexAddress();
  const std::string text = report["rodata"]["text"].str();
  core::MemoryImage alone(core);
  if (rodata_left_out) {
    EXPECT_FALSE(alone.read(rodata, text.size())) << "the core holds read-only data after all";
    EXPECT_EQ(mem.sourceOf(rodata), core::MemorySource::Executable);
  }
  auto got = mem.read(rodata, text.size());
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(std::string(got->begin(), got->end()), text);

  // A thread was running in the executable's text.
  const bin::Section* t = c.section(".text");
  ASSERT_NE(t, nullptr);
  bool in_text = false;
  for (const core::Thread& th : core.threads()) {
    in_text = in_text || (th.pc >= t->addr + match.bias && th.pc < t->addr + t->size + match.bias);
    EXPECT_NE(th.sp, 0u);
  }
  EXPECT_TRUE(in_text) << core.threads().size() << " threads, none in .text";
  for (const std::string& w : core.warnings()) {
    EXPECT_EQ(w.find("cut short"), std::string::npos) << w;
  }
}

// The index of the walked object holding `addr`, or -1.
int64_t objectHolding(const core::HeapObjects& heap, uint64_t addr) {
  auto it = std::upper_bound(heap.addr.begin(), heap.addr.end(), addr);
  if (it == heap.addr.begin()) return -1;
  const size_t i = static_cast<size_t>(it - heap.addr.begin()) - 1;
  return addr < heap.addr[i] + heap.size[i] ? static_cast<int64_t>(i) : -1;
}

bool withinOnePercent(uint64_t got, uint64_t want) {
  const double g = static_cast<double>(got), w = static_cast<double>(want);
  return g >= w * 0.99 && g <= w * 1.01;
}

// The heap objects walked from the core against the heap dump the program
// wrote just before it died (the oracle): the dump's reachable objects are
// found at the same address with the same size, all its objects and the
// walk's agree in count and bytes within 1% (writing the dump sweeps and
// allocates, so they differ a little), and every address the program
// reported lies in a walked object. Sets `dump_objects` and `dump_bytes` to
// the dump's counts, and `dump_with_pointers` to how many of its objects have
// pointers.
void expectHeapMatchesDump(const core::CoreFile& core, const std::string& exe,
                           const std::string& dump_path, const JsonValue& report,
                           uint64_t& dump_objects, uint64_t& dump_bytes,
                           uint64_t& dump_with_pointers) {
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  const bin::Container& c = binary->container();
  auto dwarf = bin::DebugInfo::read(c);
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  auto layout = core::readRuntimeLayout(*dwarf, c.ptr_size);
  ASSERT_TRUE(layout) << layout.error().message();
  const core::MemoryImage mem(core, c, core::checkExecutable(core, c, exe).bias);
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto heap = core::walkHeap(mem, *layout, told);
  ASSERT_TRUE(heap) << heap.error().message();
  for (const std::string& w : warnings) ADD_FAILURE() << w;
  EXPECT_GT(heap->count(), 2000u);

  auto snap = testing::openSnapshot(dump_path, {}, false);
  ASSERT_TRUE(snap) << snap.error().message();
  const analysis::Snapshot& s = **snap;
  dump_objects = 0;
  dump_bytes = 0;
  uint64_t reachable = 0, reachable_found = 0;
  for (size_t n = 0; n < s.model.objects.count(); ++n) {
    if (s.model.objects.isSpanMetadata(n)) continue;
    const uint64_t addr = s.model.objects.addr[n], size = s.model.objects.size[n];
    ++dump_objects;
    dump_bytes += size;
    if (!s.reachable(static_cast<NodeId>(n))) continue;
    ++reachable;
    const int64_t i = objectHolding(*heap, addr);
    if (i >= 0 && heap->addr[i] == addr && heap->size[i] == size) ++reachable_found;
  }
  const double found = reachable == 0 ? 0
                                      : 100.0 * static_cast<double>(reachable_found) /
                                            static_cast<double>(reachable);
  std::cout << "[ heap walk ] " << exe << ": walked " << heap->spans_in_use << " of " << heap->spans
            << " spans, " << heap->count() << " objects, " << heap->bytes
            << " bytes; the dump: " << dump_objects << " objects, " << dump_bytes << " bytes, "
            << reachable_found << " of " << reachable << " reachable found (" << found << "%)\n";
  EXPECT_GE(found, 99.5);
  EXPECT_TRUE(withinOnePercent(heap->count(), dump_objects))
      << heap->count() << " objects walked, " << dump_objects << " in the dump";
  EXPECT_TRUE(withinOnePercent(heap->bytes, dump_bytes))
      << heap->bytes << " bytes walked, " << dump_bytes << " in the dump";

  // Pointer words: for each object the dump and the walk share (address and
  // size), the dump's pointer slots (its writer's makeheapobjbv reads the
  // same GC metadata) must be the core's.
  auto bits = core::readHeapBitsLayout(*dwarf, c.ptr_size, c.arch);
  ASSERT_TRUE(bits) << bits.error().message();
  warnings.clear();
  const core::PointerMasks masks = core::readPointerMasks(mem, *layout, *bits, *heap, told);
  for (const std::string& w : warnings) std::cout << "[ pointers ] warning: " << w << "\n";
  // Objects over 512 bytes with pointers: from a type (malloc header or
  // largeType) on Go 1.22+, not from span heap bits.
  uint64_t compared = 0, agree = 0, typed = 0;
  uint64_t& with_pointers = dump_with_pointers;
  with_pointers = 0;
  std::vector<uint64_t> want, got;
  for (size_t n = 0; n < s.model.objects.count(); ++n) {
    if (s.model.objects.isSpanMetadata(n)) continue;
    const int64_t i = objectHolding(*heap, s.model.objects.addr[n]);
    if (i < 0 || heap->addr[i] != s.model.objects.addr[n] ||
        heap->size[i] != s.model.objects.size[n]) {
      continue;
    }
    want.clear();
    got.clear();
    s.model.forEachObjectSlot(n, [&](uint64_t off) { want.push_back(off); });
    masks.layouts.forEachOffset(masks.layout[i], [&](uint64_t off) { got.push_back(off); });
    ++compared;
    with_pointers += want.empty() ? 0 : 1;
    typed += !want.empty() && heap->size[i] > 512 ? 1 : 0;
    if (want == got) {
      ++agree;
    } else if (compared - agree <= 5) {
      std::cout << "[ pointers ] " << formatHex(heap->addr[i]) << " (" << heap->size[i]
                << " bytes): the dump has " << want.size() << " slots, the core " << got.size()
                << "\n";
    }
  }
  const double agreed =
      compared == 0 ? 0 : 100.0 * static_cast<double>(agree) / static_cast<double>(compared);
  std::cout << "[ pointers ] " << exe << ": " << agree << " of " << compared
            << " objects agree with the dump (" << agreed << "%), " << with_pointers
            << " with pointers in the dump (" << typed
            << " of them over 512 bytes); the core: " << masks.objects_with_pointers
            << " objects with " << masks.pointer_words << " pointer words\n";
  EXPECT_GE(agreed, 99.5);

  std::vector<std::string> reported;
  for (const JsonValue& v : report["values"].items()) reported.push_back(v["addr"].str());
  for (const JsonValue& v : report["held"].items()) reported.push_back(v.str());
  EXPECT_GT(reported.size(), 20u);
  for (const std::string& a : reported) {
    EXPECT_GE(objectHolding(*heap, std::stoull(a, nullptr, 16)), 0)
        << a << " is in no walked object";
  }
}

class KernelCore : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelCore, HoldsWhatTheProgramReported) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  testing::KernelCoreRun run;
  const std::string dump_path = run.dir.path + "/heap.dump";
  testing::runForKernelCore(exe, run, {dump_path});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  const std::string& core_path = run.core;
  const std::string& report_path = run.report;
  const JsonValue report = JsonValue::parseFile(report_path);

  auto core = core::CoreFile::open(core_path);
  ASSERT_TRUE(core) << core.error().message();
  EXPECT_EQ(core->arch(), "amd64");
  EXPECT_EQ(core->process().has_value() ? std::string(core->process()->name) : "", "coreprog");
  // NT_FILE names the executable.
  const std::string canonical = fs::canonical(exe).string();
  bool named = false;
  for (const auto& f : core->files()) named = named || f.path == canonical;
  EXPECT_TRUE(named) << "NT_FILE does not name " << canonical;
  expectHoldsReport(*core, exe, report, true);
  uint64_t dump_objects = 0, dump_bytes = 0, dump_with_pointers = 0;
  expectHeapMatchesDump(*core, exe, dump_path, report, dump_objects, dump_bytes,
                        dump_with_pointers);

  // goheap core-info says the same: the machine, the threads, the match.
  const testing::RunResult info = testing::runGoheap({"core-info", "--json", core_path, exe});
  ASSERT_TRUE(info.exited && info.code == 0) << info.describe();
  const JsonValue json = JsonValue::parse(info.out);
  EXPECT_EQ(json["arch"].str(), "amd64");
  EXPECT_EQ(json["threads"].size(), core->threads().size());
  EXPECT_TRUE(json["executable"]["matches"].boolean());
  // With --heap, the heap's objects and bytes, as the dump has them.
  const testing::RunResult heap_info =
      testing::runGoheap({"core-info", "--json", "--heap", core_path, exe});
  ASSERT_TRUE(heap_info.exited && heap_info.code == 0) << heap_info.describe();
  const JsonValue heap_json = JsonValue::parse(heap_info.out)["heap"];
  EXPECT_TRUE(withinOnePercent(heap_json["objects"].u64(), dump_objects)) << heap_info.out;
  EXPECT_TRUE(withinOnePercent(heap_json["bytes"].u64(), dump_bytes)) << heap_info.out;
  EXPECT_GT(heap_json["large_objects"].u64(), 0u);
  EXPECT_EQ(heap_json["warnings"].size(), 0u);
  // and how many objects have pointers, as the dump has them.
  EXPECT_TRUE(
      withinOnePercent(heap_json["pointers"]["objects_with_pointers"].u64(), dump_with_pointers))
      << heap_info.out;
  EXPECT_EQ(heap_json["pointers"]["warnings"].size(), 0u) << heap_info.out;
  // and refuses another release's build of the program.
  const std::string other = std::string(GOHEAP_TESTDUMPS_DIR) + "/" +
                            (GetParam() == "go1.24" ? "go1.26" : "go1.24") + "/coreprog";
  if (fs::exists(other)) {
    const testing::RunResult bad = testing::runGoheap({"core-info", core_path, other});
    EXPECT_TRUE(bad.exited && bad.code == 1) << bad.describe();
    EXPECT_NE(bad.err.find("core and executable do not match: entry 0x"), std::string::npos)
        << bad.err;
  }
}

// arm64 cores as qemu-user writes them (qemu_<prog>_<time>_<pid>.core in
// the working directory, without NT_FILE), of coreprog cross-built by
// make-dumps.sh. The kernel also writes a core of qemu itself: both go.
class QemuArm64Core : public ::testing::TestWithParam<std::string> {};

TEST_P(QemuArm64Core, HoldsWhatTheProgramReported) {
  const std::string exe =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/cross/coreprog-arm64";
  testing::KernelCoreRun run;
  testing::runForQemuArm64Core(exe, run);
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  const std::string& core_path = run.core;
  const std::string& report_path = run.report;
  auto core = core::CoreFile::open(core_path);
  ASSERT_TRUE(core) << core.error().message();
  EXPECT_EQ(core->arch(), "arm64");
  EXPECT_EQ(core->ptrSize(), 8u);
  EXPECT_FALSE(core->bigEndian());
  expectHoldsReport(*core, exe, JsonValue::parseFile(report_path), false);
  // The thread that took SIGABRT.
  bool aborted = false;
  for (const core::Thread& t : core->threads()) aborted = aborted || t.signal == 6;
  EXPECT_TRUE(aborted);
}

INSTANTIATE_TEST_SUITE_P(Versions, KernelCore,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);
INSTANTIATE_TEST_SUITE_P(Versions, QemuArm64Core,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
