// goheap sql over a core: the leaks program dies of SIGABRT right after its
// second dump (crash-new), and SQL over the kernel's core, with the first
// dump as the schema old, finds exactly the Sessions it reported adding.
// The core is deleted with the test's directory.
#include <gtest/gtest.h>

#include <set>

#include "sql/database.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/kernel_core.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

class SqlOnCore : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlOnCore, FindsTheLeakedSessionsAgainstTheFirstDump) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/leaks";
  testing::KernelCoreRun run;
  testing::runForKernelCoreArgs(exe, run, {"{dir}/leaks.dump", "{dir}/leaks.json", "crash-new"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  auto core = testing::openSession(run.core, exe);
  auto old = testing::openSession(run.dir.path + "/leaks.dump.old", exe);
  ASSERT_TRUE(core && old);
  sql::SqlHeap core_heap(*core), old_heap(*old);
  auto db = sql::HeapDatabase::open(core_heap, &old_heap);
  ASSERT_TRUE(db) << db.error().message();
  auto r = (*db)->run(
      "SELECT address FROM objects o WHERE type = 'main.Session' AND reachable AND NOT EXISTS ("
      "SELECT 1 FROM old.objects p WHERE p.address = o.address AND p.type = o.type)");
  ASSERT_TRUE(r) << r.error().message();
  std::set<uint64_t> got;
  for (const auto& row : r->at(0).rows)
    got.insert(static_cast<uint64_t>(std::get<int64_t>(row[0])));
  const JsonValue report = JsonValue::parseFile(run.dir.path + "/leaks.json");
  std::set<uint64_t> want;
  for (const JsonValue& a : report["sessions"]["new_addrs"].items()) want.insert(a.hexAddress());
  EXPECT_EQ(got, want);
  // The global holding them, named from the core's data and bss.
  auto holder =
      (*db)->run("SELECT name FROM roots WHERE object = (SELECT id FROM objects WHERE address = " +
                 std::to_string(report["sessions"]["map_addr"].hexAddress()) + ")");
  ASSERT_TRUE(holder) << holder.error().message();
  ASSERT_EQ(holder->at(0).rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(holder->at(0).rows[0][0]), "main.sessions");
}

INSTANTIATE_TEST_SUITE_P(Leaks, SqlOnCore, ::testing::Values("go1.19", "go1.27"),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
