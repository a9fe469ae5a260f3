// The Go releases the tests read real dumps of: one list, so adding a release
// is one line here (and its toolchain in tests/programs/toolchains.sh and
// scripts/install-deps.sh).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "support/param_names.h"

namespace goheap::testing {

// The toolchains tests/programs/make-dumps.sh builds and runs every test
// program with (GOHEAP_TESTDUMPS_DIR/<version>/), cross builds included:
// every test of a real dump runs on each.
inline const std::vector<std::string>& goVersions() {
  static const std::vector<std::string> v{"go1.19", "go1.24", "go1.26", "go1.27"};
  return v;
}

// VERSIONS and EXTRA, by minor version.
inline std::vector<std::string> withVersions(std::vector<std::string> versions,
                                             std::initializer_list<std::string> extra) {
  versions.insert(versions.end(), extra.begin(), extra.end());
  std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(4)) < std::stoi(b.substr(4));
  });
  return versions;
}

// goVersions() and Go 1.21 to 1.23, for which make-dumps.sh builds what
// depends on the release (its "releases" tier), amd64 only: zoo, leaks,
// goleak, retention and funcs, run; stripped funcs, zoo, goleak and leaks,
// run; coreprog (also stripped, and for arm64) and goroutineprog, built.
// The tests of the readers of the runtime's structures, type descriptors
// and pclntab, and of the goroutine leak hunt, run on these.
inline const std::vector<std::string>& goVersionsWithReleaseTier() {
  static const std::vector<std::string> v =
      withVersions(goVersions(), {"go1.21", "go1.22", "go1.23"});
  return v;
}

// Every release make-dumps.sh builds: goVersionsWithReleaseTier() and Go
// 1.25, for which it builds only the typing program (zoo) and the
// leak-hunting one (leaks), amd64. The tests of those two programs run on
// these.
inline const std::vector<std::string>& everyGoVersion() {
  static const std::vector<std::string> v = withVersions(goVersionsWithReleaseTier(), {"go1.25"});
  return v;
}

// The committed dumps of the retention program for other architectures,
// tests/fixtures/<name>/retention.{dump,json} (tests/fixtures/README.md).
inline const std::vector<std::string>& fixtureNames() {
  static const std::vector<std::string> v{"go1.19-amd64", "go1.19-arm64", "go1.19-s390x",
                                          "go1.19-arm",   "go1.24-amd64", "go1.24-arm64",
                                          "go1.24-s390x", "go1.24-arm",   "go1.27-arm64",
                                          "go1.27-s390x", "go1.27-arm"};
  return v;
}

// Each of PATHS under each version's directory of test dumps, relative to
// it ("go1.24/zoo"), for suites parameterised by a path (param_names.h
// names them).
inline std::vector<std::string> inEachVersion(
    std::initializer_list<std::string> paths,
    const std::vector<std::string>& versions = goVersions()) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    for (const std::string& v : versions) out.push_back(v + "/" + path);
  }
  return out;
}

// One executable make-dumps.sh built from a test program; when it was run,
// its dump is EXE.dump and its report EXE.json.
struct ProgramBuild {
  std::string name;  // a test name: "go1_24_amd64", "go1_27_s390x"
  std::string exe;   // GOHEAP_TESTDUMPS_DIR/go1.24/zoo, .../go1.27/cross/zoo-s390x
  std::string version;
  std::string arch;  // "amd64", "s390x" (big-endian), "arm" (32-bit)
};

inline void PrintTo(const ProgramBuild& b, std::ostream* os) {
  *os << b.exe;
}

// PROG as make-dumps.sh builds it with each of VERSIONS: for amd64, and,
// with CROSS, cross-built for s390x and arm (and run under qemu-user for the
// programs make-dumps.sh runs there), which it does for goVersions() only.
inline std::vector<ProgramBuild> programBuilds(
    const std::string& prog, const std::vector<std::string>& versions = goVersions(),
    bool cross = true) {
  std::vector<ProgramBuild> out;
  for (const std::string& v : versions) {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v;
    const std::string id = testName(v);
    out.push_back({id + "_amd64", dir + "/" + prog, v, "amd64"});
    if (!cross || std::find(goVersions().begin(), goVersions().end(), v) == goVersions().end()) {
      continue;
    }
    for (const std::string arch : {"s390x", "arm"}) {
      out.push_back({id + "_" + arch, dir + "/cross/" + prog + "-" + arch, v, arch});
    }
  }
  return out;
}

inline std::string programBuildName(const ::testing::TestParamInfo<ProgramBuild>& p) {
  return p.param.name;
}

}  // namespace goheap::testing
