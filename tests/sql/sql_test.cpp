// goheap sql against real dumps of tests/programs/leaks: counts and sums by
// type, site and shape equal `top`'s, the dominator tree and paths equal
// `dom`'s and `paths`', the program's own report of what it leaked is what
// SQL finds, lookups read an index, and the SQL can only read.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

#include <filesystem>
#include "questions/typed_questions.h"
#include "sql/leaks_sql.h"
#include "sql/schema.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::integer;
using testing::LeaksSql;
using testing::text;

class Sql : public ::testing::TestWithParam<std::string> {
 protected:
  const LeaksSql* leaks(bool with_exe = true) {
    const LeaksSql* l = testing::leaksSql(GetParam(), with_exe);
    if (l == nullptr && !HasFailure()) {
      ADD_FAILURE() << GetParam()
                    << "/leaks.dump is missing: tests/programs/make-dumps.sh makes it";
    }
    return l;
  }
};

struct Totals {
  uint64_t count = 0, bytes = 0, retained = 0;
  bool operator==(const Totals&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Totals& t) {
  return os << "{count " << t.count << ", bytes " << t.bytes << ", retained " << t.retained << "}";
}

// `top --by BY -n 0`'s groups, by name (and source, when `with_source`).
std::map<std::string, Totals> topGroups(const query::Session& s, const std::string& by,
                                        bool retained, const std::string& only_source = {}) {
  questions::TopQuery q;
  q.by = by;
  q.limit = 0;
  std::map<std::string, Totals> out;
  for (const analysis::HistogramRow& r : questions::queryTop(s, q).histogram.rows) {
    if (!only_source.empty() && r.source != only_source) continue;
    out[r.name + (by == "type" ? " | " + r.source : "")] = {r.count, r.shallow,
                                                            retained ? r.retained : 0};
  }
  return out;
}

std::map<std::string, Totals> sqlGroups(const LeaksSql& l, const std::string& statement,
                                        bool with_source) {
  std::map<std::string, Totals> out;
  for (const auto& row : l.run(statement).rows) {
    const size_t k = with_source ? 2 : 1;
    std::string key = text(row[0]);
    if (with_source) key += " | " + text(row[1]);
    Totals t{static_cast<uint64_t>(integer(row[k])), static_cast<uint64_t>(integer(row[k + 1])), 0};
    if (row.size() > k + 2) t.retained = static_cast<uint64_t>(integer(row[k + 2]));
    out[key] = t;
  }
  return out;
}

// `top --by type`'s grouping: an interface's type and a DWARF type may
// share a name, so the source is part of the group.
constexpr const char* kByTypeAndSource =
    "SELECT type, source, count(*), sum(size) FROM objects WHERE reachable GROUP BY type, source";

TEST_P(Sql, CountsAndSumsByTypeSiteAndShapeEqualTop) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  EXPECT_EQ(sqlGroups(*l, kByTypeAndSource, true), topGroups(*l->now, "type", false));
  EXPECT_EQ(sqlGroups(*l,
                      "SELECT site, count(*), sum(size) FROM objects WHERE reachable AND site IS "
                      "NOT NULL GROUP BY site",
                      false),
            topGroups(*l->now, "site", false, "site"));
  EXPECT_EQ(
      sqlGroups(*l, "SELECT shape, count(*), sum(size) FROM objects WHERE reachable GROUP BY shape",
                false),
      topGroups(*l->now, "shape", false));
}

// A group's retained bytes count each member once: a member another member
// dominates adds nothing. SQL says so with dominators(); top walks the tree.
TEST_P(Sql, RetainedByTypeCountedOnceEqualsTop) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  const auto sql =
      sqlGroups(*l,
                "SELECT type, source, count(*), sum(size), sum(retained) FILTER (WHERE NOT EXISTS ("
                "  SELECT 1 FROM dominators(o.id) d JOIN objects p ON p.id = d.id"
                "  WHERE p.type = o.type AND p.source = o.source))"
                " FROM objects o WHERE reachable GROUP BY type, source",
                true);
  EXPECT_EQ(sql, topGroups(*l->now, "type", true));
  // The types table is top's.
  std::map<std::string, Totals> table;
  for (const auto& row : l->run("SELECT name, source, count, bytes, retained FROM types").rows) {
    table[text(row[0]) + " | " + text(row[1])] = {static_cast<uint64_t>(integer(row[2])),
                                                  static_cast<uint64_t>(integer(row[3])),
                                                  static_cast<uint64_t>(integer(row[4]))};
  }
  EXPECT_EQ(table, sql);
}

