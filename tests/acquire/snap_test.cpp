// goheap snap against running programs built by every Go release: zoo in
// its live mode (it reports %p and reflect's type of each value, and
// runtime.Stack of every goroutine, then keeps answering "ping"), snapped
// by the real binary as a user would.
//
//  - the core reads without a warning, its executable found beside it
//    (snap copies it) or, with --no-exe-copy, through the snap's note; the reported values are
//    typed exactly (>= 99%), the reported goroutines are there with their functions;
//  - the program runs on and answers, with no signal left pending and no
//    thread stopped; the core is at most 10% of its writable mappings;
//  - zoo's churn mode allocates and rewires linked lists all the time: in
//    each snap every pointer of its reachable nodes leads to an object;
//  - the errors: no such process, another tracer, no permission (as
//    nobody), not a Go program, the process killed mid-copy, and snap
//    interrupted mid-copy; each exits 1, says why, and leaves the target
//    running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "analysis/goroutine_info.h"
#include "analysis/slots.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/goleak_truth.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/live_process.h"
#include "support/memory_cgroup.h"
#include "support/memory_truth.h"
#include "support/open_heap.h"
#include "support/param_names.h"
#include "support/reported_types.h"
#include "support/serve_process.h"
#include "util/format.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;
using testing::LiveProcess;

std::string zooOf(const std::string& version) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version + "/zoo";
}

// zoo in `mode` (live or churn), started in `dir` and ready; `exe` instead
// of the release's zoo when given.
std::unique_ptr<LiveProcess> startZoo(const std::string& version, const std::string& dir,
                                      const std::string& mode, const std::string& exe = "") {
  auto p = std::make_unique<LiveProcess>(
      std::vector<std::string>{exe.empty() ? zooOf(version) : exe, dir + "/zoo.dump",
                               dir + "/zoo.json", mode},
      dir);
  EXPECT_TRUE(p->started());
  EXPECT_EQ(p->readLine(), "ready");
  return p;
}

// leftAsFound, given a moment: Go signals itself (SIGURG preempts a
// goroutine) all the time, and a signal handed back on detach is pending
// until the thread runs. One that stays pending was lost.
std::string settledAsFound(pid_t pid) {
  std::string wrong;
  for (int i = 0; i < 40; i++) {
    wrong = testing::leftAsFound(pid);
    if (wrong.empty()) return wrong;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return wrong;
}

// The kernel's Rss of `pid` in bytes (/proc/PID/smaps_rollup), 0 when unread.
uint64_t rssOf(pid_t pid) {
  std::istringstream in(testing::readText("/proc/" + std::to_string(pid) + "/smaps_rollup"));
  std::string key;
  uint64_t kb = 0;
  while (in >> key) {
    if (key == "Rss:" && in >> kb) return kb * 1024;
  }
  return 0;
}

bool answersPing(LiveProcess& p) {
  return p.writeLine("ping") && p.readLine() == "pong";
}

// What zoo says of itself ("state"): the SIGCHLDs it received, what
// wait4(-1, WNOHANG|__WALL) found, and the ticks of a goroutine counting
// milliseconds.
struct ZooState {
  uint64_t sigchlds = ~0ULL;
  std::string wait4;
  uint64_t ticks = 0;
};

ZooState stateOf(LiveProcess& p) {
  ZooState st;
  if (!p.writeLine("state")) return st;
  const std::string line = p.readLine();  // state sigchld=N wait4=W ticks=T
  const size_t sig = line.find("sigchld="), wait = line.find(" wait4="),
               ticks = line.find(" ticks=");
  if (sig == std::string::npos || wait == std::string::npos || ticks == std::string::npos) {
    st.wait4 = "unreadable state line: " + line;
    return st;
  }
  st.sigchlds = std::stoull(line.substr(sig + 8));
  st.wait4 = line.substr(wait + 7, ticks - wait - 7);
  st.ticks = std::stoull(line.substr(ticks + 7));
  return st;
}

// The children of every thread of `pid` (/proc/PID/task/TID/children).
std::string childrenOf(pid_t pid) {
  std::string children;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const fs::directory_entry& e : fs::directory_iterator(tasks)) {
    children += testing::readText(e.path().string() + "/children");
  }
  return children;
}

// The bytes snap's output says copy-on-write cost ("copy-on-write cost
// 1.5 MiB: ..."); UINT64_MAX when it does not say.
uint64_t copiedOnWrite(const std::string& out) {
  constexpr std::string_view kSays = "copy-on-write cost ";
  const size_t start = out.find(kSays);
  const size_t end = out.find(':', start);
  if (start == std::string::npos || end == std::string::npos) return ~0ULL;
  std::istringstream amount(out.substr(start + kSays.size(), end - start - kSays.size()));
  double value = 0;
  std::string unit;
  amount >> value >> unit;
  const std::map<std::string, double> units = {
      {"B", 1}, {"KiB", 1024}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
  auto it = units.find(unit);
  return it == units.end() ? ~0ULL : static_cast<uint64_t>(value * it->second);
}

// A snap left `zoo` as it found it: no signal pending or stopped thread, no
// SIGCHLD received, no child (alive or a zombie), and its goroutines ran on.
void expectLeftAsFound(LiveProcess& zoo, const ZooState& before) {
  EXPECT_EQ(settledAsFound(zoo.pid()), "");
  EXPECT_EQ(childrenOf(zoo.pid()), "");
  const ZooState after = stateOf(zoo);
  EXPECT_EQ(after.sigchlds, 0u);
  EXPECT_EQ(after.wait4, "ECHILD");
  EXPECT_GT(after.ticks, before.ticks);
  EXPECT_TRUE(answersPing(zoo));
}

// yama's kernel.yama.ptrace_scope, or -1 without yama.
int ptraceScope() {
  const std::string scope = testing::readText("/proc/sys/kernel/yama/ptrace_scope");
  return scope.empty() ? -1 : std::atoi(scope.c_str());
}

// Whether this process holds CAP_SYS_PTRACE (bit 19 of CapEff), which lets
// it trace processes that are not its children whatever yama says (1, 2).
bool holdsCapSysPtrace() {
  const std::string status = testing::readText("/proc/self/status");
  const size_t at = status.find("CapEff:");
  if (at == std::string::npos) return false;
  const uint64_t caps = std::strtoull(status.c_str() + at + 7, nullptr, 16);
  return ((caps >> 19) & 1) != 0;
}

// Why goheap snap cannot trace a process the test started here, or "".
// Scope 3 forbids ptrace until reboot, and a refusal with yama out of the
// way comes from the container (seccomp, a missing capability): no test run
// can change either (tests/skip-allowlist.txt names both). Scope 1 or 2
// without CAP_SYS_PTRACE is lowered by ctest's machine_conditions_setup,
// as root: a run without it fails under CI. The trial is on a child of our
// own, which any tracer may trace unless ptrace is refused altogether.
std::string ptraceProblem() {
  static const std::string problem = [] {
    const int scope = ptraceScope();
    if (scope >= 3) return std::string("yama's ptrace_scope is 3: no ptrace until reboot");
    const pid_t child = ::fork();
    if (child == 0) {
      ::pause();
      ::_exit(0);
    }
    std::string why;
    if (::ptrace(PTRACE_SEIZE, child, nullptr, nullptr) != 0) {
      const int refused = errno;
      why = std::string("this machine allows no ptrace (") + std::strerror(refused) + ")";
      why += scope <= 0 ? ", with yama out of the way: the container forbids it"
                        : ", yama's ptrace_scope is " + std::to_string(scope);
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (why.empty() && scope > 0 && !holdsCapSysPtrace()) {
      why = "yama's ptrace_scope is " + std::to_string(scope) +
            " and CAP_SYS_PTRACE is missing: snap may not attach to a process that "
            "is not its child (ctest's machine_conditions_setup lowers it, as root)";
    }
    return why;
  }();
  return problem;
}

class Snap : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!ptraceProblem().empty()) GTEST_SKIP() << ptraceProblem();
    if (!fs::exists(zooOf(GetParam()))) GTEST_SKIP() << zooOf(GetParam()) << " is missing";
    ASSERT_FALSE(dir_.path.empty());
  }
  testing::TempDir dir_;
};

