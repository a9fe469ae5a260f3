// --threads N changes how a heap is opened (the graph's edges split over
// threads, typing on every thread, a cache entry checked beside the
// graph), never what goheap answers: every command's --json is the same,
// byte for byte, on 1, 2 and 8 threads, on the real test dumps of every Go
// release, with and without DWARF, and read back from the cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/param_names.h"

namespace goheap {
namespace {

// The output without its "seconds" lines (sql's timing), which are the
// only ones allowed to differ from run to run.
std::string withoutTimings(const std::string& out) {
  std::string kept;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    end = end == std::string::npos ? out.size() : end + 1;
    const std::string line = out.substr(start, end - start);
    if (line.find("\"seconds\":") == std::string::npos) kept += line;
    start = end;
  }
  return kept;
}

using testing::RunResult;

class Threads : public ::testing::TestWithParam<std::string> {
 protected:
  std::string dir() const { return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam(); }

  RunResult run(std::vector<std::string> args, const std::string& threads,
                std::vector<std::string> extra = {"--no-cache"}) {
    args.insert(args.end(), {"--json", "--no-progress", "--threads", threads});
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::runGoheap(args);
  }

  void expectSameOnAnyThreads(const std::vector<std::string>& args) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    const RunResult one = run(args, "1");
    ASSERT_TRUE(one.exited && one.code == 0) << one.describe();
    EXPECT_GT(one.out.size(), 20u);
    for (const char* threads : {"2", "8"}) {
      const RunResult many = run(args, threads);
      ASSERT_TRUE(many.exited && many.code == 0) << many.describe();
      EXPECT_EQ(withoutTimings(many.out), withoutTimings(one.out)) << "--threads " << threads;
    }
  }
};

TEST_P(Threads, EveryCommandAnswersTheSameOnOneTwoAndEightThreads) {
  const std::string d = dir();
  for (const std::vector<std::string>& heap :
       {std::vector<std::string>{d + "/zoo.dump", d + "/zoo"},
        std::vector<std::string>{d + "/leaks.dump", d + "/leaks"},
        std::vector<std::string>{d + "/leaks.dump", d + "/stripped/leaks"},
        std::vector<std::string>{d + "/retention.dump"}}) {
    ASSERT_TRUE(std::filesystem::exists(heap[0]))
        << heap[0] << ": tests/programs/make-dumps.sh makes it";
    for (const char* cmd : {"summary", "top", "dom", "goroutines", "suspects", "dups", "waste"}) {
      std::vector<std::string> args{cmd};
      args.insert(args.end(), heap.begin(), heap.end());
      expectSameOnAnyThreads(args);
    }
    std::vector<std::string> by_site{"top"};
    by_site.insert(by_site.end(), heap.begin(), heap.end());
    by_site.insert(by_site.end(), {"--by", "site"});
    expectSameOnAnyThreads(by_site);
  }
  expectSameOnAnyThreads({"diff", d + "/leaks.old.dump", d + "/leaks.dump", d + "/leaks"});
  expectSameOnAnyThreads({"sql", d + "/zoo.dump", d + "/zoo", "-e",
                          "SELECT id, type, type_evidence, dominator, retained FROM objects"});
}

// A cache entry is checked beside the graph on two threads or more, after
// it on one: both read back what was written.
TEST_P(Threads, ACacheEntryReadsTheSameOnOneAndEightThreads) {
  const std::string d = dir();
  const std::string folder = testing::scratch().file("threads-cache-" + GetParam());
  std::filesystem::remove_all(folder);
  const std::vector<std::string> args{"top", d + "/leaks.dump", d + "/leaks"};
  const RunResult fresh = run(args, "8");
  ASSERT_TRUE(fresh.exited && fresh.code == 0) << fresh.describe();
  for (const char* threads : {"8", "1", "8"}) {  // writes, then reads twice
    const RunResult cached = run(args, threads, {"--cache", folder});
    ASSERT_TRUE(cached.exited && cached.code == 0) << cached.describe();
    EXPECT_EQ(cached.out, fresh.out) << "--threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(GoVersions, Threads, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
