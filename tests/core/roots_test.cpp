// The roots outside the stacks, read from real kernel cores of
// tests/programs/coreprog (built by make-dumps.sh with each Go release),
// against the heap dump the program wrote just before it died: the first
// module's data and bss segments and their pointer words must be the dump's
// (the dumper reads the same masks), and the words' values mostly the same
// (the program runs on between the dump and the core); the finalizers must
// be the dump's finalizer records, and those the program reported setting.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/memory_image.h"
#include "core/roots.h"
#include "core/runtime_layout.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

// One data or bss segment of the core against the dump's.
void expectSegmentMatches(const model::HeapModel& d, const model::Segment& want,
                          const core::RootSegment& got, const char* name,
                          const std::string& release) {
  ASSERT_TRUE(want.present) << name;
  EXPECT_EQ(got.addr, want.addr) << name;
  EXPECT_EQ(got.size, want.contents.size) << name;
  std::vector<uint64_t> offsets;
  d.forEachSlot(want.layout, [&](uint64_t off) { offsets.push_back(off); });
  std::sort(offsets.begin(), offsets.end());
  EXPECT_EQ(got.offsets, offsets) << name;
  EXPECT_TRUE(got.missing.empty()) << name << ": " << got.missing.size() << " words missing";
  const std::span<const uint8_t> bytes = d.bytes(want.contents);
  const WordReader words = d.words();
  uint64_t same = 0;
  for (size_t i = 0; i < got.offsets.size(); ++i) {
    const uint64_t off = got.offsets[i];
    if (off + words.ptrSize() <= bytes.size() && words.read(bytes.data() + off) == got.values[i]) {
      ++same;
    }
  }
  std::cout << "[ roots ] " << release << " " << name << ": " << got.size << " bytes at 0x"
            << std::hex << got.addr << std::dec << ", " << got.offsets.size()
            << " pointer words (dump: " << offsets.size() << "), " << same
            << " hold the dump's value\n";
  EXPECT_GE(same * 10, got.offsets.size() * 9) << name;
}

class CoreRoots : public ::testing::TestWithParam<std::string> {};

TEST_P(CoreRoots, MatchTheHeapDump) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  testing::KernelCoreRun run;
  const std::string dump_path = run.dir.path + "/heap.dump";
  testing::runForKernelCore(exe, run, {dump_path});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");
  const JsonValue report = JsonValue::parseFile(run.report);

  auto core = core::CoreFile::open(run.core);
  ASSERT_TRUE(core) << core.error().message();
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  const bin::Container& c = binary->container();
  auto dwarf = bin::DebugInfo::read(c);
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  const core::MemoryImage mem(*core, c, core::checkExecutable(*core, c, exe).bias);
  auto read = dump::readDumpFile(dump_path);
  ASSERT_TRUE(read) << read.error().message();
  const model::HeapModel& d = *read;

  // Data and bss.
  std::vector<std::string> warnings;
  WarningList told(warnings);
  auto roots = core::readDataRoots(mem, *dwarf, told);
  ASSERT_TRUE(roots) << roots.error().message();
  for (const std::string& w : warnings) ADD_FAILURE() << w;
  ASSERT_EQ(roots->modules.size(), 1u);  // no plugins
  expectSegmentMatches(d, d.data, roots->modules[0].data, "data", GetParam());
  expectSegmentMatches(d, d.bss, roots->modules[0].bss, "bss", GetParam());

  // Finalizers: the dump's records, by object and function.
  auto layout = core::readRuntimeLayout(*dwarf, c.ptr_size);
  ASSERT_TRUE(layout) << layout.error().message();
  warnings.clear();
  auto specials =
      core::readSpecials(mem, *layout, *dwarf, binary->pclntab(), binary->goVersion(), told);
  ASSERT_TRUE(specials) << specials.error().message();
  for (const std::string& w : warnings) ADD_FAILURE() << w;
  std::set<std::pair<uint64_t, uint64_t>> core_fins, dump_fins;
  std::set<std::pair<uint64_t, std::string>> named;
  uint64_t cleanups = 0;
  for (size_t i = 0; i < specials->count(); ++i) {
    named.insert({specials->obj[i], std::string(specials->fn_name[i])});
    if (specials->kind[i] == core::SpecialKind::Finalizer) {
      core_fins.insert({specials->obj[i], specials->fn_pc[i]});
    } else {
      ++cleanups;
    }
  }
  for (const model::Finalizer& f : d.finalizers) {
    if (!f.queued) dump_fins.insert({f.obj, f.fn_pc});
  }
  // The dump has one more: the file it was written to, closed (and its
  // finalizer removed) before the core; its function is os.(*file).close,
  // the same as stdin's, stdout's and stderr's.
  std::vector<std::pair<uint64_t, uint64_t>> only_core, only_dump;
  std::set_difference(core_fins.begin(), core_fins.end(), dump_fins.begin(), dump_fins.end(),
                      std::back_inserter(only_core));
  std::set_difference(dump_fins.begin(), dump_fins.end(), core_fins.begin(), core_fins.end(),
                      std::back_inserter(only_dump));
  EXPECT_TRUE(only_core.empty()) << only_core.size() << " finalizers not in the dump";
  ASSERT_EQ(only_dump.size(), 1u);
  uint64_t same_fn = 0;
  for (const auto& f : core_fins) same_fn += f.second == only_dump[0].second;
  EXPECT_GE(same_fn, 3u) << "the dump file's finalizer is not os.File's";
  std::cout << "[ roots ] " << GetParam() << ": " << core_fins.size() << " finalizers ("
            << dump_fins.size() << " in the dump), " << cleanups << " cleanups, "
            << specials->other_specials << " other specials on " << specials->spans_with_specials
            << " spans\n";
  // Those the program set: finalizers with their functions, and cleanups
  // (runtime.AddCleanup wraps the function in a closure of its own, so only
  // the object is reported).
  ASSERT_GT(report["finalizers"].size(), 0u);
  for (const JsonValue& f : report["finalizers"].items()) {
    const uint64_t addr = f["addr"].hexAddress();
    EXPECT_TRUE(named.count({addr, f["func"].str()}))
        << "finalizer " << f["addr"].str() << " " << f["func"].str() << " not in the core";
  }
  std::set<uint64_t> cleaned;
  for (size_t i = 0; i < specials->count(); ++i) {
    if (specials->kind[i] == core::SpecialKind::Cleanup) cleaned.insert(specials->obj[i]);
  }
  std::set<uint64_t> reported;
  if (report.has("cleanups")) {
    for (const JsonValue& a : report["cleanups"].items()) reported.insert(a.hexAddress());
  }
  EXPECT_EQ(cleaned, reported);
}

INSTANTIATE_TEST_SUITE_P(Versions, CoreRoots,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