TEST_P(Snap, ALiveProcessIsReadAndRunsOn) {
  auto zoo = startZoo(GetParam(), dir_.path, "live");
  ASSERT_TRUE(zoo->running());
  const ZooState before = stateOf(*zoo);
  const uint64_t writable = testing::writableMappingBytes(zoo->pid());
  const std::string core = dir_.path + "/zoo.core";
  const testing::RunResult r = testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("paused"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("copied from a fork while it ran on"), std::string::npos) << r.out;

  // The process is as it was, and answers.
  expectLeftAsFound(*zoo, before);
  const uint64_t core_size = fs::file_size(core);
  EXPECT_LE(core_size * 10, writable)
      << "core " << core_size << " of " << writable << " writable bytes";

  // The core: its executable found beside it, snap's copy, no warning.
  auto snap = testing::openSnapshot(core);
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  const analysis::Snapshot& s = **snap;
  EXPECT_EQ(s.exe_path, dir_.path + "/zoo.exe");
  EXPECT_EQ(testing::readText(s.exe_path), testing::readText(zooOf(GetParam())));
  std::string warnings;
  for (const std::string& w : s.model.warnings) warnings += w + "\n";
  EXPECT_EQ(warnings, "");
  ASSERT_TRUE(testing::typesOf(s).ok()) << testing::typesOf(s).error().message();

  const JsonValue report = JsonValue::parseFile(dir_.path + "/zoo.json");
  const testing::ReportedTypes t = testing::checkReportedTypes(s, report["values"]);
  ASSERT_GT(t.total, 40u);
  EXPECT_GE(t.right * 100, t.total * 99) << t.right << " of " << t.total << " typed right:\n"
                                         << t.wrong;

  // The goroutines runtime.Stack listed, with the functions of their
  // frames (main's own moved on since: only its id is compared).
  std::map<uint64_t, std::set<std::string>> functions;
  for (const analysis::GoroutineInfo& g : analysis::goroutines(s)) {
    std::set<std::string>& names = functions[g.id];
    for (const analysis::FrameInfo& f : g.frames) {
      names.insert(f.function);
      for (const analysis::SourceLine& in : f.inlined) names.insert(in.function);
    }
  }
  size_t compared = 0;
  for (const JsonValue& g : report["goroutines"].items()) {
    const uint64_t id = g["id"].u64();
    auto it = functions.find(id);
    ASSERT_NE(it, functions.end()) << "goroutine " << id << " is missing";
    if (id == 1) continue;
    for (const JsonValue& f : g["functions"].items()) {
      EXPECT_TRUE(it->second.count(f.str())) << "goroutine " << id << " lacks " << f.str();
      compared++;
    }
  }
  EXPECT_GE(compared, 1u);  // zoo's stackOnly goroutine
  EXPECT_EQ(zoo->finish(), 0);
}

// 2,048 buffers of 64 KiB, each written only at its first byte: the core
// holds the pages the process touched, about its resident set, not the
// 128 MiB of buffers (runs of 15 untouched pages were once copied as
// zeros); and every buffer reads back, first byte 1, the rest 0.
TEST_P(Snap, ASparseHeapIsCopiedAsItIsResident) {
  auto zoo = startZoo(GetParam(), dir_.path, "sparse");
  ASSERT_TRUE(zoo->running());
  const uint64_t resident = testing::residentBytes(zoo->pid());
  ASSERT_GT(resident, 0u);
  const std::string core = dir_.path + "/sparse.core";
  const testing::RunResult r = testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  const uint64_t core_size = fs::file_size(core);
  EXPECT_LE(core_size, resident + (16u << 20))
      << "core " << core_size << " for " << resident << " resident bytes";
  // Reading the fork duplicated none of it (as process_vm_readv's pinning
  // would, page by page): the copies are the process's own few writes.
  const uint64_t copied_on_write = copiedOnWrite(r.out);
  EXPECT_LT(copied_on_write, resident / 4) << r.out;

  auto snap = testing::openSnapshot(core);
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  const analysis::Snapshot& s = **snap;
  const JsonValue report = JsonValue::parseFile(dir_.path + "/zoo.json");
  size_t buffers = 0;
  for (const JsonValue& a : report["sparse_buffers"].items()) {
    const uint64_t addr = std::stoull(a.str(), nullptr, 16);
    const NodeId o = s.heap.addresses().find(addr);
    ASSERT_NE(o, kNoNode) << a.str();
    const std::span<const uint8_t> bytes = s.model.objectBytes(o);
    ASSERT_EQ(bytes.size(), 64u << 10) << a.str();
    EXPECT_EQ(bytes[0], 1) << a.str();
    EXPECT_EQ(bytes[4096], 0) << a.str();
    EXPECT_EQ(bytes.back(), 0) << a.str();
    buffers++;
  }
  EXPECT_EQ(buffers, 2048u);
  EXPECT_EQ(zoo->finish(), 0);
}

