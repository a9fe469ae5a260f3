// Where the tests find the checkout, the build and what make-dumps.sh
// wrote. The paths are compiled into test_paths.cpp alone: given to every
// test's compile, as they were, an absolute path made every object differ
// between clones in other folders, and ccache miss on all of them.
// tests/CMakeLists.txt includes this header into every file of the test
// binary (-include), so the names read as the string macros they were:
// std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24".
#pragma once

namespace goheap::testing::paths {

// Pointers to string literals, so initialised before any code runs: a
// namespace-scope string of a test file may be made from them.
extern const char* const kSourceDir;     // the checkout
extern const char* const kTestdumpsDir;  // BUILD/testdumps, make-dumps.sh's OUTDIR
extern const char* const kGobinDir;      // old Go executables (shared/testdata/gobin)
extern const char* const kNpmDir;        // BUILD/npm, the Node.js tools
extern const char* const kBuildDir;      // the build folder
extern const char* const kBinary;        // the goheap executable
extern const char* const kLayersFile;    // BUILD/generated/layers.txt (cmake/layers.cmake)

}  // namespace goheap::testing::paths

#define GOHEAP_SOURCE_DIR (::goheap::testing::paths::kSourceDir)
#define GOHEAP_TESTDUMPS_DIR (::goheap::testing::paths::kTestdumpsDir)
#define GOHEAP_GOBIN_DIR (::goheap::testing::paths::kGobinDir)
#define GOHEAP_NPM_DIR (::goheap::testing::paths::kNpmDir)
#define GOHEAP_BUILD_DIR (::goheap::testing::paths::kBuildDir)
#define GOHEAP_BINARY (::goheap::testing::paths::kBinary)
#define GOHEAP_LAYERS_FILE (::goheap::testing::paths::kLayersFile)