TEST_P(Sql, DominatorTreeEqualsDom) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  questions::DomQuery q;
  q.depth = 3;
  q.min_bytes = 0;
  q.max_children = 40;
  const auto rows = questions::queryDom(*l->now, q);
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  size_t objects = 0;
  for (const analysis::DomRow& r : *rows) {
    const std::string id = std::to_string(r.node.node);
    const auto children = l->run("SELECT count(*) - 1 FROM subtree(" + id + ", 1)");
    EXPECT_EQ(integer(children.rows.at(0).at(0)), static_cast<int64_t>(r.children)) << r.node.name;
    if (r.node.kind != "object") continue;
    objects++;
    const auto o = l->run(
        "SELECT retained, size, address, (SELECT count(*) FROM objects c WHERE "
        "c.dominator = o.id) FROM objects o WHERE id = " +
        id);
    ASSERT_EQ(o.rows.size(), 1u);
    EXPECT_EQ(integer(o.rows[0][0]), static_cast<int64_t>(r.retained));
    EXPECT_EQ(integer(o.rows[0][1]), static_cast<int64_t>(r.shallow));
    EXPECT_EQ(integer(o.rows[0][2]), static_cast<int64_t>(r.node.address));
    EXPECT_EQ(integer(o.rows[0][3]), static_cast<int64_t>(r.children));
    // A subtree's bytes are the retained size.
    const auto sum = l->run("SELECT sum(size) FROM subtree(" + id + ")");
    EXPECT_EQ(integer(sum.rows.at(0).at(0)), static_cast<int64_t>(r.retained));
  }
  EXPECT_GT(objects, 10u);
}

TEST_P(Sql, PathsEqualPathsAndFollowRefs) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  const auto& addrs = l->report["sessions"]["new_addrs"].items();
  ASSERT_GE(addrs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    questions::PathsQuery q;
    q.addr = addrs[i].hexAddress();
    q.limit = 5;
    const auto want = questions::queryPaths(*l->now, q);
    ASSERT_TRUE(want.ok()) << want.error().message();
    const auto got = l->run("SELECT path, step, node, offset, field FROM paths(object_at(" +
                            std::to_string(q.addr) + "), 5) ORDER BY path, step");
    size_t row = 0;
    for (size_t p = 0; p < want->paths.size(); p++) {
      const auto& steps = want->paths[p].steps;
      for (size_t k = 0; k < steps.size(); k++, row++) {
        ASSERT_LT(row, got.rows.size());
        EXPECT_EQ(integer(got.rows[row][0]), static_cast<int64_t>(p));
        EXPECT_EQ(integer(got.rows[row][2]), static_cast<int64_t>(steps[k].node.node));
        EXPECT_EQ(text(got.rows[row][4]), steps[k].field.empty() ? "NULL" : steps[k].field);
        // Each step's pointer is a row of refs.
        if (k + 1 < steps.size() && steps[k].offset) {
          const auto ref = l->run(
              "SELECT count(*) FROM refs WHERE \"from\" = " + std::to_string(steps[k].node.node) +
              " AND \"to\" = " + std::to_string(steps[k + 1].node.node) +
              " AND offset = " + std::to_string(*steps[k].offset));
          EXPECT_EQ(integer(ref.rows.at(0).at(0)), 1) << "no ref for step " << k;
        }
      }
    }
    EXPECT_EQ(row, got.rows.size());
  }
}