// Every pointer word of a reachable main.churnNode (next, payload, peers)
// leads to an object: the snap caught no half-made structure.
TEST_P(Snap, AnAllocatingProcessGivesAConsistentHeap) {
  auto zoo = startZoo(GetParam(), dir_.path, "churn");
  for (int round = 0; round < 2; round++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // From a fork, then with every thread stopped.
    const std::string core = dir_.path + "/churn" + std::to_string(round) + ".core";
    std::vector<std::string> args = {"snap", std::to_string(zoo->pid()), "-o", core};
    if (round == 1) args.push_back("--no-fork");
    const ZooState before = stateOf(*zoo);
    const testing::RunResult r = testing::runGoheap(args);
    ASSERT_EQ(r.code, 0) << r.describe();
    EXPECT_NE(r.out.find(round == 0 ? "copied from a fork" : "copied while it was stopped"),
              std::string::npos)
        << r.out;
    expectLeftAsFound(*zoo, before);

    auto snap = testing::openSnapshot(core);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    const analysis::Snapshot& s = **snap;
    ASSERT_TRUE(testing::typesOf(s).ok());
    uint64_t nodes = 0, pointers = 0, dangling_count = 0;
    std::string dangling;
    const uint64_t heap_start = s.model.params.heap_start, heap_end = s.model.params.heap_end;
    for (NodeId o = 0; o < s.heap.objectCount(); o++) {
      if (!s.reachable(o) || s.namer().typeName(o) != "main.churnNode") continue;
      nodes++;
      // The words the collector takes for pointers (the heap's own
      // metadata, not goheap's typing): each into the heap is an object.
      const std::span<const uint8_t> bytes = s.model.objectBytes(o);
      s.model.layouts.forEachOffset(s.model.objects.layout[o], [&](uint64_t offset) {
        if (offset + 8 > bytes.size()) return;
        uint64_t p = 0;
        std::memcpy(&p, bytes.data() + offset, 8);
        if (p < heap_start || p >= heap_end) return;
        pointers++;
        if (!analysis::objectAt(s, p)) {
          dangling_count++;
          dangling += "  node " + formatHex(s.address(o)) + " +" + std::to_string(offset) + " -> " +
                      formatHex(p) + "\n";
        }
      });
    }
    EXPECT_GT(nodes, 1000u);
    EXPECT_GT(pointers, nodes);
    EXPECT_EQ(dangling_count, 0u) << "of " << pointers << " pointers:\n"
                                  << dangling.substr(0, 2000);
    fs::remove(core);
  }
  EXPECT_EQ(zoo->finish(), 0);
}

// Production's build (-s -w): snapped from a fork all the same, the
// process left as found, and the core typed from the runtime's own type
// descriptors: the program's %p/%T report is the oracle, with the floor of
// the stripped dumps' typing (ZooTypesStripped).
TEST_P(Snap, AStrippedProgramIsSnappedFromAFork) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/stripped/zoo";
  if (!fs::exists(exe)) GTEST_SKIP() << exe << " is missing";
  auto zoo = startZoo(GetParam(), dir_.path, "live", exe);
  const ZooState before = stateOf(*zoo);
  const std::string core = dir_.path + "/stripped.core";
  const testing::RunResult r = testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied from a fork while it ran on"), std::string::npos) << r.out;
  expectLeftAsFound(*zoo, before);
  auto snap = testing::openSnapshot(core);
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  EXPECT_EQ((*snap)->exe_path, dir_.path + "/stripped.exe");
  const JsonValue report = JsonValue::parseFile(dir_.path + "/zoo.json");
  const testing::ReportedTypes t = testing::checkReportedTypes(**snap, report["values"]);
  ASSERT_GT(t.total, 40u);
  EXPECT_GE(t.right * 100, t.total * 90) << t.right << " of " << t.total << " typed right:\n"
                                         << t.wrong;
  EXPECT_EQ(zoo->finish(), 0);
}

// The goroutines a live process leaked, found in its snap as in its dump:
// tests/programs/goleak's truth, on its unstripped and its stripped build.
TEST_P(Snap, LeakedGoroutinesOfALiveProcess) {
  for (const std::string folder : {"", "/stripped"}) {
    const std::string exe =
        std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + folder + "/goleak";
    SCOPED_TRACE(exe);
    LiveProcess goleak({exe, dir_.path + "/goleak.dump", dir_.path + "/goleak.json", "live"},
                       dir_.path);
    ASSERT_TRUE(goleak.started());
    ASSERT_EQ(goleak.readLine(), "ready");
    const std::string core = dir_.path + "/goleak.core";
    const testing::RunResult r =
        testing::runGoheap({"snap", std::to_string(goleak.pid()), "-o", core});
    ASSERT_EQ(r.code, 0) << r.describe();
    ASSERT_TRUE(answersPing(goleak));
    auto snap = testing::openSnapshot(core);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    EXPECT_EQ((*snap)->exe_path, dir_.path + "/goleak.exe");
    EXPECT_EQ(testing::readText((*snap)->exe_path), testing::readText(exe));
    testing::expectGoleakTruth(**snap, JsonValue::parseFile(dir_.path + "/goleak.json"),
                               folder.empty());
    EXPECT_EQ(goleak.finish(), 0);
    fs::remove(core);
  }
}

// goheap memory --pid: every mapping of the process with its Rss, from the
// snap's note, against tests/programs/memprog's own account; the process
// runs on.
TEST_P(Snap, MemoryOfALiveProcess) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/memprog";
  if (!fs::exists(exe)) GTEST_SKIP() << exe << " is missing: make-dumps.sh builds it";
  LiveProcess prog({exe, dir_.path + "/memprog.dump", dir_.path + "/memprog.json", "live"},
                   dir_.path);
  ASSERT_TRUE(prog.started());
  ASSERT_EQ(prog.readLine(), "ready");
  const uint64_t rss_before = rssOf(prog.pid());
  const testing::RunResult r =
      testing::runGoheap({"memory", "--pid", std::to_string(prog.pid()), "--json"});
  ASSERT_EQ(r.code, 0) << r.describe();
  const uint64_t rss_after = rssOf(prog.pid());
  ASSERT_TRUE(answersPing(prog));
  const JsonValue memory = JsonValue::parse(r.out);
  EXPECT_EQ(memory["source"].str(), "snap");
  testing::expectMemoryTruth(memory, JsonValue::parseFile(dir_.path + "/memprog.json"));
  testing::expectResidentTruth(memory, rss_before, rss_after);
  EXPECT_EQ(prog.finish(), 0);
}

// --no-exe-copy: no program beside the core, which finds it through the
// path the snap's note records. --with-exe, the default now, is still
// taken, with a note.
TEST_P(Snap, NoExeCopyFindsTheProgramThroughTheNote) {
  auto zoo = startZoo(GetParam(), dir_.path, "live");
  const std::string core = dir_.path + "/bare.core";
  const testing::RunResult r =
      testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core, "--no-exe-copy"});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_FALSE(fs::exists(dir_.path + "/bare.exe")) << r.out;
  EXPECT_EQ(r.out.find("copied the executable"), std::string::npos) << r.out;
  const testing::RunResult summary = testing::runGoheap({"summary", core});
  ASSERT_EQ(summary.code, 0) << summary.describe();
  EXPECT_NE(summary.err.find(zooOf(GetParam()) + " (found through the snap note)"),
            std::string::npos)
      << summary.err;

  const testing::RunResult old =
      testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core, "--with-exe"});
  ASSERT_EQ(old.code, 0) << old.describe();
  EXPECT_NE(old.err.find("--with-exe is the default now"), std::string::npos) << old.err;
  EXPECT_EQ(testing::readText(dir_.path + "/bare.exe"), testing::readText(zooOf(GetParam())));
  const testing::RunResult both = testing::runGoheap(
      {"snap", std::to_string(zoo->pid()), "-o", core, "--with-exe", "--no-exe-copy"});
  EXPECT_EQ(both.code, 2) << both.describe();
  EXPECT_EQ(zoo->finish(), 0);
}

