// The index cache as a user meets it, through the real binary on the real
// test dumps: a second open reads the cache and answers exactly as a run
// without the cache does, for every command; a changed heap misses; a
// damaged entry is ignored with one warning and written again; a folder
// that cannot be used only costs a warning; two goheaps at once both work.
//
// The oracle is goheap run with --no-cache, which computes everything from
// the heap: the cache must change nothing but the time.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;
using testing::runGoheap;
using testing::RunResult;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

size_t occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    n++;
  }
  return n;
}

std::string freshFolder(const std::string& name) {
  const std::string path = testing::scratch().file("cache-reopen-" + name);
  fs::remove_all(path);
  return path;
}

// The entries (.ghx files) in a cache folder.
std::vector<fs::path> entries(const std::string& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (e.path().extension() == ".ghx") out.push_back(e.path());
  }
  return out;
}

// Whether a run's --timings say it read the cache and computed nothing.
bool readTheCache(const RunResult& r) {
  return contains(r.err, "read index cache") && !contains(r.err, "dominators") &&
         !contains(r.err, "build graph");
}

// A program's dump and executable as make-dumps.sh wrote them.
struct Heap {
  std::string dump;
  std::string exe;
};

class CacheReopen : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
    zoo_ = {dir + "/zoo.dump", dir + "/zoo"};
    leaks_ = {dir + "/leaks.dump", dir + "/leaks"};
    leaks_old_ = dir + "/leaks.old.dump";
    for (const std::string& f : {zoo_.dump, zoo_.exe, leaks_.dump, leaks_.exe, leaks_old_}) {
      ASSERT_TRUE(fs::exists(f)) << f << " is missing: tests/programs/make-dumps.sh makes it";
    }
  }

  // `goheap ARGS --json --no-progress` three times: without the cache, with
  // an empty one (which it fills) and again (which reads it). All three
  // must print the same; the last must have read the cache.
  void expectSameFromTheCache(const std::vector<std::string>& args, const std::string& folder) {
    SCOPED_TRACE(args[0]);
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> all = args;
      all.insert(all.end(), {"--json", "--no-progress"});
      all.insert(all.end(), extra.begin(), extra.end());
      return runGoheap(all);
    };
    const RunResult fresh = with({"--no-cache"});
    ASSERT_TRUE(fresh.exited && fresh.code == 0) << fresh.describe();
    const RunResult filling = with({"--cache", folder});
    ASSERT_TRUE(filling.exited && filling.code == 0) << filling.describe();
    const RunResult cached = with({"--cache", folder, "--timings"});
    ASSERT_TRUE(cached.exited && cached.code == 0) << cached.describe();
    EXPECT_TRUE(readTheCache(cached)) << cached.err;
    EXPECT_FALSE(contains(cached.err, "warning")) << cached.err;
    EXPECT_EQ(filling.out, fresh.out);
    EXPECT_EQ(cached.out, fresh.out);
    EXPECT_GT(fresh.out.size(), 20u);
  }

  // An object's address that dom lists near the top of the tree.
  std::string someRetainer(const Heap& h) {
    RunResult r =
        runGoheap({"dom", h.dump, h.exe, "-d", "2", "--min-bytes", "0", "--json", "--no-cache"});
    EXPECT_EQ(r.code, 0) << r.describe();
    const JsonValue doc = JsonValue::parse(r.out);
    for (const JsonValue& row : doc["rows"].items()) {
      if (row["node"]["kind"].str() == "object") return row["node"]["address"].str();
    }
    ADD_FAILURE() << "dom lists no object: " << r.out;
    return "0x0";
  }

  Heap zoo_, leaks_;
  std::string leaks_old_;
};

