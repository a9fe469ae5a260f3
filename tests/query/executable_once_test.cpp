// query::open opens the program's executable once and parses its DWARF once
// (issue 27): the core reader, the cache key, the binding and the typing all
// use that one bin::Binary. The opens are counted by the kernel (inotify's
// IN_OPEN on a private copy of the executable, which no other test runs),
// not by goheap; the DWARF parses by the one Binary the Snapshot keeps, and
// by the sources, where only bin::Binary may call DebugInfo::read.
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "support/kernel_core.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

// Counts the times any process opens one file while it lives.
class OpenCounter {
 public:
  explicit OpenCounter(const std::string& path) {
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    // Closes too: inotify folds identical events in a row into one, so two
    // opens with nothing between them would count once.
    if (fd_ >= 0) watch_ = inotify_add_watch(fd_, path.c_str(), IN_OPEN | IN_CLOSE_NOWRITE);
  }
  ~OpenCounter() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0 && watch_ >= 0; }
  // The opens since the last call.
  int take() {
    int opens = 0;
    alignas(inotify_event) char buffer[4096];
    for (;;) {
      const ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buffer + at);
        if ((e->mask & IN_OPEN) != 0) opens++;
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
    return opens;
  }

 private:
  int fd_ = -1;
  int watch_ = -1;
};

class ExecutableOnce : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecutableOnce, OneOpenAndOneDwarfParsePerCoreAndPerDump) {
  const std::string built = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/coreprog";
  ASSERT_TRUE(fs::exists(built)) << built << " is missing: make-dumps.sh builds it";
  testing::TempDir copy;
  const std::string exe = copy.path + "/coreprog";
  fs::copy_file(built, exe);
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/report.json", "{dir}/heap.dump"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;

  OpenCounter opens(exe);
  ASSERT_TRUE(opens.ok());
  auto core = testing::openSnapshot(run.core, exe);
  ASSERT_TRUE(core.ok()) << core.error().message();
  ASSERT_TRUE((*core)->exe) << (*core)->exe_problem;
  ASSERT_TRUE((*core)->types) << (*core)->types_problem;
  EXPECT_EQ(opens.take(), 1) << "opens of the executable in one query::open of a core";
  // The core reader read the runtime's layouts from DWARF and the typing
  // typed the objects from it: one parse between them.
  EXPECT_EQ((*core)->exe->binary().debugInfoReads(), 1);

  auto dump = testing::openSnapshot(run.dir.path + "/heap.dump", exe);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  ASSERT_TRUE((*dump)->exe) << (*dump)->exe_problem;
  ASSERT_TRUE((*dump)->types) << (*dump)->types_problem;
  EXPECT_EQ(opens.take(), 1) << "opens of the executable in one query::open of a dump";
  EXPECT_EQ((*dump)->exe->binary().debugInfoReads(), 1);
}

INSTANTIATE_TEST_SUITE_P(GoVersions, ExecutableOnce, ::testing::Values("go1.24", "go1.27"),
                         testing::pathParamName);

// Only bin::Binary parses DWARF (once, on first use); a stage that called
// DebugInfo::read itself would parse it again.
TEST(ExecutableOnceSources, OnlyTheBinaryParsesDwarf) {
  const fs::path src = fs::path(GOHEAP_SOURCE_DIR) / "src";
  const std::regex call(R"(DebugInfo::read\()");
  std::vector<std::string> callers;
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (entry.path().extension() != ".cpp" && entry.path().extension() != ".h") continue;
    files++;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    if (std::regex_search(s, call)) callers.push_back(fs::relative(entry.path(), src).string());
  }
  ASSERT_GT(files, 100u);
  std::sort(callers.begin(), callers.end());
  EXPECT_EQ(callers, (std::vector<std::string>{"bin/binary.cpp", "bin/debug_info.cpp"}));
}

}  // namespace
}  // namespace goheap