// Every heap-reading command takes --pid: the snap goes to a temporary
// file in $TMPDIR, gone when the command is.
TEST_P(Snap, CommandsReadARunningProcessWithPid) {
  auto zoo = startZoo(GetParam(), dir_.path, "live");
  const std::string tmp = dir_.path + "/tmp";
  fs::create_directory(tmp);
  testing::scratch();  // the test's own folder, made before TMPDIR changes
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const testing::RunResult r =
      testing::runGoheap({"summary", "--pid", std::to_string(zoo->pid()), "--json"});
  {
    testing::ServeProcess serve({"--pid", std::to_string(zoo->pid()), "--http", "127.0.0.1:0"});
    if (saved.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", saved.c_str(), 1);
    }
    ASSERT_TRUE(serve.serving()) << serve.stderrText();
    ASSERT_EQ(serve.waitLoaded(), "ready") << serve.stderrText();
    const testing::HttpAnswer top = serve.get("/api/top?n=500");
    EXPECT_EQ(top.status, 200) << top.body;
    EXPECT_NE(top.body.find("main."), std::string::npos) << top.body;
    EXPECT_FALSE(fs::is_empty(tmp)) << "serve keeps its snap while it serves";
  }
  ASSERT_EQ(r.code, 0) << r.describe();
  const JsonValue summary = JsonValue::parse(r.out);
  EXPECT_GT(summary["objects"]["reachable_count"].u64(), 100u) << r.out;
  for (const fs::directory_entry& e : fs::directory_iterator(tmp))
    ADD_FAILURE() << e.path() << " was left behind";
  EXPECT_EQ(settledAsFound(zoo->pid()), "");
  EXPECT_TRUE(answersPing(*zoo));
  EXPECT_EQ(zoo->finish(), 0);
}

INSTANTIATE_TEST_SUITE_P(Releases, Snap, ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

// ---- what goes wrong --------------------------------------------------------

class SnapErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ptraceProblem().empty()) GTEST_SKIP() << ptraceProblem();
    if (!fs::exists(zooOf("go1.24"))) GTEST_SKIP() << zooOf("go1.24") << " is missing";
    ASSERT_FALSE(dir_.path.empty());
  }
  // Expects snap of `pid` to exit 1 saying `why`, leaving no core behind.
  void expectFailure(pid_t pid, const std::string& why, const std::vector<std::string>& prefix = {},
                     const std::string& binary = GOHEAP_BINARY) {
    std::vector<std::string> args = prefix;
    args.insert(args.end(), {binary, "snap", std::to_string(pid), "-o", dir_.path + "/x.core"});
    const testing::RunResult r = runCommand(args);
    EXPECT_EQ(r.code, 1) << r.describe();
    EXPECT_NE(r.err.find(why), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(dir_.path + "/x.core"));
  }
  static testing::RunResult runCommand(const std::vector<std::string>& argv);
  testing::TempDir dir_;
};

testing::RunResult SnapErrors::runCommand(const std::vector<std::string>& argv) {
  // goheap's own runner with the binary swapped for argv[0] (setpriv).
  testing::RunResult r;
  const std::string out = testing::scratch().file("snap-errors.out");
  const std::string err = testing::scratch().file("snap-errors.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    FILE* o = std::freopen(out.c_str(), "w", stdout);
    FILE* e = std::freopen(err.c_str(), "w", stderr);
    (void)o;
    (void)e;
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = testing::readText(out);
  r.err = testing::readText(err);
  return r;
}

TEST(SnapUsage, AWrongCommandLineExitsTwo) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"snap"},
                                               {"snap", "0"},
                                               {"snap", "abc"},
                                               {"summary"},
                                               {"summary", "--pid", "0"}}) {
    const testing::RunResult r = testing::runGoheap(args);
    EXPECT_EQ(r.code, 2) << args.back() << ": " << r.describe();
    EXPECT_NE(r.err.find("goheap: "), std::string::npos) << r.describe();
  }
}

TEST_F(SnapErrors, NoSuchProcess) {
  // A pid above the kernel's pid_max is never in use.
  expectFailure(4194304 + 7, "no process with PID");
}

TEST_F(SnapErrors, NotAGoProgram) {
  LiveProcess sleeper({"/bin/sleep", "60"}, dir_.path);
  ASSERT_TRUE(sleeper.started());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  expectFailure(sleeper.pid(), "is not a Go program");
  EXPECT_TRUE(sleeper.running());
}

TEST_F(SnapErrors, AnotherTracerHoldsTheProcess) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  ASSERT_EQ(::ptrace(PTRACE_SEIZE, zoo->pid(), nullptr, nullptr), 0) << std::strerror(errno);
  expectFailure(zoo->pid(), "already traced by process " + std::to_string(::getpid()));
  // A tracee is let go only while stopped.
  ASSERT_EQ(::ptrace(PTRACE_INTERRUPT, zoo->pid(), nullptr, nullptr), 0) << std::strerror(errno);
  ASSERT_EQ(::waitpid(zoo->pid(), nullptr, __WALL), zoo->pid());
  ASSERT_EQ(::ptrace(PTRACE_DETACH, zoo->pid(), nullptr, nullptr), 0) << std::strerror(errno);
  EXPECT_TRUE(answersPing(*zoo));
  EXPECT_EQ(settledAsFound(zoo->pid()), "");
}