// The Sessions added between the two dumps, by the program's own account.
TEST_P(Sql, NewSessionsAreExactlyTheReportedOnes) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  const auto r = l->run(
      "SELECT address FROM objects o WHERE type = 'main.Session' AND reachable AND NOT EXISTS ("
      "SELECT 1 FROM old.objects p WHERE p.address = o.address AND p.type = o.type AND "
      "p.reachable)");
  std::set<uint64_t> got;
  for (const auto& row : r.rows) got.insert(static_cast<uint64_t>(integer(row[0])));
  std::set<uint64_t> want;
  for (const auto& a : l->report["sessions"]["new_addrs"].items()) want.insert(a.hexAddress());
  EXPECT_EQ(got, want);
  const auto all = l->run("SELECT count(*) FROM objects WHERE type = 'main.Session' AND reachable");
  EXPECT_EQ(integer(all.rows.at(0).at(0)),
            static_cast<int64_t>(l->report["sessions"]["sessions_old"].u64() +
                                 l->report["sessions"]["sessions_added"].u64()));
}

TEST_P(Sql, RefsJoinedWithGlobalsNameTheSessionsMap) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  const uint64_t map = l->report["sessions"]["map_addr"].hexAddress();
  const auto r = l->run(
      "SELECT g.name FROM objects o JOIN refs r ON r.\"to\" = o.id JOIN globals g ON g.root = "
      "r.\"from\" AND r.offset >= g.offset AND r.offset < g.offset + g.size WHERE o.address = " +
      std::to_string(map));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(text(r.rows[0][0]), l->report["sessions"]["global"].str());
  // roots names it too, as the field of the pointer.
  const auto root = l->run("SELECT name, field, kind FROM roots WHERE object = object_at(" +
                           std::to_string(map) + ")");
  ASSERT_EQ(root.rows.size(), 1u);
  EXPECT_EQ(text(root.rows[0][0]), "main.sessions");
  EXPECT_EQ(text(root.rows[0][2]), "bss segment");
}

// What a lookup visits: only the rows it finds, never the whole table.
TEST_P(Sql, LookupsReadAnIndexNotAScan) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  const analysis::Snapshot& s = l->snap();
  const uint64_t map = l->report["sessions"]["map_addr"].hexAddress();
  const NodeId map_id = s.heap.addresses().find(map);
  ASSERT_NE(map_id, kNoNode);
  auto visits = [&](const std::string& q, uint64_t rows) {
    const uint64_t before = l->db->rowsVisited();
    const auto r = l->run(q);
    if (rows != SIZE_MAX) {
      EXPECT_EQ(r.rows.size(), rows) << q;
    }
    return l->db->rowsVisited() - before;
  };
  const std::string id = std::to_string(map_id);
  EXPECT_EQ(visits("SELECT * FROM objects WHERE id = " + id, 1), 1u);
  EXPECT_EQ(visits("SELECT * FROM objects WHERE address = " + std::to_string(map), 1), 1u);
  EXPECT_EQ(visits("SELECT * FROM objects WHERE address IN (" + std::to_string(map) + ", 1, 2)", 1),
            1u);
  const uint64_t sessions =
      l->report["sessions"]["sessions_old"].u64() + l->report["sessions"]["sessions_added"].u64();
  EXPECT_EQ(visits("SELECT id FROM objects WHERE type = 'main.Session' AND reachable", sessions),
            sessions);
  const uint64_t children = s.dominatorChildren().neighbors(map_id).size();
  EXPECT_EQ(visits("SELECT id FROM objects WHERE dominator = " + id, children), children);
  const uint64_t out = s.heap.successors.neighbors(map_id).size();
  EXPECT_LE(visits("SELECT * FROM refs WHERE \"from\" = " + id, out), out + 1);
  EXPECT_EQ(visits("SELECT * FROM refs WHERE \"to\" = " + id, 1), 1u);
  const uint64_t fields = visits("SELECT * FROM fields WHERE object = " + id, SIZE_MAX);
  EXPECT_GT(fields, 0u);
  EXPECT_LT(fields, 100u);
  // The plan names the index; a scan would say INDEX 0.
  const auto plan = l->run("EXPLAIN QUERY PLAN SELECT * FROM objects WHERE address = 1");
  ASSERT_EQ(plan.rows.size(), 1u);
  EXPECT_NE(text(plan.rows[0][3]).find("INDEX 2"), std::string::npos) << text(plan.rows[0][3]);
  // GROUP BY type reads the objects in type order: no sorter.
  const auto group = l->run("EXPLAIN QUERY PLAN SELECT type, count(*) FROM objects GROUP BY type");
  ASSERT_GT(group.rows.size(), 0u);
  for (const auto& row : group.rows) {
    EXPECT_EQ(text(row[3]).find("TEMP B-TREE"), std::string::npos) << text(row[3]);
  }
}

