// The cache folder: where it is, storing and finding entries, eviction of
// the least recently used within the bound, files it must leave alone, two
// processes storing at once, and a folder that cannot be used.
#include "cache/cache_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/goheap_process.h"
#include "support/index_samples.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using cache::CacheDirectory;
using testing::SampleIndex;
using testing::testKey;

// A fresh folder under the scratch directory for each test.
std::string freshFolder(const std::string& name) {
  const std::string path = testing::scratch().file("cache-" + name);
  fs::remove_all(path);
  return path;
}

void setAge(const std::string& path, int64_t seconds_ago) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const timespec when{now.tv_sec - seconds_ago, 0};
  const timespec times[2] = {when, when};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

int64_t mtimeOf(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mtim.tv_sec;
}

std::set<std::string> namesIn(const std::string& folder) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.insert(e.path().filename());
  return names;
}

TEST(CacheDirectoryPath, FlagThenXdgThenHome) {
  EXPECT_EQ(cache::cacheDirectoryPath("/flag", {"/xdg", "/home/u"}), "/flag");
  EXPECT_EQ(cache::cacheDirectoryPath("", {"/xdg", "/home/u"}), "/xdg/goheap");
  EXPECT_EQ(cache::cacheDirectoryPath("", {"", "/home/u"}), "/home/u/.cache/goheap");
  // The XDG spec: a relative $XDG_CACHE_HOME is ignored.
  EXPECT_EQ(cache::cacheDirectoryPath("", {"relative", "/home/u"}), "/home/u/.cache/goheap");
  EXPECT_EQ(cache::cacheDirectoryPath("", {"", ""}), std::nullopt);
}

TEST(CacheDirectory, MakesItsFolderPrivate) {
  const std::string root = freshFolder("private");
  CacheDirectory dir = CacheDirectory::open("", cache::kDefaultCacheBytes, {root + "/xdg", ""});
  ASSERT_TRUE(dir.usable()) << dir.takeWarning().value_or("");
  EXPECT_EQ(dir.path(), root + "/xdg/goheap");
  struct stat st {};
  ASSERT_EQ(::stat(dir.path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((root + "/xdg").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_FALSE(dir.takeWarning());
}

TEST(CacheDirectory, StoreThenLookupThenOpen) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("store"), cache::kDefaultCacheBytes);
  ASSERT_TRUE(dir.usable());
  EXPECT_FALSE(dir.lookup(testKey(1)));
  SampleIndex sample(1);
  const Status stored = dir.store(testKey(1), sample.writer());
  ASSERT_TRUE(stored.ok()) << stored.error().message();
  const std::optional<std::string> found = dir.lookup(testKey(1));
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, dir.path() + "/" + testKey(1).hex() + ".ghx");
  auto opened = cache::IndexFile::open(*found, testKey(1));
  ASSERT_TRUE(opened) << opened.error().message();
  EXPECT_EQ(*(*opened)->description(), sample.description());
  // Nothing but the entry is left behind.
  EXPECT_EQ(namesIn(dir.path()), std::set<std::string>{testKey(1).hex() + ".ghx"});
  struct stat st {};
  ::stat(found->c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(CacheDirectory, LookupMarksTheEntryUsed) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("touch"), cache::kDefaultCacheBytes);
  SampleIndex sample(1);
  ASSERT_TRUE(dir.store(testKey(1), sample.writer()).ok());
  const std::string path = dir.entryPath(testKey(1));
  setAge(path, 7200);
  const int64_t before = mtimeOf(path);
  ASSERT_TRUE(dir.lookup(testKey(1)));
  EXPECT_GT(mtimeOf(path), before + 3600);
}

