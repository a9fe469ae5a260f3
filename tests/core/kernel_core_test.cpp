// Real cores written by the Linux kernel (and, for arm64, by qemu-user): tests/programs/coreprog,
// built by make-dumps.sh with each Go release, is run here in a temporary directory with the core
// size limit raised; it reports where its heap values are and what they hold, and dies of SIGABRT
// with GOTRACEBACK=crash. The core must hold those bytes, the executable (through the memory
// image's fallback) the string constant, NT_FILE must name the executable, AT_ENTRY minus the load
// bias must be the executable's own e_entry, and a thread must have been in its text. The heap
// objects walked from the core must match the heap dump the program wrote just before it died.
// The core (about 40 MB) is deleted at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A temporary directory, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "goheap-core-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// Why the kernel would not write a core into the working directory, or "".
std::string corePatternProblem() {
  std::string pattern = readText("/proc/sys/kernel/core_pattern");
  while (!pattern.empty() && (pattern.back() == '\n' || pattern.back() == ' ')) pattern.pop_back();
  if (pattern.empty()) return "cannot read /proc/sys/kernel/core_pattern";
  if (pattern[0] == '|') return "core_pattern pipes cores to a program (" + pattern + ")";
  if (pattern.find('/') != std::string::npos) {
    return "core_pattern writes cores elsewhere (" + pattern + ")";
  }
  return "";
}

// Runs EXE REPORT in DIR with the core limit raised and GOTRACEBACK=crash;
// "" when it died of a signal and dumped core, else why not.
std::string runToCrash(const std::vector<std::string>& argv, const std::string& dir) {
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(96);
    rlimit lim{};
    if (getrlimit(RLIMIT_CORE, &lim) != 0) _exit(97);
    lim.rlim_cur = lim.rlim_max;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < (1u << 30)) _exit(97);
    if (setrlimit(RLIMIT_CORE, &lim) != 0) _exit(97);
    const int out = open("output.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    setenv("GOTRACEBACK", "crash", 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(98);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 97) return "cannot raise RLIMIT_CORE to write a core";
    return "the program exited with status " + std::to_string(WEXITSTATUS(status)) +
           " instead of dying of SIGABRT: " + readText(dir + "/output.txt").substr(0, 500);
  }
  if (!WCOREDUMP(status)) {
    return "the program died of signal " + std::to_string(WTERMSIG(status)) +
           " but the kernel wrote no core";
  }
  return "";
}

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
// the dump's counts.
void expectHeapMatchesDump(const core::CoreFile& core, const std::string& exe,
                           const std::string& dump_path, const JsonValue& report,
                           uint64_t& dump_objects, uint64_t& dump_bytes) {
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  const bin::Container& c = binary->container();
  auto dwarf = bin::DebugInfo::read(c);
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  auto layout = core::readRuntimeLayout(*dwarf, c.ptr_size);
  ASSERT_TRUE(layout) << layout.error().message();
  const core::MemoryImage mem(core, c, core::checkExecutable(core, c, exe).bias);
  auto heap = core::walkHeap(mem, *layout);
  ASSERT_TRUE(heap) << heap.error().message();
  for (const std::string& w : heap->warnings) ADD_FAILURE() << w;
  EXPECT_GT(heap->count(), 2000u);

  auto snap = testing::openSnapshot(dump_path, {}, false);
  ASSERT_TRUE(snap) << snap.error().message();
  const analysis::Snapshot& s = **snap;
  dump_objects = 0;
  dump_bytes = 0;
  uint64_t reachable = 0, reachable_found = 0;
  for (size_t n = 0; n < s.dump.objects.count(); ++n) {
    if (s.dump.objects.isSpanMetadata(n)) continue;
    const uint64_t addr = s.dump.objects.addr[n], size = s.dump.objects.size[n];
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

  std::vector<std::string> reported;
  for (const JsonValue& v : report["values"].items()) reported.push_back(v["addr"].str());
  for (const JsonValue& v : report["held"].items()) reported.push_back(v.str());
  EXPECT_GT(reported.size(), 20u);
  for (const std::string& a : reported) {
    EXPECT_GE(objectHolding(*heap, std::stoull(a, nullptr, 16)), 0)
        << a << " is in no walked object";
  }
}

// The file in DIR whose name starts with PREFIX (and ends with SUFFIX).
std::string findFile(const std::string& dir, const std::string& prefix,
                     const std::string& suffix = "") {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.ends_with(suffix)) return e.path().string();
  }
  return "";
}

class KernelCore : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelCore, HoldsWhatTheProgramReported) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  if (!fs::exists(exe)) {
    GTEST_SKIP() << exe << " is missing (tests/programs/make-dumps.sh builds it)";
  }
  if (const std::string p = corePatternProblem(); !p.empty()) {
    GTEST_SKIP() << "cannot have the kernel write a core: " << p;
  }
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string report_path = dir.path + "/report.json";
  const std::string dump_path = dir.path + "/heap.dump";
  if (const std::string p = runToCrash({exe, report_path, dump_path}, dir.path); !p.empty()) {
    if (p.find("RLIMIT_CORE") != std::string::npos ||
        p.find("wrote no core") != std::string::npos) {
      GTEST_SKIP() << p;
    }
    FAIL() << p;
  }
  const std::string core_path = findFile(dir.path, "core");
  ASSERT_FALSE(core_path.empty()) << "the kernel reported a core but none is in " << dir.path;
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
  uint64_t dump_objects = 0, dump_bytes = 0;
  expectHeapMatchesDump(*core, exe, dump_path, report, dump_objects, dump_bytes);

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

// The first of `names` found on PATH, or "".
std::string onPath(std::initializer_list<std::string> names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::vector<std::string> list;
  for (std::string d; std::getline(dirs, d, ':');) list.push_back(d);
  for (const std::string& n : names) {
    for (const std::string& d : list) {
      if (access((d + "/" + n).c_str(), X_OK) == 0) return d + "/" + n;
    }
  }
  return "";
}

// arm64 cores as qemu-user writes them (qemu_<prog>_<time>_<pid>.core in
// the working directory, without NT_FILE), of coreprog cross-built by
// make-dumps.sh. The kernel also writes a core of qemu itself: both go.
class QemuArm64Core : public ::testing::TestWithParam<std::string> {};

TEST_P(QemuArm64Core, HoldsWhatTheProgramReported) {
  const std::string exe =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/cross/coreprog-arm64";
  if (!fs::exists(exe)) {
    GTEST_SKIP() << exe << " is missing (tests/programs/make-dumps.sh builds it)";
  }
  const std::string qemu = onPath({"qemu-aarch64-static", "qemu-aarch64"});
  if (qemu.empty()) GTEST_SKIP() << "qemu-aarch64 is not installed (apt-get install qemu-user)";
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string report_path = dir.path + "/report.json";
  if (const std::string p = runToCrash({qemu, exe, report_path}, dir.path); !p.empty()) {
    if (p.find("RLIMIT_CORE") != std::string::npos) GTEST_SKIP() << p;
    // qemu dies of the guest's signal; whether the kernel dumps qemu too
    // does not matter here.
    if (p.find("wrote no core") == std::string::npos) FAIL() << p;
  }
  const std::string core_path = findFile(dir.path, "qemu_", ".core");
  ASSERT_FALSE(core_path.empty()) << "qemu wrote no core into " << dir.path;
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

INSTANTIATE_TEST_SUITE_P(Versions, KernelCore, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);
INSTANTIATE_TEST_SUITE_P(Versions, QemuArm64Core, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
