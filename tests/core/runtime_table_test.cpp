// The committed runtime layout table (src/goruntime/runtime_tables.inc) against
// the DWARF of the executables make-dumps.sh builds with each toolchain.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/runtime_table_source.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

// The committed table's entry for each executable make-dumps.sh built with
// DWARF (coreprog per release and arm64, zoo for Go 1.25) is what its
// DWARF says now: the table matches the DWARF and is up to date.
TEST(RuntimeTable, EqualsEachToolchainsDwarf) {
  std::vector<std::string> exes;
  for (const std::string& v : testing::goVersionsWithReleaseTier()) {
    exes.push_back(v + "/coreprog");
    exes.push_back(v + "/cross/coreprog-arm64");
  }
  exes.push_back("go1.25/zoo");
  int compared = 0;
  for (const std::string& rel : exes) {
    const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + rel;
    if (!std::filesystem::exists(path)) continue;  // toolchain absent
    SCOPED_TRACE(rel);
    auto exe = bin::Binary::open(path);
    ASSERT_TRUE(exe) << exe.error().message();
    auto dwarf = bin::DebugInfo::read(exe->container());
    ASSERT_TRUE(dwarf) << dwarf.error().message();
    auto want =
        core::runtimeTableSource(*dwarf, exe->container(), exe->goVersion(), exe->container().arch);
    ASSERT_TRUE(want) << want.error().message();
    const goruntime::RuntimeTable* t =
        goruntime::runtimeTableFor(exe->goVersion(), exe->container().arch);
    ASSERT_NE(t, nullptr) << "no table for " << exe->goVersion() << " " << exe->container().arch
                          << ": run tools/runtime-layouts/regenerate.sh";
    EXPECT_EQ(goruntime::runtimeTableSource(*t), *want)
        << "src/goruntime/runtime_tables.inc is out of date: run "
           "tools/runtime-layouts/regenerate.sh";
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "no test executables in " << GOHEAP_TESTDUMPS_DIR;
}

}  // namespace
}  // namespace goheap