TEST_F(SnapErrors, NoPermissionAsNobody) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run snap as nobody";
  if (::system("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "no setpriv";
  auto zoo = startZoo("go1.24", dir_.path, "live");
  // nobody may not reach the build folder (a checkout under /root): a copy
  // of goheap in the test's folder, which nobody may enter and write.
  ::chmod(dir_.path.c_str(), 0777);
  const std::string goheap = dir_.path + "/goheap";
  fs::copy_file(GOHEAP_BINARY, goheap);
  ::chmod(goheap.c_str(), 0755);
  expectFailure(zoo->pid(), "not allowed to trace process " + std::to_string(zoo->pid()),
                {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, goheap);
  EXPECT_TRUE(answersPing(*zoo));
  EXPECT_EQ(settledAsFound(zoo->pid()), "");
}

// Root without CAP_SYS_PTRACE (what a container's default capabilities
// leave) may not trace another user's process: snap names the capability
// it lacks, as /proc/self/status shows it, and where to get it.
TEST_F(SnapErrors, NoPermissionWithoutCapSysPtrace) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run zoo as nobody and drop a capability";
  // zoo as nobody: its own copy, in a folder nobody may write to.
  ::chmod(dir_.path.c_str(), 0777);
  const std::string exe = dir_.path + "/zoo";
  fs::copy_file(zooOf("go1.24"), exe);
  ::chmod(exe.c_str(), 0755);
  LiveProcess zoo({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", exe,
                   dir_.path + "/zoo.dump", dir_.path + "/zoo.json", "live"},
                  dir_.path);
  ASSERT_TRUE(zoo.started());
  ASSERT_EQ(zoo.readLine(), "ready");
  const testing::RunResult r =
      runCommand({"/usr/bin/setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace",
                  GOHEAP_BINARY, "snap", std::to_string(zoo.pid()), "-o", dir_.path + "/x.core"});
  EXPECT_EQ(r.code, 1) << r.describe();
  for (const std::string& says :
       {"not allowed to trace process " + std::to_string(zoo.pid()) + ": it belongs to user 65534",
        std::string("goheap runs as root, but goheap's effective capabilities (CapEff "),
        std::string(") lack CAP_SYS_PTRACE"), std::string("--profile=general"),
        std::string("--cap-add SYS_PTRACE"), std::string("capture package")}) {
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << r.describe();
  }
  EXPECT_FALSE(fs::exists(dir_.path + "/x.core"));
  EXPECT_TRUE(answersPing(zoo));
  EXPECT_EQ(settledAsFound(zoo.pid()), "");
}

// A process with a seccomp filter is forked when goheap may read its
// filters and they allow every call the fork makes (zoo's allows all, on
// one thread). seccomp_filter_test.cpp checks the filters' verdicts against
// the kernel.
// Snaps `zoo` into `core`, which must be read from a fork, leave zoo as it
// was, and read back as a heap; zoo then ends well.
void expectSnappedFromAFork(LiveProcess& zoo, const std::string& core) {
  const ZooState before = stateOf(zoo);
  const testing::RunResult r = testing::runGoheap({"snap", std::to_string(zoo.pid()), "-o", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied from a fork while it ran on"), std::string::npos) << r.out;
  expectLeftAsFound(zoo, before);
  auto snapshot = testing::openSnapshot(core);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_GT((*snapshot)->heap.objectCount(), 100u);
  EXPECT_EQ(zoo.finish(), 0);
}

TEST_F(SnapErrors, ASeccompProcessIsForkedWhenItsFilterAllowsIt) {
  auto zoo = startZoo("go1.24", dir_.path, "seccomp");
  expectSnappedFromAFork(*zoo, dir_.path + "/seccomp.core");
}

// zoo live under goheap_seccomp_launcher's filter `mode`, which binds every
// thread of it, as a container runtime's does.
std::unique_ptr<LiveProcess> startZooUnderSeccomp(const std::string& mode, const std::string& dir) {
  auto p = std::make_unique<LiveProcess>(
      std::vector<std::string>{std::string(GOHEAP_BUILD_DIR) + "/goheap_seccomp_launcher", mode,
                               "--", zooOf("go1.24"), dir + "/zoo.dump", dir + "/zoo.json", "live"},
      dir);
  EXPECT_TRUE(p->started());
  EXPECT_EQ(p->readLine(), "ready");
  return p;
}

// Docker's default profile refuses what it does not allow with EPERM: a
// fork is safe under it, and snap forks.
TEST_F(SnapErrors, AProcessUnderAnErrnoProfileIsForked) {
  auto zoo = startZooUnderSeccomp("errno-acct", dir_.path);
  ASSERT_NE(
      testing::readText("/proc/" + std::to_string(zoo->pid()) + "/status").find("Seccomp:\t2"),
      std::string::npos);
  expectSnappedFromAFork(*zoo, dir_.path + "/errno.core");
}

// A filter that kills for the very clone snap makes: read and run, it
// keeps snap from forking, even with --fork-under-seccomp (which only
// trusts filters that cannot be read), and the process lives on.
TEST_F(SnapErrors, AProcessWhoseFilterKillsTheForkIsCopiedWhileStopped) {
  auto zoo = startZooUnderSeccomp("kill-plain-clone", dir_.path);
  const ZooState before = stateOf(*zoo);
  const std::string core = dir_.path + "/kill.core";
  const testing::RunResult r =
      testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", core, "--fork-under-seccomp"});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied while it was stopped, not from a fork: its seccomp filter kills "
                       "the process for clone(2)"),
            std::string::npos)
      << r.out;
  expectLeftAsFound(*zoo, before);
  auto snapshot = testing::openSnapshot(core);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_EQ(zoo->finish(), 0);
}

// Without CAP_SYS_ADMIN the filters cannot be read: snap copies the process
// stopped, saying why and what --fork-under-seccomp would save, and forks
// when given that flag.
TEST_F(SnapErrors, ASeccompProcessWhoseFilterCannotBeReadIsCopiedWhileStopped) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to drop CAP_SYS_ADMIN alone";
  auto zoo = startZooUnderSeccomp("errno-acct", dir_.path);
  const ZooState before = stateOf(*zoo);
  // goheap without CAP_SYS_ADMIN, keeping CAP_SYS_PTRACE.
  const std::vector<std::string> no_admin = {"setpriv", "--bounding-set=-sys_admin",
                                             "--inh-caps=-sys_admin"};
  std::vector<std::string> args = no_admin;
  args.insert(args.end(), {GOHEAP_BINARY, "snap", std::to_string(zoo->pid()), "-o",
                           dir_.path + "/stopped.core"});
  testing::RunResult r = runCommand(args);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied while it was stopped, not from a fork: the process runs under "
                       "seccomp (Seccomp: 2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CAP_SYS_ADMIN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--fork-under-seccomp"), std::string::npos) << r.out;
  expectLeftAsFound(*zoo, before);

  args = no_admin;
  args.insert(args.end(), {GOHEAP_BINARY, "snap", std::to_string(zoo->pid()), "-o",
                           dir_.path + "/forked.core", "--fork-under-seccomp"});
  r = runCommand(args);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied from a fork while it ran on"), std::string::npos) << r.out;
  expectLeftAsFound(*zoo, before);
  auto snapshot = testing::openSnapshot(dir_.path + "/forked.core");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_EQ(zoo->finish(), 0);
}

// zoo in `mode`, moved into `cgroup` (its pages charged there from then
// on) after `settle_ms`, with the cgroup's limit `room` above its usage.
std::unique_ptr<LiveProcess> startZooInCgroup(const testing::MemoryCgroup& cgroup,
                                              const std::string& dir, const std::string& mode,
                                              uint64_t room, unsigned settle_ms = 0) {
  auto zoo = startZoo("go1.24", dir, mode);
  cgroup.add(zoo->pid());
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  cgroup.leaveRoom(room);
  return zoo;
}

// A process in a memory cgroup with far less room than a whole rewrite of
// its memory would duplicate (a pod near its limit) is forked all the same:
// CgroupGuard watches the room while the fork is read.
TEST_F(SnapErrors, AProcessInATightMemoryCgroupIsForked) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to make a memory cgroup";
  const testing::MemoryCgroup cgroup("snap-room");
  ASSERT_TRUE(cgroup.usable()) << testing::MemoryCgroup::whyNotUsable();
  auto zoo = startZooInCgroup(cgroup, dir_.path, "live", 24 << 20);
  expectSnappedFromAFork(*zoo, dir_.path + "/room.core");
  EXPECT_GT(cgroup.limit(), cgroup.usage());
}

