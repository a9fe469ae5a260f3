// A core opened as every command opens a heap (query::open), against the
// heap dump the same process wrote a moment before it died and against what
// the program itself reports. Kernel cores of programs built by
// make-dumps.sh with each Go release:
//
//  - coreprog: the core's objects are the dump's (>= 99.5% of the dump's
//    reachable objects at the same address with the same size, reachable
//    bytes within 1%, all objects within 1% in count and bytes);
//  - zoo: the values it reports (%p, reflect's type) are typed exactly for
//    >= 99%, as in its dump;
//  - leaks: diff from its OLD dump to a core taken after the leaks grew
//    finds exactly the leaked Sessions at the addresses the program
//    reported, and diff between a core of each moment (two runs) finds
//    their number;
//  - leaks (every object sampled): each object of both its last dump and
//    the core has the same allocation site (stack and size) in each, and
//    `goheap top --by site` on the core names main.newSession;
//  - the CLI on a core whose executable is gone exits 2 and says where it
//    looked.
//
// Each core (about 40 MB) goes with its temporary directory.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/diff.h"
#include "analysis/histogram.h"
#include "analysis/slots.h"
#include "analysis/summary.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/open_heap.h"
#include "support/param_names.h"
#include "support/reported_types.h"
#include "util/format.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;
using testing::KernelCoreRun;

std::string testDumps(const std::string& version) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version;
}

// Skips or fails the test as the run says; true when the core is there.
#define REQUIRE_CORE(run)                                \
  do {                                                   \
    if (!(run).skip.empty()) GTEST_SKIP() << (run).skip; \
    ASSERT_TRUE((run).failure.empty()) << (run).failure; \
  } while (0)

testing::SnapshotPtr open(const std::string& path, const std::string& exe = {}) {
  auto snap = testing::openSnapshot(path, exe);
  EXPECT_TRUE(snap.ok()) << path << ": " << snap.error().message();
  return snap.ok() ? snap.take() : nullptr;
}

// Objects of `s` by address: size, and whether reachable.
std::map<uint64_t, std::pair<uint64_t, bool>> objectsOf(const analysis::Snapshot& s) {
  std::map<uint64_t, std::pair<uint64_t, bool>> out;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (s.isRuntimeMetadata(o)) continue;  // a dump's span bitmaps, no objects
    out[s.model.objects.addr[o]] = {s.model.objects.size[o], s.reachable(o)};
  }
  return out;
}

class CoreModel : public ::testing::TestWithParam<std::string> {};