TEST_P(CacheReopen, EveryCommandAnswersAsWithoutTheCache) {
  for (const Heap& h : {zoo_, leaks_}) {
    SCOPED_TRACE(h.dump);
    const std::string folder = freshFolder("every-" + GetParam());
    const std::string object = someRetainer(h);
    for (const char* cmd : {"summary", "top", "dom", "goroutines", "suspects", "dups", "waste"}) {
      expectSameFromTheCache({cmd, h.dump, h.exe}, folder);
    }
    expectSameFromTheCache({"top", h.dump, h.exe, "--by", "site"}, folder);
    expectSameFromTheCache({"obj", h.dump, h.exe, object}, folder);
    expectSameFromTheCache({"paths", h.dump, h.exe, object}, folder);
    // One entry per heap: every command shares it.
    EXPECT_EQ(entries(folder).size(), 1u);
  }
}

TEST_P(CacheReopen, DiffReadsBothHeapsFromTheCache) {
  const std::string folder = freshFolder("diff-" + GetParam());
  expectSameFromTheCache({"diff", leaks_old_, leaks_.dump, leaks_.exe}, folder);
  EXPECT_EQ(entries(folder).size(), 2u);
}

// The goroutine leak analysis is kept in the entry (cache/leaks_index.h):
// a hit answers from it what a run without the cache computes, typed and
// untyped (where a tiny block's Mutex is explained rather than leaked).
TEST_P(CacheReopen, GoroutineLeaksComeBackFromTheEntry) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  const std::string dump = dir + "/goleak.dump", exe = dir + "/goleak";
  const std::string folder = freshFolder("goleak-" + GetParam());
  for (const char* cmd : {"summary", "goroutines", "suspects"}) {
    expectSameFromTheCache({cmd, dump, exe}, folder);
    expectSameFromTheCache({cmd, dump}, folder);
  }
  expectSameFromTheCache({"goroutines", dump, exe, "--leaked", "--group"}, folder);
  EXPECT_EQ(entries(folder).size(), 2u);
}

TEST_P(CacheReopen, WithoutTheExecutableIsAnotherEntry) {
  const std::string folder = freshFolder("noexe-" + GetParam());
  RunResult typed = runGoheap({"top", zoo_.dump, zoo_.exe, "--json", "--cache", folder});
  ASSERT_EQ(typed.code, 0) << typed.describe();
  RunResult untyped = runGoheap({"top", zoo_.dump, "--json", "--cache", folder, "--timings"});
  ASSERT_EQ(untyped.code, 0) << untyped.describe();
  EXPECT_FALSE(readTheCache(untyped)) << untyped.err;
  EXPECT_NE(typed.out, untyped.out);
  EXPECT_EQ(entries(folder).size(), 2u);
  RunResult fresh = runGoheap({"top", zoo_.dump, "--json", "--no-cache"});
  EXPECT_EQ(untyped.out, fresh.out);
}

INSTANTIATE_TEST_SUITE_P(GoVersions, CacheReopen, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

// The same heap copied to a scratch file, so that the tests may change it.
class CacheOnACopy : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27";
    exe_ = dir + "/zoo";
    ASSERT_TRUE(fs::exists(dir + "/zoo.dump")) << "tests/programs/make-dumps.sh makes it";
    dump_ = testing::scratch().file(
        std::string("cache-copy-") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".dump");
    fs::copy_file(dir + "/zoo.dump", dump_, fs::copy_options::overwrite_existing);
    folder_ = freshFolder(::testing::UnitTest::GetInstance()->current_test_info()->name());
    expected_ = runGoheap({"top", dump_, exe_, "--json", "--no-cache"}).out;
    ASSERT_FALSE(expected_.empty());
  }
  RunResult top(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"top", dump_, exe_, "--json", "--no-progress", "--timings"};
    if (!folder_.empty()) args.insert(args.end(), {"--cache", folder_});
    args.insert(args.end(), extra.begin(), extra.end());
    return runGoheap(args);
  }

  std::string dump_, exe_, folder_, expected_;
};

TEST_F(CacheOnACopy, AChangedHeapFileMisses) {
  ASSERT_FALSE(readTheCache(top()));
  ASSERT_TRUE(readTheCache(top()));
  // Rewritten: the same bytes, a new modification time.
  fs::last_write_time(dump_, fs::last_write_time(dump_) + std::chrono::seconds(5));
  RunResult after = top();
  EXPECT_FALSE(readTheCache(after)) << after.err;
  EXPECT_EQ(after.out, expected_);
  EXPECT_EQ(entries(folder_).size(), 2u);
}