TEST_P(Sql, OnlyReads) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  for (const char* statement :
       {"INSERT INTO objects(id) VALUES (1)", "DELETE FROM objects", "UPDATE objects SET size = 0",
        "CREATE TABLE t(x)", "CREATE TEMP TABLE t(x)", "DROP TABLE objects",
        "ATTACH DATABASE '/tmp/goheap-sql-test.db' AS x", "ATTACH ':memory:' AS y", "DETACH old",
        "VACUUM INTO '/tmp/goheap-sql-test.db'", "PRAGMA temp_store = FILE",
        "PRAGMA writable_schema = ON", "SELECT load_extension('/tmp/x')",
        "CREATE VIRTUAL TABLE main.x USING goheap_objects"}) {
    auto r = l->db->run(statement);
    EXPECT_FALSE(r) << statement;
    if (!r) {
      EXPECT_NE(r.error().message().find("not"), std::string::npos) << r.error().message();
    }
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/goheap-sql-test.db"));
  // Still answering.
  EXPECT_EQ(l->run("SELECT count(*) FROM types").rows.size(), 1u);
  // Describing the schema is allowed.
  EXPECT_EQ(l->run("PRAGMA table_info(objects)").rows.size(), std::size(sql::kObjectColumns));
}

TEST_P(Sql, MistakesAndLimits) {
  const LeaksSql* l = leaks();
  if (l == nullptr) return;
  auto bad = l->db->run("SELEC count(*) FROM objects");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("near \"SELEC\""), std::string::npos)
      << bad.error().message();
  auto missing = l->db->run("SELECT * FROM paths()");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("paths(ID)"), std::string::npos);
  auto wrong = l->db->run("SELECT * FROM paths(-5)");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("objects.id"), std::string::npos);
  // A statement that would run for ever stops at its time limit.
  const auto started = std::chrono::steady_clock::now();
  auto endless = l->db->run(
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n",
      {0, 0.5});
  ASSERT_FALSE(endless);
  EXPECT_NE(endless.error().message().find("time limit"), std::string::npos);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 30);
  // The row limit cuts and says so.
  const auto cut = l->run("SELECT id FROM objects", {7, 0});
  EXPECT_EQ(cut.rows.size(), 7u);
  EXPECT_TRUE(cut.truncated);
  // A zero byte (SQLite would stop reading there) is an error, not a hang.
  auto zero = l->db->run(std::string("SELECT 1 FROM objects WHER\0E NOT reachable", 42));
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message().find("zero byte at offset 26"), std::string::npos)
      << zero.error().message();
  // Several statements in one text: one result each.
  auto two = l->db->run("SELECT 1; SELECT 2, 3;");
  ASSERT_TRUE(two);
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].columns.size(), 2u);
}

// Without the executable: no Go types, so `type` is top's name for each
// object, and there are no fields or strings.
TEST_P(Sql, UntypedHeap) {
  const LeaksSql* l = leaks(/*with_exe=*/false);
  if (l == nullptr) return;
  EXPECT_EQ(sqlGroups(*l, kByTypeAndSource, true), topGroups(*l->now, "type", false));
  EXPECT_EQ(integer(l->run("SELECT count(*) FROM objects WHERE typed").rows.at(0).at(0)), 0);
  EXPECT_EQ(integer(l->run("SELECT count(*) FROM fields").rows.at(0).at(0)), 0);
  EXPECT_EQ(integer(l->run("SELECT count(*) FROM strings").rows.at(0).at(0)), 0);
  EXPECT_EQ(integer(l->run("SELECT count(*) FROM globals").rows.at(0).at(0)), 0);
}

INSTANTIATE_TEST_SUITE_P(Leaks, Sql, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
