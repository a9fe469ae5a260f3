// Every goheap the tests run keeps its index cache in a folder of this test
// process's own, removed when it exits: the tests write nothing into the
// user's ~/.cache, and no test sees another run's entries. Tests that are
// about the cache name their folder with --cache.
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

struct TestCacheHome {
  TestCacheHome() {
    std::string pattern = (std::filesystem::temp_directory_path() / "goheap-test-cache-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) return;
    dir = pattern;
    ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~TestCacheHome() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
  std::string dir;
};

const TestCacheHome kTestCacheHome;

}  // namespace
