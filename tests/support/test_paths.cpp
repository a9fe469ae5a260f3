// The paths of support/test_paths.h, from tests/CMakeLists.txt
// (GOHEAP_PATH_*, given to this file's compile alone).
#include "support/test_paths.h"

namespace goheap::testing::paths {

const char* const kSourceDir = GOHEAP_PATH_SOURCE_DIR;
const char* const kTestdumpsDir = GOHEAP_PATH_TESTDUMPS_DIR;
const char* const kGobinDir = GOHEAP_PATH_GOBIN_DIR;
const char* const kNpmDir = GOHEAP_PATH_NPM_DIR;
const char* const kBuildDir = GOHEAP_PATH_BUILD_DIR;
const char* const kBinary = GOHEAP_PATH_BINARY;
const char* const kLayersFile = GOHEAP_PATH_LAYERS_FILE;

}  // namespace goheap::testing::paths