TEST(CacheDirectory, EvictsLeastRecentlyUsedWholeEntries) {
  SampleIndex sample(1);
  const uint64_t entry = sample.writer().fileSize();
  // Room for three entries.
  CacheDirectory dir = CacheDirectory::open(freshFolder("evict"), entry * 3 + entry / 2);
  for (uint64_t k = 1; k <= 3; ++k) {
    ASSERT_TRUE(dir.store(testKey(k), sample.writer()).ok());
    // Entry 1 oldest, then 3, then 2 (used since).
    setAge(dir.entryPath(testKey(k)), k == 1 ? 300 : k == 3 ? 200 : 100);
  }
  ASSERT_TRUE(dir.store(testKey(4), sample.writer()).ok());
  EXPECT_FALSE(dir.lookup(testKey(1)));
  EXPECT_TRUE(dir.lookup(testKey(2)));
  EXPECT_TRUE(dir.lookup(testKey(3)));
  EXPECT_TRUE(dir.lookup(testKey(4)));

  // The newest entry stays even when older ones look newer (a clock set back).
  setAge(dir.entryPath(testKey(2)), -1000);
  setAge(dir.entryPath(testKey(3)), -1000);
  setAge(dir.entryPath(testKey(4)), -1000);
  ASSERT_TRUE(dir.store(testKey(5), sample.writer()).ok());
  EXPECT_TRUE(dir.lookup(testKey(5)));
  auto listed = dir.list();
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 3u);
}

TEST(CacheDirectory, AnEntryLargerThanTheBoundIsNotStored) {
  SampleIndex sample(1);
  CacheDirectory dir = CacheDirectory::open(freshFolder("small"), 1000);
  const Status s = dir.store(testKey(1), sample.writer());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("larger than the index cache's bound"), std::string::npos)
      << s.error().message();
  EXPECT_TRUE(dir.usable());
  EXPECT_TRUE(namesIn(dir.path()).empty());
}

TEST(CacheDirectory, LeavesOtherFilesAloneAndRemovesStaleTemporaries) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("foreign"), 1);
  const std::string hex = testKey(9).hex();
  const std::vector<std::string> foreign = {"notes.txt", hex + ".ghx.bak", hex + ".json",
                                            hex.substr(1) + ".ghx", hex + ".ghx.tmp.12.abc"};
  for (const std::string& name : foreign) std::ofstream(dir.path() + "/" + name) << "keep";
  const std::string fresh_temporary = hex + ".ghx.tmp.123.AbC123";
  const std::string stale_temporary = hex + ".ghx.tmp.456.XyZ789";
  std::ofstream(dir.path() + "/" + fresh_temporary) << "in flight";
  std::ofstream(dir.path() + "/" + stale_temporary) << "left by a run that died";
  setAge(dir.path() + "/" + stale_temporary, 2 * 3600);
  std::ofstream(dir.path() + "/" + testKey(8).hex() + ".ghx") << "an entry";

  // A bound of 1 byte: every entry goes, the one stored too; others stay.
  SampleIndex sample(1);
  EXPECT_FALSE(dir.store(testKey(1), sample.writer()).ok());
  ASSERT_TRUE(dir.clear());
  std::set<std::string> want(foreign.begin(), foreign.end());
  want.insert(fresh_temporary);
  EXPECT_EQ(namesIn(dir.path()), want);
}

TEST(CacheDirectory, ListAndClear) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("list"), cache::kDefaultCacheBytes);
  SampleIndex one(1), two(2);
  ASSERT_TRUE(dir.store(testKey(1), one.writer()).ok());
  ASSERT_TRUE(dir.store(testKey(2), two.writer()).ok());
  setAge(dir.entryPath(testKey(1)), 50);
  std::ofstream(dir.path() + "/" + testKey(3).hex() + ".ghx") << "not an index";

  auto listed = dir.list();
  ASSERT_TRUE(listed) << listed.error().message();
  ASSERT_EQ(listed->size(), 3u);
  // Most recently used first; the broken one still listed, with why.
  EXPECT_EQ((*listed)[2].key, testKey(1));
  ASSERT_TRUE((*listed)[2].description);
  EXPECT_EQ(*(*listed)[2].description, one.description());
  EXPECT_EQ((*listed)[2].size, one.writer().fileSize());
  for (const cache::CacheEntry& e : *listed) {
    if (e.key == testKey(3)) {
      ASSERT_FALSE(e.description);
      EXPECT_NE(e.description.error().message().find("truncated"), std::string::npos);
    }
  }

  auto cleared = dir.clear();
  ASSERT_TRUE(cleared);
  EXPECT_EQ(cleared->entries, 3u);
  EXPECT_TRUE(namesIn(dir.path()).empty());
  dir.remove(testKey(1));  // nothing to remove: no harm
}