// The model of `core_path` against the dump `dump_path` the same process
// wrote just before it died, and the program's report.
void expectCoreHoldsTheDump(const std::string& core_path, const std::string& dump_path,
                            const std::string& exe, const std::string& report_path,
                            bool stripped = false) {
  auto dump = open(dump_path, exe);
  auto core = open(core_path);  // the executable through NT_FILE or AT_EXECFN
  ASSERT_TRUE(dump && core);
  EXPECT_EQ(core->model.format, "core");
  EXPECT_FALSE(core->model.heap_dump.has_value());
  EXPECT_EQ(core->exe_path, exe);
  EXPECT_TRUE(core->exe) << core->exe_problem;
  // Without DWARF the types come from the runtime's type descriptors.
  EXPECT_NE(core->types, nullptr) << core->types_problem;
  if (stripped && core->exe) {
    EXPECT_EQ(core->exe->typeTableSource(), "type descriptors");
  }
  for (const std::string& w : core->model.warnings) {
    ADD_FAILURE() << "warning: " << w;
  }
  const auto in_dump = objectsOf(*dump);
  const auto in_core = objectsOf(*core);
  uint64_t reachable = 0, found = 0, reachable_bytes = 0, all_bytes = 0, core_bytes = 0;
  uint64_t core_only = 0;
  for (const auto& [addr, obj] : in_dump) {
    all_bytes += obj.first;
    if (!obj.second) continue;
    reachable++;
    reachable_bytes += obj.first;
    auto it = in_core.find(addr);
    if (it != in_core.end() && it->second.first == obj.first) found++;
  }
  for (const auto& [addr, obj] : in_core) {
    core_bytes += obj.first;
    if (!in_dump.contains(addr)) core_only++;
  }
  ASSERT_GT(reachable, 1000u);
  EXPECT_GE(found * 1000, reachable * 995) << found << " of " << reachable;
  const auto within = [](uint64_t a, uint64_t b, uint64_t percent) {
    const uint64_t d = a > b ? a - b : b - a;
    return d * 100 <= std::max(a, b) * percent;
  };
  EXPECT_TRUE(within(core->reachable_bytes, reachable_bytes, 1))
      << core->reachable_bytes << " reachable bytes in the core, " << reachable_bytes
      << " in the dump";
  EXPECT_TRUE(within(in_core.size(), in_dump.size(), 1))
      << in_core.size() << " objects in the core, " << in_dump.size() << " in the dump";
  EXPECT_TRUE(within(core_bytes, all_bytes, 1)) << core_bytes << " vs " << all_bytes;
  EXPECT_LE(core_only * 100, in_core.size()) << core_only << " objects only in the core";

  // The roots are there: goroutines with frames, data and bss, and the
  // finalizers the program set (the dump's own file adds one to the dump).
  EXPECT_TRUE(core->model.data.present && core->model.bss.present);
  EXPECT_GE(core->model.goroutines.size() + 1, dump->model.goroutines.size());
  EXPECT_FALSE(core->model.frames.empty());
  const JsonValue report = JsonValue::parseFile(report_path);
  std::set<uint64_t> finalized;
  for (const model::Finalizer& f : core->model.finalizers) finalized.insert(f.obj);
  ASSERT_GT(report["finalizers"].size(), 0u);
  for (const JsonValue& f : report["finalizers"].items()) {
    EXPECT_TRUE(finalized.contains(f["addr"].hexAddress())) << f["addr"].str();
  }
  // Its cleanups (runtime.AddCleanup, Go 1.24+): exactly the ones reported.
  std::set<std::string> cleaned, reported;
  for (const model::OtherRoot& r : core->model.other_roots) {
    if (r.description.starts_with("cleanup for ")) {
      const std::string_view rest = r.description.substr(12);
      cleaned.insert(std::string(rest.substr(0, rest.find(' '))));
    }
  }
  for (const JsonValue& c : report["cleanups"].items()) reported.insert(c.str());
  EXPECT_EQ(cleaned, reported);
  // Every value the program reports is an object of the core.
  ASSERT_GT(report["values"].size(), 0u);
  for (const JsonValue& v : report["values"].items()) {
    EXPECT_TRUE(analysis::objectAt(*core, v["addr"].hexAddress())) << v["name"].str();
  }
}

TEST_P(CoreModel, CoreHoldsTheObjectsOfTheDump) {
  const std::string exe = testDumps(GetParam()) + "/coreprog";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json", "{dir}/heap.dump"});
  REQUIRE_CORE(run);
  expectCoreHoldsTheDump(run.core, run.dir.path + "/heap.dump", exe, run.dir.path + "/report.json");
}