// Below CgroupGuard's margin a fork is not even made.
TEST_F(SnapErrors, AProcessWithoutRoomInItsCgroupIsCopiedWhileStopped) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to make a memory cgroup";
  const testing::MemoryCgroup cgroup("snap-full");
  ASSERT_TRUE(cgroup.usable()) << testing::MemoryCgroup::whyNotUsable();
  auto zoo = startZooInCgroup(cgroup, dir_.path, "live", 2 << 20);
  const ZooState before = stateOf(*zoo);
  const testing::RunResult r =
      testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", dir_.path + "/full.core"});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied while it was stopped, not from a fork: its memory cgroup has "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("less than the 8 MiB a fork keeps free"), std::string::npos) << r.out;
  expectLeftAsFound(*zoo, before);
  auto snapshot = testing::openSnapshot(dir_.path + "/full.core");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_EQ(zoo->finish(), 0);
}

// zoo's churn rewrites its heap all the time: under a slowed copy its
// copy-on-write soon eats a 12 MiB room. The guard drops the fork before
// the cgroup runs out, and snap copies zoo again, stopped: the core is
// whole, and zoo lives on.
TEST_F(SnapErrors, AForkThatRunsItsCgroupLowIsDroppedAndCopiedAgain) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to make a memory cgroup";
  const testing::MemoryCgroup cgroup("snap-guard");
  ASSERT_TRUE(cgroup.usable()) << testing::MemoryCgroup::whyNotUsable();
  // After 300 ms, so that its own churn is charged to the cgroup already.
  auto zoo = startZooInCgroup(cgroup, dir_.path, "churn", 12 << 20, 300);
  ::setenv("GOHEAP_SNAP_COPY_DELAY_MS", "20", 1);
  const testing::RunResult r =
      testing::runGoheap({"snap", std::to_string(zoo->pid()), "-o", dir_.path + "/guard.core"});
  ::unsetenv("GOHEAP_SNAP_COPY_DELAY_MS");
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("copied while it was stopped, not from a fork: its fork was dropped after "),
            std::string::npos)
      << r.describe();
  EXPECT_NE(r.out.find("when its memory cgroup had "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("copying it again while it is stopped"), std::string::npos) << r.err;
  EXPECT_EQ(childrenOf(zoo->pid()), "");  // the fork is gone, reaped
  EXPECT_TRUE(answersPing(*zoo));
  auto snapshot = testing::openSnapshot(dir_.path + "/guard.core");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_GT((*snapshot)->heap.objectCount(), 100u);
  EXPECT_EQ(zoo->finish(), 0);
}

// A snap slowed down (GOHEAP_SNAP_COPY_DELAY_MS) so that something can
// happen during its copy; its stdout in `err`.out, its stderr in `err`.
pid_t slowSnap(pid_t target, const std::string& core, const std::string& err,
               const std::vector<std::string>& flags = {}) {
  ::setenv("GOHEAP_SNAP_COPY_DELAY_MS", "300", 1);
  std::vector<std::string> args = {"snap", std::to_string(target), "-o", core};
  args.insert(args.end(), flags.begin(), flags.end());
  const pid_t snap = testing::spawnGoheap(args, err + ".out", err);
  ::unsetenv("GOHEAP_SNAP_COPY_DELAY_MS");
  // Well into the copy: the threads are stopped within milliseconds.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  return snap;
}

int waitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(SnapErrors, TheProcessExitsDuringTheCopy) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  const std::string err = dir_.path + "/snap.err";
  const pid_t snap = slowSnap(zoo->pid(), dir_.path + "/x.core", err, {"--no-fork"});
  ASSERT_GT(snap, 0);
  ::kill(zoo->pid(), SIGKILL);
  EXPECT_EQ(waitExit(snap), 1);
  EXPECT_NE(testing::readText(err).find("exited during the copy"), std::string::npos)
      << testing::readText(err);
  EXPECT_FALSE(fs::exists(dir_.path + "/x.core"));
}

// From a fork, the copy is of the moment of the snap: the process may end
// meanwhile, and the core is whole.
TEST_F(SnapErrors, TheProcessExitsDuringAForkCopy) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  const std::string err = dir_.path + "/snap.err";
  const pid_t snap = slowSnap(zoo->pid(), dir_.path + "/x.core", err);
  ASSERT_GT(snap, 0);
  ::kill(zoo->pid(), SIGKILL);
  EXPECT_EQ(waitExit(snap), 0) << testing::readText(err);
  EXPECT_NE(testing::readText(err + ".out").find("the process exited during the copy"),
            std::string::npos)
      << testing::readText(err + ".out");
  auto snapshot = testing::openSnapshot(dir_.path + "/x.core");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_GT((*snapshot)->heap.objectCount(), 100u);
}

// A fork killed during the copy by someone else (the OOM killer, whose
// score points at it) while the process lives: snap copies the process
// again, stopped, into a core begun anew.
TEST_F(SnapErrors, AForkKilledDuringTheCopyIsCopiedAgainStopped) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  const ZooState before = stateOf(*zoo);
  const std::string err = dir_.path + "/snap.err";
  const pid_t snap = slowSnap(zoo->pid(), dir_.path + "/x.core", err);
  ASSERT_GT(snap, 0);
  const std::string children = childrenOf(zoo->pid());
  ASSERT_NE(children, "") << "no fork to be seen";
  const pid_t fork = static_cast<pid_t>(std::stol(children));
  EXPECT_EQ(testing::readText("/proc/" + std::to_string(fork) + "/oom_score_adj"), "1000\n");
  ::kill(fork, SIGKILL);
  EXPECT_EQ(waitExit(snap), 0) << testing::readText(err);
  const std::string out = testing::readText(err + ".out");
  EXPECT_NE(out.find("copied while it was stopped, not from a fork: its fork was killed after "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("(by the OOM killer?)"), std::string::npos) << out;
  expectLeftAsFound(*zoo, before);
  auto snapshot = testing::openSnapshot(dir_.path + "/x.core");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message();
  EXPECT_GT((*snapshot)->heap.objectCount(), 100u);
  EXPECT_EQ(zoo->finish(), 0);
}

std::string statField(pid_t pid, size_t index) {
  const std::string stat = testing::readText("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (size_t i = 3; i <= index && fields >> field; i++) {
  }
  return field;
}

