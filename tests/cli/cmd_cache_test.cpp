// `goheap cache list|clear` through the real binary, over a folder of
// entries the library wrote; and the cache flags every command that opens
// a heap takes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cache/cache_directory.h"
#include "support/goheap_process.h"
#include "support/index_samples.h"
#include "support/json_value.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;
using testing::runGoheap;
using testing::RunResult;

const std::string kSampleDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";

std::string freshFolder(const std::string& name) {
  const std::string path = testing::scratch().file("cmd-cache-" + name);
  fs::remove_all(path);
  return path;
}

TEST(CacheCommand, ListsEntriesWithWhatTheyWereMadeFrom) {
  const std::string folder = freshFolder("list");
  RunResult empty = runGoheap({"cache", "list", "--cache", folder});
  ASSERT_EQ(empty.code, 0) << empty.describe();
  EXPECT_EQ(empty.out, folder + ": 0 entries, 0 B\n");

  cache::CacheDirectory dir = cache::CacheDirectory::open(folder, cache::kDefaultCacheBytes);
  testing::SampleIndex one(1), two(2);
  ASSERT_TRUE(dir.store(testing::testKey(1), one.writer()).ok());
  ASSERT_TRUE(dir.store(testing::testKey(2), two.writer()).ok());

  RunResult text = runGoheap({"cache", "list", "--cache", folder});
  ASSERT_EQ(text.code, 0) << text.describe();
  EXPECT_NE(text.out.find(folder + ": 2 entries"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(testing::testKey(1).hex().substr(0, 12)), std::string::npos);
  EXPECT_NE(text.out.find("/heaps/server-2.dump"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("/bin/server"), std::string::npos);

  RunResult json = runGoheap({"cache", "list", "--cache", folder, "--json"});
  ASSERT_EQ(json.code, 0) << json.describe();
  const JsonValue doc = JsonValue::parse(json.out);
  EXPECT_EQ(doc["schema_version"].u64(), 1u);
  EXPECT_EQ(doc["directory"].str(), folder);
  ASSERT_EQ(doc["entries"].size(), 2u);
  uint64_t total = 0;
  for (const JsonValue& e : doc["entries"].items()) {
    total += e["bytes"].u64();
    const std::string key = e["key"].str();
    ASSERT_TRUE(key == testing::testKey(1).hex() || key == testing::testKey(2).hex()) << key;
    const testing::SampleIndex& sample = key == testing::testKey(1).hex() ? one : two;
    EXPECT_EQ(e["description"]["input_path"].str(), sample.description().input_path);
    EXPECT_EQ(e["description"]["exe_path"].str(), "/bin/server");
    EXPECT_EQ(e["path"].str(), folder + "/" + key + ".ghx");
  }
  EXPECT_EQ(doc["bytes"].u64(), total);
}

TEST(CacheCommand, ClearRemovesEveryEntryAndNothingElse) {
  const std::string folder = freshFolder("clear");
  cache::CacheDirectory dir = cache::CacheDirectory::open(folder, cache::kDefaultCacheBytes);
  testing::SampleIndex one(1);
  ASSERT_TRUE(dir.store(testing::testKey(1), one.writer()).ok());
  ASSERT_TRUE(dir.store(testing::testKey(2), one.writer()).ok());
  std::ofstream(folder + "/README") << "mine";

  RunResult cleared = runGoheap({"cache", "clear", "--cache", folder});
  ASSERT_EQ(cleared.code, 0) << cleared.describe();
  EXPECT_EQ(cleared.out.rfind("removed 2 entries (", 0), 0u) << cleared.out;
  EXPECT_NE(cleared.out.find(") from " + folder + "\n"), std::string::npos) << cleared.out;
  EXPECT_TRUE(fs::exists(folder + "/README"));
  RunResult after = runGoheap({"cache", "list", "--cache", folder});
  EXPECT_EQ(after.out, folder + ": 0 entries, 0 B\n");
}

TEST(CacheCommand, DefaultFolderComesFromTheEnvironment) {
  const std::string xdg = freshFolder("xdg");
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  RunResult r = runGoheap({"cache", "list", "--json"});
  if (saved) {
    ::setenv("XDG_CACHE_HOME", saved->c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(JsonValue::parse(r.out)["directory"].str(), xdg + "/goheap");
  EXPECT_TRUE(fs::is_directory(xdg + "/goheap"));
}

TEST(CacheCommand, MistakesAreUsageErrors) {
  RunResult none = runGoheap({"cache"});
  EXPECT_EQ(none.code, 2) << none.describe();
  RunResult unknown = runGoheap({"cache", "purge"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("ACTION is list or clear, not 'purge'"), std::string::npos)
      << unknown.err;
  RunResult json_clear = runGoheap({"cache", "clear", "--json", "--cache", freshFolder("x")});
  EXPECT_EQ(json_clear.code, 2);
  RunResult help = runGoheap({"cache", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("goheap cache list"), std::string::npos) << help.out;
}

TEST(CacheCommand, AFolderThatCannotBeReadFails) {
  const std::string file = testing::scratch().file("cmd-cache-a-file");
  std::ofstream(file) << "x";
  RunResult r = runGoheap({"cache", "list", "--cache", file + "/sub"});
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot"), std::string::npos) << r.err;
}

TEST(CacheFlags, EveryCommandThatOpensAHeapTakesThem) {
  for (const char* command : {"summary", "top", "dom", "paths", "obj", "goroutines", "suspects",
                              "diff", "dups", "waste", "report", "convert", "serve"}) {
    RunResult help = runGoheap({command, "--help"});
    ASSERT_EQ(help.code, 0) << command << help.describe();
    for (const char* flag : {"--cache DIR", "--no-cache", "--cache-size SIZE"}) {
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << " has no " << flag;
    }
  }
}

TEST(CacheFlags, AreReadAndChecked) {
  const std::string folder = freshFolder("flags");
  RunResult ok =
      runGoheap({"summary", kSampleDump, "--cache", folder, "--cache-size", "500M", "--json"});
  EXPECT_EQ(ok.code, 0) << ok.describe();
  RunResult off = runGoheap({"top", kSampleDump, "--no-cache", "-n", "3"});
  EXPECT_EQ(off.code, 0) << off.describe();
  RunResult bad = runGoheap({"summary", kSampleDump, "--cache-size", "lots"});
  EXPECT_EQ(bad.code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("--cache-size"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace goheap