// A program built with -ldflags='-s -w': the runtime's layouts come from
// goheap's table and its globals are found in memory, and the heap is the
// same.
TEST_P(CoreModel, StrippedCoreHoldsTheObjectsOfTheDump) {
  const std::string exe = testDumps(GetParam()) + "/coreprog-stripped";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json", "{dir}/heap.dump"});
  REQUIRE_CORE(run);
  expectCoreHoldsTheDump(run.core, run.dir.path + "/heap.dump", exe, run.dir.path + "/report.json",
                         true);
  // memstats, found through mheap_'s allocators without a symbol, and
  // gcController, the receiver of its methods in the code, against the
  // dump's (MemStatsMatchTheDump says why these hold).
  auto dump = open(run.dir.path + "/heap.dump", exe);
  auto core = open(run.core);
  ASSERT_TRUE(dump && core);
  const model::MemStats& want = dump->model.memstats;
  const model::MemStats& got = core->model.memstats;
  ASSERT_TRUE(got.present);
  using model::MemStat;
  for (MemStat f : {MemStat::NumGC, MemStat::PauseTotalNs, MemStat::PauseNs, MemStat::LastGC,
                    MemStat::HeapAlloc, MemStat::StackInuse, MemStat::StackSys, MemStat::MSpanSys,
                    MemStat::MCacheSys, MemStat::GCSys, MemStat::OtherSys, MemStat::HeapInuse,
                    MemStat::HeapIdle, MemStat::HeapReleased, MemStat::HeapSys, MemStat::Sys,
                    MemStat::NextGC}) {
    EXPECT_TRUE(got.has(f)) << static_cast<int>(f);
  }
  EXPECT_EQ(got.num_gc, want.num_gc);
  EXPECT_EQ(got.next_gc, want.next_gc);
  EXPECT_EQ(got.pause_total_ns, want.pause_total_ns);
  EXPECT_EQ(got.pause_ns, want.pause_ns);
  EXPECT_EQ(got.last_gc, want.last_gc);
  EXPECT_GE(got.heap_alloc, dump->reachable_bytes);
  EXPECT_LE(got.heap_alloc, want.heap_alloc + 4 * 8192);
  const auto near = [](const char* what, uint64_t a, uint64_t b) {
    const uint64_t d = a > b ? a - b : b - a;
    EXPECT_TRUE(d <= 4 * 8192 || d * 50 <= std::max(a, b))
        << what << ": " << a << " in the core, " << b << " in the dump";
  };
  near("StackSys", got.stack_sys, want.stack_sys);
  near("MSpanSys", got.mspan_sys, want.mspan_sys);
  near("MCacheSys", got.mcache_sys, want.mcache_sys);
  EXPECT_GE(got.heap_inuse, got.heap_alloc);
  EXPECT_LE(got.heap_inuse, want.heap_inuse + 4 * 8192);
  near("HeapSys", got.heap_sys, want.heap_sys);
  near("HeapReleased", got.heap_released, want.heap_released);
  near("Sys", got.sys, want.sys);
}

// arm64, from the core qemu-user writes of its guest.
TEST_P(CoreModel, Arm64CoreHoldsTheObjectsOfTheDump) {
  const std::string exe = testDumps(GetParam()) + "/cross/coreprog-arm64";
  KernelCoreRun run;
  testing::runForQemuArm64Core(exe, run, {run.dir.path + "/heap.dump"});
  REQUIRE_CORE(run);
  expectCoreHoldsTheDump(run.core, run.dir.path + "/heap.dump", exe, run.report);
}

TEST_P(CoreModel, ZooValuesAreTypedAsInTheDump) {
  const std::string exe = testDumps(GetParam()) + "/zoo";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/zoo.dump", "{dir}/zoo.json", "crash"});
  REQUIRE_CORE(run);
  auto core = open(run.core, exe);
  ASSERT_TRUE(core);
  ASSERT_TRUE(testing::typesOf(*core).ok()) << testing::typesOf(*core).error().message();
  const JsonValue report = JsonValue::parseFile(run.dir.path + "/zoo.json");
  const testing::ReportedTypes t = testing::checkReportedTypes(*core, report["values"]);
  ASSERT_GT(t.total, 40u);
  EXPECT_GE(t.right * 100, t.total * 99) << t.right << " of " << t.total << " typed right:\n"
                                         << t.wrong;
}

// The leaks program's Session growth, by type, between two heaps.
void expectSessionGrowth(const analysis::Snapshot& old_snap, const analysis::Snapshot& new_snap,
                         const JsonValue& sessions) {
  const auto rows = analysis::diffGroups(old_snap, new_snap, typing::GroupKind::Type,
                                         analysis::SortKey::Retained);
  const analysis::DiffGroupRow* row = nullptr;
  for (const auto& r : rows) {
    if (r.name == sessions["type"].str()) row = &r;
  }
  ASSERT_NE(row, nullptr) << "no group " << sessions["type"].str();
  EXPECT_EQ(row->old_count, sessions["sessions_old"].u64());
  EXPECT_EQ(row->countDelta(), static_cast<int64_t>(sessions["sessions_added"].u64()));
  EXPECT_EQ(row->shallowDelta(), static_cast<int64_t>(sessions["new_bytes"].u64()));
}

