# Writes goheap's version (VERSION, from project()) and the commit it is built
# from into a C++ file (OUT), run at every build by CMakeLists.txt: the short
# hash of SOURCE_DIR's HEAD, or "" when the tree has no .git (a release
# tarball) or git is missing. The file is rewritten only when either changed,
# so a build without a new commit compiles nothing.
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit
  OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE status
  ERROR_QUIET)
if(NOT status EQUAL 0)
  set(commit "")
endif()
set(text "// Written by cmake/version-info.cmake at build time; not in the source tree.
#include \"util/version.h\"

namespace goheap {

std::string_view goheapVersion() {
  return \"${VERSION}\";
}

std::string_view goheapCommit() {
  return \"${commit}\";
}

}  // namespace goheap
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