// Damage to an entry, anywhere: one warning, the right answer, the entry
// written again, and the next run reads it without a word.
TEST_F(CacheOnACopy, ADamagedEntryIsIgnoredOnceAndWrittenAgain) {
  ASSERT_FALSE(readTheCache(top()));
  ASSERT_EQ(entries(folder_).size(), 1u);
  const fs::path entry = entries(folder_)[0];
  const uint64_t size = fs::file_size(entry);
  struct Damage {
    const char* what;
    std::function<void()> apply;
  };
  const std::vector<Damage> damages{
      {"a byte flipped in the middle",
       [&] {
         std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
         f.seekg(static_cast<std::streamoff>(size / 2));
         char c = 0;
         f.read(&c, 1);
         c = static_cast<char>(c ^ 0x20);
         f.seekp(static_cast<std::streamoff>(size / 2));
         f.write(&c, 1);
       }},
      {"cut to half", [&] { fs::resize_file(entry, size / 2); }},
      {"cut to its header", [&] { fs::resize_file(entry, 100); }},
      {"emptied", [&] { fs::resize_file(entry, 0); }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    ASSERT_TRUE(readTheCache(top()));
    d.apply();
    RunResult damaged = top();
    ASSERT_TRUE(damaged.exited && damaged.code == 0) << damaged.describe();
    EXPECT_EQ(damaged.out, expected_);
    EXPECT_EQ(occurrences(damaged.err, "warning"), 1u) << damaged.err;
    EXPECT_TRUE(contains(damaged.err, "ignoring the index cache entry")) << damaged.err;
    RunResult again = top();
    EXPECT_TRUE(readTheCache(again)) << again.err;
    EXPECT_FALSE(contains(again.err, "warning")) << again.err;
    EXPECT_EQ(again.out, expected_);
  }
}

TEST_F(CacheOnACopy, AFolderThatCannotBeUsedOnlyWarns) {
  // A regular file where the folder would be: no user can make it, root
  // included.
  const std::string blocker = testing::scratch().file("cache-blocker");
  std::ofstream(blocker) << "not a folder";
  folder_ = blocker + "/goheap";
  RunResult r = top();
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_EQ(r.out, expected_);
  EXPECT_EQ(occurrences(r.err, "warning"), 1u) << r.err;
  EXPECT_FALSE(readTheCache(r));
}

TEST_F(CacheOnACopy, NoCacheNeitherReadsNorWrites) {
  RunResult r = top({"--no-cache"});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_FALSE(fs::exists(folder_));
}

TEST_F(CacheOnACopy, TwoGoheapsAtOnceBothSucceed) {
  for (int round = 0; round < 2; round++) {  // both filling, then both reading
    SCOPED_TRACE(round);
    std::vector<pid_t> pids;
    for (int i = 0; i < 2; i++) {
      pids.push_back(
          testing::spawnGoheap({"top", dump_, exe_, "--json", "--no-progress", "--cache", folder_},
                               testing::scratch().file("two-" + std::to_string(i) + ".out"),
                               testing::scratch().file("two-" + std::to_string(i) + ".err"), true));
    }
    for (int i = 0; i < 2; i++) {
      ASSERT_GT(pids[i], 0);
      int status = 0;
      ASSERT_EQ(::waitpid(pids[i], &status, 0), pids[i]);
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      std::ifstream out(testing::scratch().file("two-" + std::to_string(i) + ".out"));
      const std::string text((std::istreambuf_iterator<char>(out)), {});
      EXPECT_EQ(text, expected_);
      std::ifstream err(testing::scratch().file("two-" + std::to_string(i) + ".err"));
      const std::string errors((std::istreambuf_iterator<char>(err)), {});
      EXPECT_EQ(errors, "");
    }
    EXPECT_EQ(entries(folder_).size(), 1u);
  }
  EXPECT_TRUE(readTheCache(top()));
}

}  // namespace
}  // namespace goheap