// An object's allocation site: its bucket's size and stack.
using Site = std::tuple<uint64_t, std::vector<std::tuple<std::string, std::string, uint64_t>>>;

std::map<uint64_t, Site> sitesOf(const model::HeapModel& d) {
  std::map<uint64_t, const model::ProfileBucket*> buckets;
  for (const model::ProfileBucket& b : d.buckets) buckets[b.id] = &b;
  std::map<uint64_t, Site> out;
  for (const model::AllocSample& s : d.alloc_samples) {
    auto it = buckets.find(s.bucket_id);
    if (it == buckets.end()) continue;
    Site& site = out[s.addr];
    std::get<0>(site) = it->second->size;
    for (uint32_t k = 0; k < it->second->frame_count; k++) {
      const model::ProfileFrame& f = d.profile_frames[it->second->first_frame + k];
      std::get<1>(site).emplace_back(std::string(f.function), std::string(f.file), f.line);
    }
  }
  return out;
}

// Each object of both the dump and the core has the same allocation site
// in each, with the match rate printed; and `goheap top --by site` on the
// core names where the Sessions were made.
void expectSitesOfTheDump(const std::string& exe, const analysis::Snapshot& dump,
                          const analysis::Snapshot& core, const std::string& core_path,
                          const std::string& release) {
  const std::map<uint64_t, Site> want = sitesOf(dump.model);
  const std::map<uint64_t, Site> got = sitesOf(core.model);
  // MemProfileRate is 1: every object of the dump has its site.
  ASSERT_GT(want.size(), 1000u);
  size_t both = 0, same = 0;
  std::string first_diff;
  const auto in_core = objectsOf(core);
  for (const auto& [addr, _] : objectsOf(dump)) {
    auto w = want.find(addr);
    if (w == want.end() || !in_core.contains(addr)) continue;
    both++;
    auto g = got.find(addr);
    if (g != got.end() && g->second == w->second) {
      same++;
    } else if (first_diff.empty()) {
      first_diff = formatHex(addr);
    }
  }
  const double rate = both == 0 ? 0 : static_cast<double>(same) / static_cast<double>(both);
  std::printf("%s: %zu of %zu sampled objects in both have the same site (%.4f)\n", release.c_str(),
              same, both, rate);
  EXPECT_GE(rate, 0.999) << "the first that differs: " << first_diff;

  const testing::RunResult top =
      testing::runGoheap({"top", core_path, exe, "--by", "site", "-n", "0"});
  EXPECT_TRUE(top.exited && top.code == 0) << top.describe();
  EXPECT_NE(top.out.find("main.newSession"), std::string::npos) << top.out;
}

TEST_P(CoreModel, DiffFromADumpToACoreFindsTheLeakedSessions) {
  const std::string exe = testDumps(GetParam()) + "/leaks";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/leaks.dump", "{dir}/leaks.json", "crash-new"});
  REQUIRE_CORE(run);
  auto old_dump = open(run.dir.path + "/leaks.dump.old", exe);
  auto core = open(run.core, exe);
  ASSERT_TRUE(old_dump && core);
  const JsonValue report = JsonValue::parseFile(run.dir.path + "/leaks.json");
  const JsonValue& sessions = report["sessions"];
  expectSessionGrowth(*old_dump, *core, sessions);

  // The same process: the new objects are the ones it allocated.
  const analysis::NewSince added = analysis::newSince(*old_dump, *core, typing::GroupKind::Type);
  std::set<uint64_t> got;
  for (const auto& r : added.rows) {
    if (r.group != sessions["type"].str()) continue;
    for (NodeId o : r.members) got.insert(core->model.objects.addr[o]);
  }
  std::set<uint64_t> want;
  for (const JsonValue& a : sessions["new_addrs"].items()) want.insert(a.hexAddress());
  // Exactly the leaked Sessions are new: the old ones have the same
  // allocation site in the dump and the core, so diff matches them.
  std::string missing, extra;
  for (uint64_t a : want) {
    if (!got.contains(a)) missing.append(" ").append(formatHex(a));
  }
  for (uint64_t a : got) {
    if (!want.contains(a)) extra.append(" ").append(formatHex(a));
  }
  EXPECT_TRUE(missing.empty()) << "leaked Sessions not found new:" << missing.substr(0, 400);
  EXPECT_TRUE(extra.empty()) << "Sessions found new that were not leaked:" << extra.substr(0, 400);

  // The program's last dump, a moment before the core: the same sites.
  auto new_dump = open(run.dir.path + "/leaks.dump", exe);
  ASSERT_TRUE(new_dump);
  expectSitesOfTheDump(exe, *new_dump, *core, run.core, GetParam());
}

