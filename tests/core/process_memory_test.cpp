// `goheap memory` against tests/programs/memprog, which mallocs known
// amounts in C, parks goroutines, maps a file and frees Go memory without
// returning it, then reports its own MemStats, Rss and C byte counts
// (support/memory_truth.h): on a kernel core of it and on one gcore
// (deleted straight after: gdb writes the runtime's whole reservation,
// ~1.2 GB). Snaps are checked in tests/acquire/snap_test.cpp, its heap
// dump, which has memstats only, in tests/questions/memory_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/live_process.h"
#include "support/memory_truth.h"
#include "support/param_names.h"
#include "support/test_paths.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;

std::string memprogOf(const std::string& version) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version + "/memprog";
}

JsonValue memoryJson(const std::vector<std::string>& args) {
  std::vector<std::string> all{"memory"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--json");
  const testing::RunResult r = testing::runGoheap(all);
  EXPECT_TRUE(r.exited && r.code == 0) << r.describe();
  return JsonValue::parse(r.out);
}

class ProcessMemory : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fs::exists(memprogOf(GetParam()))) {
      GTEST_SKIP() << memprogOf(GetParam()) << " is missing: make-dumps.sh builds it";
    }
  }
};

TEST_P(ProcessMemory, KernelCoreAccountsForEveryByte) {
  const std::string exe = memprogOf(GetParam());
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/memprog.dump", "{dir}/memprog.json", "crash"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  const JsonValue memory = memoryJson({run.core, exe});
  EXPECT_EQ(memory["source"].str(), "kernel core");
  const JsonValue truth = JsonValue::parseFile(run.dir.path + "/memprog.json");
  testing::expectMemoryTruth(memory, truth);
  // The text says the same: every category, the memstats beside them.
  const testing::RunResult text = testing::runGoheap({"memory", run.core, exe, "--mappings"});
  if (HasFailure()) ADD_FAILURE() << "goheap memory says:\n" << text.out;
  EXPECT_EQ(text.code, 0) << text.describe();
  for (const char* want : {"heap_objects", "c_heap", "mapped_files", "reserved", "HeapAlloc",
                           "memprog.mapped", "the brk heap"}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << " in:\n" << text.out;
  }
  // SQL's mappings table: every mapping, adding up to the same total.
  const testing::RunResult sql = testing::runGoheap(
      {"sql", run.core, exe, "--json", "-e",
       "SELECT count(*) AS n, sum(size) AS bytes, count(resident) AS resident FROM mappings"});
  ASSERT_EQ(sql.code, 0) << sql.describe();
  const JsonValue row = JsonValue::parse(sql.out)["results"][size_t{0}]["rows"][size_t{0}];
  EXPECT_GT(row[size_t{0}].u64(), 10u);
  EXPECT_EQ(row[size_t{1}].u64(), memory["total"].u64());
  EXPECT_EQ(row[size_t{2}].u64(), 0u) << "a kernel core knows no Rss";
  // And summary's line and JSON object.
  const testing::RunResult summary = testing::runGoheap({"summary", run.core, exe, "--json"});
  ASSERT_EQ(summary.code, 0) << summary.describe();
  const JsonValue s = JsonValue::parse(summary.out);
  EXPECT_EQ(s["process_memory"]["total"].u64(), memory["total"].u64());
}

// The stripped twin (-s -w): the runtime's layouts from goheap's table, no
// symbols for persistentalloc's chunks (said in a note), the same truth.
TEST_P(ProcessMemory, KernelCoreOfTheStrippedTwin) {
  const std::string exe =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/stripped/memprog";
  if (!fs::exists(exe)) GTEST_SKIP() << exe << " is missing: make-dumps.sh builds it";
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/memprog.dump", "{dir}/memprog.json", "crash"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  const JsonValue memory = memoryJson({run.core, exe});
  testing::expectMemoryTruth(memory, JsonValue::parseFile(run.dir.path + "/memprog.json"));
  bool said = false;
  for (const JsonValue& n : memory["notes"].items()) {
    said |= n.str().find("persistentChunks is not known") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

INSTANTIATE_TEST_SUITE_P(Releases, ProcessMemory,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

// gdb's gcore of a live memprog: what gdb wrote, said so. One release: the
// core is about 1.2 GB, and is deleted straight after.
TEST(ProcessMemoryGcore, GcoreAccountsForWhatGdbWrote) {
  const std::string gcore = testing::onPath({"gcore"});
  if (gcore.empty()) GTEST_SKIP() << "gdb's gcore is not installed";
  const std::string exe = memprogOf("go1.27");
  if (!fs::exists(exe)) GTEST_SKIP() << exe << " is missing";
  testing::TempDir dir;
  testing::LiveProcess prog({exe, dir.path + "/memprog.dump", dir.path + "/memprog.json", "live"},
                            dir.path);
  ASSERT_TRUE(prog.started());
  ASSERT_EQ(prog.readLine(), "ready");
  const std::string core = dir.path + "/gcore";
  const std::string command = gcore + " -o " + core + " " + std::to_string(prog.pid()) + " > " +
                              dir.path + "/gcore.log 2>&1";
  const int status = std::system(command.c_str());
  const std::string written = core + "." + std::to_string(prog.pid());
  if (status != 0 || !fs::exists(written)) {
    GTEST_SKIP() << "gcore could not attach (ptrace is not allowed here): "
                 << testing::readText(dir.path + "/gcore.log");
  }
  const JsonValue memory = memoryJson({written, exe});
  fs::remove(written);
  EXPECT_EQ(memory["source"].str(), "gcore");
  EXPECT_NE(memory["total_is"].str().find("leaves out"), std::string::npos);
  uint64_t reserved = 0;
  for (const JsonValue& c : memory["categories"].items()) {
    if (c["name"].str() == "reserved") reserved = c["bytes"].u64();
  }
  EXPECT_GT(reserved, uint64_t{256} << 20) << "the reservations gdb writes as readable zeros";
  testing::expectMemoryTruth(memory, JsonValue::parseFile(dir.path + "/memprog.json"),
                             /*gcore=*/true);
  EXPECT_EQ(prog.finish(), 0);
}

}  // namespace
}  // namespace goheap