TEST(CacheDirectory, RemoveDropsOneEntry) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("remove"), cache::kDefaultCacheBytes);
  SampleIndex sample(1);
  ASSERT_TRUE(dir.store(testKey(1), sample.writer()).ok());
  ASSERT_TRUE(dir.store(testKey(2), sample.writer()).ok());
  dir.remove(testKey(1));
  EXPECT_FALSE(dir.lookup(testKey(1)));
  EXPECT_TRUE(dir.lookup(testKey(2)));
}

TEST(CacheDirectory, TwoProcessesStoringOneKeyBothSucceed) {
  const std::string folder = freshFolder("race");
  SampleIndex sample(1, uint64_t{3} << 20);
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      CacheDirectory dir = CacheDirectory::open(folder, cache::kDefaultCacheBytes);
      for (int i = 0; i < 20; ++i) {
        if (!dir.store(testKey(1), sample.writer()).ok()) ::_exit(1);
        const std::optional<std::string> found = dir.lookup(testKey(1));
        // Whichever rename won, the entry is whole.
        if (!found || !cache::IndexFile::open(*found, testKey(1))) ::_exit(2);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(namesIn(folder), std::set<std::string>{testKey(1).hex() + ".ghx"});
}

TEST(CacheDirectory, AFolderThatCannotBeMadeTurnsCachingOffWithOneWarning) {
  const std::string file = testing::scratch().file("a-file-not-a-folder");
  std::ofstream(file) << "x";
  CacheDirectory dir = CacheDirectory::open(file + "/goheap", cache::kDefaultCacheBytes);
  EXPECT_FALSE(dir.usable());
  const std::optional<std::string> warning = dir.takeWarning();
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("the index cache is off: " + file +
                          " is a regular file; goheap works "
                          "without it"),
            std::string::npos)
      << *warning;
  EXPECT_FALSE(dir.takeWarning());
  SampleIndex sample(1);
  EXPECT_FALSE(dir.lookup(testKey(1)));
  EXPECT_TRUE(dir.store(testKey(1), sample.writer()).ok());  // quietly nothing
  EXPECT_FALSE(dir.takeWarning());

  CacheDirectory is_file = CacheDirectory::open(file, cache::kDefaultCacheBytes);
  EXPECT_FALSE(is_file.usable());
  EXPECT_NE(is_file.takeWarning().value_or("").find("is a regular file"), std::string::npos);

  CacheDirectory nowhere = CacheDirectory::open("", cache::kDefaultCacheBytes, {"", ""});
  EXPECT_FALSE(nowhere.usable());
  EXPECT_NE(nowhere.takeWarning().value_or("").find("$HOME"), std::string::npos);
}

TEST(CacheDirectory, AFailedStoreLeavesNothingAndWarnsOnce) {
  CacheDirectory dir = CacheDirectory::open(freshFolder("failed"), cache::kDefaultCacheBytes);
  cache::IndexWriter broken;
  const std::vector<uint64_t> words(3, 1);
  broken.addArray<uint64_t>(1, words);
  broken.addArray<uint64_t>(1, words);
  const Status s = dir.store(testKey(1), broken);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("the index cache is off"), std::string::npos);
  EXPECT_TRUE(namesIn(dir.path()).empty());
  EXPECT_FALSE(dir.usable());
  EXPECT_FALSE(dir.takeWarning());  // told once, by store
  SampleIndex sample(1);
  EXPECT_TRUE(dir.store(testKey(2), sample.writer()).ok());
  EXPECT_TRUE(namesIn(dir.path()).empty());
}

}  // namespace
}  // namespace goheap