TEST_P(CoreModel, DiffBetweenTwoCoresFindsTheLeakedSessions) {
  const std::string exe = testDumps(GetParam()) + "/leaks";
  KernelCoreRun before, after;
  testing::runForKernelCoreArgs(exe, before, {"{dir}/leaks.dump", "{dir}/leaks.json", "crash-old"});
  REQUIRE_CORE(before);
  testing::runForKernelCoreArgs(exe, after, {"{dir}/leaks.dump", "{dir}/leaks.json", "crash-new"});
  REQUIRE_CORE(after);
  auto old_core = open(before.core, exe);
  auto new_core = open(after.core, exe);
  ASSERT_TRUE(old_core && new_core);
  const JsonValue report = JsonValue::parseFile(after.dir.path + "/leaks.json");
  expectSessionGrowth(*old_core, *new_core, report["sessions"]);
}

// The memstats a core gives against those of the dump the process wrote
// just before it died (ReadMemStats' own numbers, the world stopped). The
// program allocates nothing after the dump, but the runtime goes on: its
// sweeper frees, and its dying may take a span or a stack, so the mapped
// sizes may differ by a few spans, never by more than 2%. The GC counters
// and the heap goal do not move: no GC runs between.
TEST_P(CoreModel, MemStatsMatchTheDump) {
  const std::string exe = testDumps(GetParam()) + "/coreprog";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json", "{dir}/heap.dump"});
  REQUIRE_CORE(run);
  auto dump = open(run.dir.path + "/heap.dump", exe);
  auto core = open(run.core, exe);
  ASSERT_TRUE(dump && core);
  const model::MemStats& want = dump->model.memstats;
  const model::MemStats& got = core->model.memstats;
  ASSERT_TRUE(want.present);
  ASSERT_TRUE(got.present);
  using model::MemStat;
  // What a core cannot give without the mcaches' flush, and only that.
  for (MemStat f : {MemStat::TotalAlloc, MemStat::Mallocs, MemStat::Frees}) {
    EXPECT_FALSE(got.has(f)) << static_cast<int>(f);
  }
  EXPECT_EQ(got.known | 1u << static_cast<uint32_t>(MemStat::TotalAlloc) |
                1u << static_cast<uint32_t>(MemStat::Mallocs) |
                1u << static_cast<uint32_t>(MemStat::Frees),
            model::MemStats::kAllKnown);

  EXPECT_EQ(got.num_gc, want.num_gc);
  EXPECT_EQ(got.pause_total_ns, want.pause_total_ns);
  EXPECT_EQ(got.pause_ns, want.pause_ns);
  EXPECT_EQ(got.last_gc, want.last_gc);
  EXPECT_EQ(got.next_gc, want.next_gc);

  // Equal within `slack` (a few spans' bytes, or objects) or 2%.
  const auto near = [](const char* what, uint64_t a, uint64_t b, uint64_t slack = 4 * 8192) {
    const uint64_t d = a > b ? a - b : b - a;
    EXPECT_TRUE(d <= slack || d * 50 <= std::max(a, b))
        << what << ": " << a << " in the core, " << b << " in the dump";
  };
  // The background sweeper goes on freeing the dead objects the dump still
  // counted and returning their spans, so the core's heap is between the
  // dump's reachable bytes and its allocated ones (measured: up to 20%
  // below HeapAlloc on Go 1.19/1.24); memory mapped stays put.
  const uint64_t reachable = dump->reachable_bytes;
  EXPECT_GE(got.heap_alloc, reachable);
  EXPECT_LE(got.heap_alloc, want.heap_alloc + 4 * 8192);
  EXPECT_EQ(got.alloc, got.heap_alloc);
  EXPECT_LE(got.heap_objects, want.heap_objects + 64);
  EXPECT_GE(got.heap_inuse, got.heap_alloc);
  EXPECT_LE(got.heap_inuse, want.heap_inuse + 4 * 8192);
  near("HeapSys", got.heap_sys, want.heap_sys);
  near("HeapReleased", got.heap_released, want.heap_released);
  near("StackInuse", got.stack_inuse, want.stack_inuse);
  near("StackSys", got.stack_sys, want.stack_sys);
  near("Sys", got.sys, want.sys);
  near("MSpanInuse", got.mspan_inuse, want.mspan_inuse);
  near("MCacheInuse", got.mcache_inuse, want.mcache_inuse);

  // summary shows them.
  const analysis::Summary sum = analysis::summarize(*core, 1);
  EXPECT_TRUE(sum.have_memstats);
  EXPECT_EQ(sum.num_gc, want.num_gc);
}