// goheap killed (SIGKILL, no chance to clean up) while it reads the fork:
// the kernel kills the fork with it (PTRACE_O_EXITKILL), before it ran an
// instruction of its own (its exit status is SIGKILL's, not a crash's),
// and the process runs on with no signal. The fork stays a zombie, seen
// only by wait4 with __WALL, until the process reaps or ends.
TEST_F(SnapErrors, GoheapKilledDuringAForkCopyTakesTheForkWithIt) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  const ZooState before = stateOf(*zoo);
  const std::string err = dir_.path + "/snap.err";
  const pid_t snap = slowSnap(zoo->pid(), dir_.path + "/x.core", err);
  ASSERT_GT(snap, 0);
  const std::string children = childrenOf(zoo->pid());
  ASSERT_NE(children, "") << "no fork to be seen";
  const pid_t fork = static_cast<pid_t>(std::stol(children));
  EXPECT_EQ(statField(fork, 3), "t");  // stopped by its tracer
  ::kill(snap, SIGKILL);
  waitExit(snap);
  std::string state;
  for (int i = 0; i < 100 && state != "Z"; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    state = statField(fork, 3);
  }
  EXPECT_EQ(state, "Z");
  EXPECT_EQ(statField(fork, 52), std::to_string(SIGKILL));  // exit_code, as waitpid gives it
  EXPECT_EQ(settledAsFound(zoo->pid()), "");
  const ZooState after = stateOf(*zoo);
  EXPECT_EQ(after.sigchlds, 0u);
  EXPECT_EQ(after.wait4, "pid " + std::to_string(fork) + ", <nil>");  // zoo reaped it
  EXPECT_GT(after.ticks, before.ticks);
  EXPECT_EQ(childrenOf(zoo->pid()), "");
  EXPECT_EQ(zoo->finish(), 0);
}

TEST_F(SnapErrors, InterruptedSnapLetsTheProcessGo) {
  auto zoo = startZoo("go1.24", dir_.path, "live");
  const ZooState before = stateOf(*zoo);
  const std::string err = dir_.path + "/snap.err";
  const pid_t snap = slowSnap(zoo->pid(), dir_.path + "/x.core", err);
  ASSERT_GT(snap, 0);
  ::kill(snap, SIGINT);
  EXPECT_EQ(waitExit(snap), 1);
  EXPECT_NE(testing::readText(err).find("interrupted"), std::string::npos)
      << testing::readText(err);
  for (const fs::directory_entry& e : fs::directory_iterator(dir_.path)) {
    EXPECT_EQ(e.path().string().find(".core"), std::string::npos) << e.path() << " left behind";
  }
  expectLeftAsFound(*zoo, before);
  EXPECT_EQ(zoo->finish(), 0);
}

// ---- a process in a container ---------------------------------------------
//
// What a container is to the host, made with util-linux: zoo runs in PID and
// mount namespaces of its own, from a tmpfs mounted inside them, so that the
// path it runs from (dir/hidden/app) is an empty folder to goheap. The core
// records that path; the executable is reached through /proc/PID/exe alone.

// The share of the reachable bytes a summary --json typed.
double typedShare(const JsonValue& summary) {
  const double reachable = static_cast<double>(summary["objects"]["reachable_bytes"].u64());
  const double typed = static_cast<double>(summary["types"]["typed_reachable_bytes"].u64());
  return reachable > 0 ? typed / reachable : 0;
}

// The one child of `pid` (/proc/PID/task/PID/children), 0 until it has one.
pid_t onlyChildOf(pid_t pid) {
  const std::string children = testing::readText("/proc/" + std::to_string(pid) + "/task/" +
                                                 std::to_string(pid) + "/children");
  return static_cast<pid_t>(std::atoi(children.c_str()));
}

class SnapContainer : public SnapErrors {
 protected:
  void SetUp() override {
    SnapErrors::SetUp();
    if (IsSkipped()) return;
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to make namespaces and mount a tmpfs";
    hidden_ = dir_.path + "/hidden";
    ASSERT_TRUE(fs::create_directory(hidden_));
    // --kill-child: unshare killed (the test's end) takes the container with it.
    const std::string script =
        "mount -t tmpfs -o size=64m goheap-test \"$2\" && cp \"$1\" \"$2/app\" && "
        "{ [ -z \"$5\" ] || cp \"$5\" \"$2/\"; } && exec \"$2/app\" \"$3\" \"$4\" live";
    container_ = std::make_unique<LiveProcess>(
        std::vector<std::string>{"/usr/bin/unshare", "--pid", "--mount", "--fork", "--mount-proc",
                                 "--propagation", "private", "--kill-child", "/bin/sh", "-c",
                                 script, "container", program(), hidden_, dir_.path + "/zoo.dump",
                                 dir_.path + "/zoo.json", besideProgram()},
        dir_.path);
    ASSERT_TRUE(container_->started());
    ASSERT_EQ(container_->readLine(), "ready");
    app_ = onlyChildOf(container_->pid());
    ASSERT_GT(app_, 0);
    // What goheap sees: a process whose path leads nowhere here.
    ASSERT_EQ(testing::readText("/proc/" + std::to_string(app_) + "/comm"), "app\n");
    ASSERT_FALSE(fs::exists(hidden_ + "/app"));
  }
  // A debug container's root folder: goheap (bound there when the container
  // starts), the shared libraries ldd says it loads (none for a static
  // build) and an empty /proc; nothing else.
  // The goheap a debug container holds: the static build when
  // scripts/test.sh made one (GOHEAP_STATIC_BINARY, as the release ships
  // it), else this build's.
  static std::string debugContainerGoheap() {
    const char* path = std::getenv("GOHEAP_STATIC_BINARY");
    return path != nullptr && fs::exists(path) ? std::string(path) : std::string(GOHEAP_BINARY);
  }
  // A root folder holding only a place to bind `goheap` at and, when it is
  // linked dynamically, its libraries.
  static void makeDebugContainerRoot(const std::string& root, const std::string& goheap) {
    fs::create_directories(root + "/proc");
    std::ofstream(root + "/goheap").close();  // where goheap is bound
    if (goheap != GOHEAP_BINARY) return;
    const testing::RunResult ldd = runCommand({"/usr/bin/ldd", GOHEAP_BINARY});
    std::istringstream words(ldd.out);
    for (std::string word; words >> word;) {
      if (!word.starts_with("/")) continue;
      fs::create_directories(root + fs::path(word).parent_path().string());
      fs::copy_file(word, root + word, fs::copy_options::overwrite_existing);
    }
  }
  // The program the container runs, and a file put beside it ("" for none).
  virtual std::string program() const { return zooOf("go1.24"); }
  virtual std::string besideProgram() const { return ""; }
  // The program as an ordinary process is typed: the same zoo, run on the host.
  double ordinaryTypedShare() {
    auto zoo = startZoo("go1.24", dir_.path + "/ordinary", "live");
    const testing::RunResult r =
        testing::runGoheap({"summary", "--json", "--pid", std::to_string(zoo->pid())});
    EXPECT_EQ(r.code, 0) << r.describe();
    EXPECT_EQ(zoo->finish(), 0);
    return r.code == 0 ? typedShare(JsonValue::parse(r.out)) : 0;
  }
  std::string hidden_;
  std::unique_ptr<LiveProcess> container_;
  pid_t app_ = 0;
};

