// The offline goroutine leak analysis (analysis/goroutine_leaks.h) against
// the truth of tests/programs/goleak: the goroutines it started to block
// forever, and the decoys blocked on something still reachable, by
// blocking function.
#include "analysis/goroutine_leaks.h"

#include "analysis/goroutine_info.h"

#include <gtest/gtest.h>

#include <string>

#include "support/go_versions.h"
#include "support/goleak_truth.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

class GoroutineLeaks : public ::testing::TestWithParam<std::string> {
 protected:
  std::string dir() const { return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam(); }
  // The dump in `folder` (the program's, or its stripped twin's) with
  // executable `exe`, which has DWARF or not.
  void check(const std::string& folder, const std::string& exe, bool with_dwarf) {
    SCOPED_TRACE(exe.empty() ? "no executable" : exe);
    auto snap = testing::openSnapshot(folder + "/goleak.dump", exe);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    testing::expectGoleakTruth(**snap, testing::JsonValue::parseFile(folder + "/goleak.json"),
                               with_dwarf);
  }
};

TEST_P(GoroutineLeaks, MatchTheProgramsTruthWithItsExecutable) {
  check(dir(), dir() + "/goleak", true);
}

// A stripped build (-ldflags='-s -w') has no DWARF: the layouts come from
// the committed table of its release, the functions from its pclntab.
TEST_P(GoroutineLeaks, MatchTheProgramsTruthWithItsStrippedExecutable) {
  check(dir() + "/stripped", dir() + "/stripped/goleak", false);
}

// Without the executable the layouts come from the committed table of the
// dump's release.
TEST_P(GoroutineLeaks, MatchTheProgramsTruthWithoutAnExecutable) {
  check(dir(), "", false);
}

// The kernel's core of the same program, which dies right after its dump:
// the goroutines and their g.waiting read from the process's memory.
TEST_P(GoroutineLeaks, MatchTheProgramsTruthInAKernelCore) {
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(dir() + "/goleak", run,
                                {"{dir}/goleak.dump", "{dir}/goleak.json", "crash"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  auto snap = testing::openSnapshot(run.core, dir() + "/goleak");
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  testing::expectGoleakTruth(**snap, testing::JsonValue::parseFile(run.dir.path + "/goleak.json"),
                             true);
}

INSTANTIATE_TEST_SUITE_P(GoVersions, GoroutineLeaks,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

// A core taken after the runtime's goroutineleak profile marked its leaks
// (Go 1.27, where the profile is on by default): they show as marked by the runtime, never as
// unknown, and the analysis, which reads their wait reasons still, agrees.
TEST(GoroutineLeaks, ACoreAfterTheRuntimesProfileShowsItsMarks) {
  const std::string version = "go1.27";
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version;
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(dir + "/goleak", run,
                                {"{dir}/goleak.dump", "{dir}/goleak.json", "profile-crash"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  auto snap = testing::openSnapshot(run.core, dir + "/goleak");
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  const testing::JsonValue truth = testing::JsonValue::parseFile(run.dir.path + "/goleak.json");
  ASSERT_TRUE(truth.has("runtime_profile"));
  uint64_t profiled = 0;
  for (const auto& [fn, n] : truth["runtime_profile"].members()) profiled += n.u64();
  uint64_t marked = 0;
  for (const analysis::GoroutineInfo& g : analysis::goroutines(**snap)) {
    EXPECT_NE(g.status_name, "unknown") << "goroutine " << g.id;
    if (g.status == 10) {
      marked++;
      EXPECT_EQ(g.status_name, "leaked (marked by the runtime)");
      EXPECT_TRUE(g.leaked) << "goroutine " << g.id << " in " << g.blocked_in;
    }
  }
  EXPECT_EQ(marked, profiled);
  testing::expectGoleakTruth(**snap, truth, true);
}

}  // namespace
}  // namespace goheap