INSTANTIATE_TEST_SUITE_P(Releases, CoreModel,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

// A core whose executable cannot be found: exit 2, naming each place tried;
// the wrong executable given: exit 2, saying they do not match.
TEST(CoreModelCli, MissingOrWrongExecutableExitsTwo) {
  const std::string built = testDumps("go1.24") + "/coreprog";
  if (!fs::exists(built)) GTEST_SKIP() << built << " is missing";
  KernelCoreRun run;
  ASSERT_FALSE(run.dir.path.empty());
  // A copy that is gone once the process is: NT_FILE names it.
  const std::string exe = run.dir.path + "/app";
  fs::copy_file(built, exe);
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json"});
  REQUIRE_CORE(run);
  fs::remove(exe);

  const testing::RunResult missing = testing::runGoheap({"summary", run.core});
  EXPECT_TRUE(missing.exited && missing.code == 2) << missing.describe();
  EXPECT_NE(missing.err.find(exe), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("NT_FILE"), std::string::npos) << missing.err;

  const testing::RunResult wrong =
      testing::runGoheap({"top", run.core, testDumps("go1.24") + "/zoo"});
  EXPECT_TRUE(wrong.exited && wrong.code == 2) << wrong.describe();
  EXPECT_NE(wrong.err.find("do not match"), std::string::npos) << wrong.err;

  // Given, the right executable works, under any name.
  fs::copy_file(built, run.dir.path + "/renamed");
  const testing::RunResult given =
      testing::runGoheap({"summary", run.core, run.dir.path + "/renamed"});
  EXPECT_TRUE(given.exited && given.code == 0) << given.describe();
  EXPECT_NE(given.out.find("ELF core file"), std::string::npos) << given.out;
}

// A core cut short (gcore interrupted, a full disk) is read as far as it
// goes: what is missing is named by its address, with a warning or, when the
// heap itself is gone, an error; never a crash.
TEST(CoreModelCli, ACoreCutShortSaysWhatIsMissing) {
  const std::string exe = testDumps("go1.24") + "/coreprog";
  KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json"});
  REQUIRE_CORE(run);
  const uint64_t size = fs::file_size(run.core);
  for (const uint64_t keep : {size / 2, size - size / 100, uint64_t{3000}}) {
    const std::string cut = run.dir.path + "/cut";
    fs::copy_file(run.core, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, keep);
    const testing::RunResult r = testing::runGoheap({"summary", cut, exe});
    EXPECT_TRUE(r.exited && (r.code == 0 || r.code == 1)) << keep << ": " << r.describe();
    EXPECT_TRUE(r.err.find("is not in the core") != std::string::npos ||
                r.err.find("past the end of the file") != std::string::npos)
        << keep << ": " << r.err;
    EXPECT_TRUE(r.err.find("0x") != std::string::npos ||
                r.err.find("byte offset") != std::string::npos)
        << keep << ": " << r.err;
  }
}

}  // namespace
}  // namespace goheap
