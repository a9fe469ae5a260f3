// goheap's own version, as `goheap --version` prints it, index cache entries
// record it and MCP's serverInfo gives it. Its one source is
// `project(goheap VERSION ...)` in CMakeLists.txt; cmake/version-info.cmake
// writes it, and the commit built, into a generated file at build time.
#pragma once

#include <string>
#include <string_view>

namespace goheap {

// The release, e.g. "0.1.0": what the cache key and the file names of
// release artefacts carry.
std::string_view goheapVersion();

// The short hash of the commit built, or "" when the build's tree had no
// .git (a release tarball).
std::string_view goheapCommit();

// The release and where it was built from: "0.1.0+g1a2b3c4d5e6f", or
// "0.1.0" from a tree without .git.
std::string goheapFullVersion();

}  // namespace goheap