// The host's view: --pid reads the executable through /proc/PID/exe, and
// types the heap as it does the same program run on the host.
TEST_F(SnapContainer, PidReadsTheExecutableThroughProc) {
  const testing::RunResult r =
      testing::runGoheap({"summary", "--json", "--pid", std::to_string(app_)});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("read its executable " + hidden_ + "/app through /proc/" +
                       std::to_string(app_) + "/exe"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(answersPing(*container_));
  EXPECT_EQ(settledAsFound(app_), "");
  fs::create_directory(dir_.path + "/ordinary");
  const double ordinary = ordinaryTypedShare();
  const double share = typedShare(JsonValue::parse(r.out));
  EXPECT_GE(share, 0.95) << r.out;
  EXPECT_GE(share, ordinary - 0.01) << "the same program on the host: " << ordinary;
}

// A snap outlives its container: the executable is copied beside the core
// by default, and the core is read with it once the process and its tmpfs
// are gone.
TEST_F(SnapContainer, ASnapReadsAfterTheContainerIsGone) {
  const std::string core = dir_.path + "/x.core";
  const testing::RunResult snap = testing::runGoheap({"snap", std::to_string(app_), "-o", core});
  ASSERT_EQ(snap.code, 0) << snap.describe();
  EXPECT_NE(snap.out.find("copied the executable to " + dir_.path + "/x.exe"), std::string::npos)
      << snap.out;
  EXPECT_EQ(testing::readText(dir_.path + "/x.exe"), testing::readText(zooOf("go1.24")));
  ::kill(app_, SIGKILL);
  EXPECT_NE(container_->finish(), 0);
  ASSERT_FALSE(fs::exists("/proc/" + std::to_string(app_) + "/exe"));

  const testing::RunResult r = testing::runGoheap({"summary", "--json", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("x.exe (found through the snap's copy)"), std::string::npos) << r.err;
  EXPECT_GE(typedShare(JsonValue::parse(r.out)), 0.95) << r.out;
}

// snap -o - through a pipe (kubectl exec ... -o - > x.core): the core
// carries the executable, and is read typed with nothing beside it once
// the process and its tmpfs are gone; standard output holds the core alone.
TEST_F(SnapContainer, ACoreStreamedThroughAPipeCarriesItsProgram) {
  const std::string core = dir_.path + "/streamed.core";
  const testing::RunResult snap =
      runCommand({"/bin/sh", "-c", "\"$0\" snap \"$1\" -o - | cat > \"$2\"", GOHEAP_BINARY,
                  std::to_string(app_), core});
  ASSERT_EQ(snap.code, 0) << snap.describe();
  EXPECT_EQ(snap.out, "");
  EXPECT_NE(snap.err.find("wrote the core to standard output"), std::string::npos) << snap.err;
  EXPECT_NE(snap.err.find("the executable travels inside the core"), std::string::npos) << snap.err;
  EXPECT_FALSE(fs::exists(dir_.path + "/streamed.exe"));
  EXPECT_TRUE(answersPing(*container_));
  EXPECT_EQ(settledAsFound(app_), "");
  ::kill(app_, SIGKILL);
  EXPECT_NE(container_->finish(), 0);

  const testing::RunResult r = testing::runGoheap({"summary", "--json", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("found through the executable the core carries"), std::string::npos)
      << r.err;
  EXPECT_GE(typedShare(JsonValue::parse(r.out)), 0.95) << r.out;
  // The same answer as with the program given.
  const testing::RunResult given = testing::runGoheap({"summary", "--json", core, zooOf("go1.24")});
  ASSERT_EQ(given.code, 0) << given.describe();
  EXPECT_EQ(JsonValue::parse(r.out)["types"]["typed_reachable_bytes"].u64(),
            JsonValue::parse(given.out)["types"]["typed_reachable_bytes"].u64());
}

// --no-exe-copy: no copy, and the core then names what it cannot find.
TEST_F(SnapContainer, NoExeCopyLeavesTheCoreWithoutItsProgram) {
  const std::string core = dir_.path + "/bare.core";
  const testing::RunResult snap =
      testing::runGoheap({"snap", std::to_string(app_), "-o", core, "--no-exe-copy"});
  ASSERT_EQ(snap.code, 0) << snap.describe();
  EXPECT_FALSE(fs::exists(dir_.path + "/bare.exe"));
  const testing::RunResult r = testing::runGoheap({"summary", core});
  EXPECT_EQ(r.code, 2) << r.describe();  // needs input: the executable
  EXPECT_NE(r.err.find(hidden_ + "/app (the snap note): no such file"), std::string::npos) << r.err;
}

// The debug container's view (kubectl debug --target): goheap in the
// target's PID namespace, with /proc mounted from inside it, in a root
// folder of its own that holds goheap alone (the static build; a dynamic one
// brings its libraries), where the target's files are not. The target is
// process 1 there.
TEST_F(SnapContainer, SnapOneFromInsideThePidNamespace) {
  const std::string root = dir_.path + "/debugger";
  const std::string goheap = debugContainerGoheap();
  makeDebugContainerRoot(root, goheap);
  const std::string script =
      "mount -t proc proc \"$1/proc\" && mount --bind \"$2\" \"$1/goheap\" && "
      "exec /usr/sbin/chroot \"$1\" /goheap snap 1 -o /inside.core";
  const testing::RunResult snap =
      runCommand({"/usr/bin/nsenter", "--target", std::to_string(app_), "--pid", "--",
                  "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                  script, "debug-container", root, goheap});
  ASSERT_EQ(snap.code, 0) << goheap << ": " << snap.describe();
  EXPECT_NE(snap.out.find("snapped process 1 (app, "), std::string::npos) << snap.out;
  EXPECT_TRUE(answersPing(*container_));
  EXPECT_EQ(settledAsFound(app_), "");
  ::kill(app_, SIGKILL);
  EXPECT_NE(container_->finish(), 0);
  const std::string core = root + "/inside.core";
  const testing::RunResult r = testing::runGoheap({"summary", "--json", core});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("inside.exe (found through the snap's copy)"), std::string::npos) << r.err;
  EXPECT_GE(typedShare(JsonValue::parse(r.out)), 0.95) << r.out;
}

// A stripped program with its debug file beside it in the container (by
// .gnu_debuglink): --pid finds it under /proc/PID/root, and takes the types
// from its DWARF.
class SnapContainerStripped : public SnapContainer {
 protected:
  static std::string folder() { return std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/debugfile"; }
  std::string program() const override { return folder() + "/zoo-stripped"; }
  std::string besideProgram() const override { return folder() + "/zoo-stripped.debug"; }
};

TEST_F(SnapContainerStripped, PidFindsTheDebugFileInTheContainer) {
  ASSERT_FALSE(fs::exists(hidden_ + "/zoo-stripped.debug"));
  const testing::RunResult r =
      testing::runGoheap({"summary", "--json", "--pid", std::to_string(app_)});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("DWARF from /proc/" + std::to_string(app_) + "/root" + hidden_ +
                       "/zoo-stripped.debug (found by .gnu_debuglink)"),
            std::string::npos)
      << r.err;
  const JsonValue summary = JsonValue::parse(r.out);
  EXPECT_EQ(summary["executable"]["dwarf"]["source"].str(), "debug_file") << r.out;
  EXPECT_GE(typedShare(summary), 0.95) << r.out;
}

}  // namespace
}  // namespace goheap
