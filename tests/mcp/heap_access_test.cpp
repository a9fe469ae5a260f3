// What an MCP client may have goheap read: files under the roots (else the
// working directory) and --allow-dir, URLs on loopback or --allow-url,
// processes with --allow-pid; links and ".." do not lead out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "mcp/heap_access.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using mcp::HeapAccess;

class McpHeapAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("goheap-mcp-access-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "work");
    fs::create_directories(dir_ / "dumps");
    fs::create_directories(dir_ / "secret");
    for (const char* f : {"work/a.dump", "dumps/b.dump", "secret/c.dump"}) {
      std::ofstream(dir_ / f) << "x";
    }
    fs::create_symlink(dir_ / "secret", dir_ / "work" / "link");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  static bool allowed(const HeapAccess& access, const std::string& text) {
    return static_cast<bool>(access.source(text, "", "", "source"));
  }

  fs::path dir_;
};

TEST_F(McpHeapAccess, WithoutRootsTheWorkingDirectory) {
  HeapAccess access({}, path("work"));
  EXPECT_TRUE(allowed(access, "a.dump"));  // relative to the working directory
  EXPECT_TRUE(allowed(access, path("work/a.dump")));
  EXPECT_TRUE(allowed(access, "missing.dump"));  // refused by open, not here
  auto out = access.source(path("dumps/b.dump"), "", "", "source");
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message().find("--allow-dir " + path("dumps")), std::string::npos)
      << out.error().message();
  EXPECT_EQ(out.error().parameter(), "source");
  EXPECT_FALSE(allowed(access, "../secret/c.dump"));
  EXPECT_FALSE(allowed(access, "link/c.dump"));  // a link out of the folder
  EXPECT_FALSE(allowed(access, "/etc/passwd"));
  // The executable is checked too.
  auto exe = access.source("a.dump", "/bin/sh", "", "source");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().parameter(), "executable");
}

TEST_F(McpHeapAccess, RootsReplaceTheWorkingDirectoryAndAllowDirAdds) {
  HeapAccess access({.allowed_dirs = {path("dumps")}}, path("work"));
  EXPECT_TRUE(allowed(access, path("dumps/b.dump")));
  access.setRoots(std::vector<std::string>{"file://" + path("secret")});
  EXPECT_TRUE(allowed(access, path("secret/c.dump")));
  EXPECT_TRUE(allowed(access, path("dumps/b.dump")));
  EXPECT_FALSE(allowed(access, path("work/a.dump")));  // no longer the working directory
  // Roots of no folder here: only --allow-dir.
  access.setRoots(std::vector<std::string>{"https://example.com/"});
  EXPECT_FALSE(allowed(access, path("work/a.dump")));
  EXPECT_FALSE(allowed(access, path("secret/c.dump")));
  EXPECT_TRUE(allowed(access, path("dumps/b.dump")));
  access.setRoots(std::nullopt);
  EXPECT_TRUE(allowed(access, path("work/a.dump")));
}

TEST_F(McpHeapAccess, FileUris) {
  EXPECT_EQ(mcp::pathOfFileUri("file:///home/a%20b/c"), "/home/a b/c");
  EXPECT_EQ(mcp::pathOfFileUri("file://localhost/x"), "/x");
  EXPECT_FALSE(mcp::pathOfFileUri("file://otherhost/x"));
  EXPECT_FALSE(mcp::pathOfFileUri("http://x/"));
  EXPECT_FALSE(mcp::pathOfFileUri("file:///a%2"));
  EXPECT_FALSE(mcp::pathOfFileUri("file:///a%00b"));
}

TEST_F(McpHeapAccess, UrlsOnLoopbackOrUnderAnAllowedPrefix) {
  HeapAccess access({.url_prefixes = {"http://10.0.0.5:6060/"}}, path("work"));
  EXPECT_TRUE(allowed(access, "http://127.0.0.1:6060/debug/heapdump"));
  EXPECT_TRUE(allowed(access, "http://localhost:6060/debug/heapdump"));
  EXPECT_TRUE(allowed(access, "http://[::1]:6060/debug/heapdump"));
  EXPECT_TRUE(allowed(access, "http://10.0.0.5:6060/debug/heapdump"));
  auto far = access.source("http://10.0.0.6:6060/debug/heapdump", "", "", "source");
  ASSERT_FALSE(far);
  EXPECT_NE(far.error().message().find("--allow-url"), std::string::npos);
  EXPECT_FALSE(allowed(access, "https://127.0.0.1/"));
  EXPECT_FALSE(allowed(access, "http://user@127.0.0.1/"));
  HeapAccess bare({.url_prefixes = {"http://10.0.0.5:6060"}}, path("work"));
  EXPECT_TRUE(allowed(bare, "http://10.0.0.5:6060/x"));
  EXPECT_FALSE(allowed(bare, "http://10.0.0.5:60601/x"));
  EXPECT_FALSE(allowed(bare, "http://10.0.0.5:6060.evil.example/x"));
}

TEST_F(McpHeapAccess, ProcessesOnlyWithAllowPid) {
  HeapAccess no({}, path("work"));
  auto refused = no.source("pid:1234", "", "", "source");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("--allow-pid"), std::string::npos);
  HeapAccess yes({.allow_pid = true}, path("work"));
  auto pid = yes.source("pid:1234", "", "", "source");
  ASSERT_TRUE(pid);
  EXPECT_EQ(std::get<query::LiveProcess>(pid->heap).pid, 1234);
  EXPECT_FALSE(allowed(yes, "pid:abc"));
  EXPECT_FALSE(allowed(yes, "pid:0"));
}

}  // namespace
}  // namespace goheap
