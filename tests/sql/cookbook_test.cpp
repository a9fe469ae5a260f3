// Every query of docs/sql.md's cookbook, run on the leaks program's dumps
// (NEW as main, OLD as old) and checked against the program's report or
// against the command the cookbook names: the documentation is tested as it
// is written.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/summary.h"
#include "questions/typed_questions.h"
#include "sql/leaks_sql.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::integer;
using testing::JsonValue;
using testing::LeaksSql;
using testing::text;

// The cookbook's queries, in order: the ```sql blocks after "## Cookbook".
std::vector<std::string> cookbook() {
  std::ifstream in(std::string(GOHEAP_SOURCE_DIR) + "/docs/sql.md");
  std::stringstream all;
  all << in.rdbuf();
  const std::string doc = all.str();
  const size_t start = doc.find("## Cookbook");
  std::vector<std::string> out;
  if (start == std::string::npos) return out;
  const std::regex block("```sql\n([^`]*)```");
  for (auto it =
           std::sregex_iterator(doc.begin() + static_cast<std::ptrdiff_t>(start), doc.end(), block);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

// The example address of the cookbook, replaced by one of this heap.
std::string withAddress(std::string query, uint64_t address) {
  const std::string example = "0xc000123450";
  for (size_t at; (at = query.find(example)) != std::string::npos;) {
    query.replace(at, example.size(), std::to_string(address));
  }
  return query;
}

// The rows as (column name -> value) maps.
struct Rows {
  sql::SqlResult r;
  size_t column(const std::string& name) const {
    for (size_t c = 0; c < r.columns.size(); c++) {
      if (r.columns[c] == name) return c;
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
  // A number; the cookbook writes addresses as addr(), hex text.
  int64_t i(size_t row, const std::string& name) const {
    const sql::Value& v = r.rows.at(row).at(column(name));
    if (const auto* hex = std::get_if<std::string>(&v); hex && hex->starts_with("0x")) {
      return static_cast<int64_t>(std::stoull(*hex, nullptr, 16));
    }
    return integer(v);
  }
  std::string s(size_t row, const std::string& name) const {
    return text(r.rows.at(row).at(column(name)));
  }
  size_t size() const { return r.rows.size(); }
};

class Cookbook : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    l_ = testing::leaksSql(GetParam());
    if (l_ == nullptr) GTEST_SKIP() << GetParam() << "/leaks.dump is missing";
    queries_ = cookbook();
    ASSERT_EQ(queries_.size(), 20u) << "docs/sql.md should hold twenty cookbook queries";
  }
  // Cookbook query `n` (from 1), its example address replaced.
  Rows run(size_t n, uint64_t address = 0) const {
    return {l_->run(withAddress(queries_.at(n - 1), address))};
  }
  const JsonValue& report(const std::string& key) const { return l_->report[key]; }
  uint64_t sessions() const {
    return report("sessions")["sessions_old"].u64() + report("sessions")["sessions_added"].u64();
  }

  const LeaksSql* l_ = nullptr;
  std::vector<std::string> queries_;
};

TEST_P(Cookbook, TopTypesSitesAndRetainers) {
  const query::Session& s = *l_->now;
  // 1: as top --by type --sort shallow; types of one name from two sources
  // are one row in SQL.
  questions::TopQuery by_type;
  by_type.by = "type";
  by_type.limit = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> top;
  for (const auto& r : questions::queryTop(s, by_type).histogram.rows) {
    top[r.name].first += r.count;
    top[r.name].second += r.shallow;
  }
  const Rows types = run(1);
  ASSERT_EQ(types.size(), 20u);
  for (size_t k = 0; k < types.size(); k++) {
    const auto& want = top[types.s(k, "type")];
    EXPECT_EQ(types.i(k, "objects"), static_cast<int64_t>(want.first)) << types.s(k, "type");
    EXPECT_EQ(types.i(k, "bytes"), static_cast<int64_t>(want.second)) << types.s(k, "type");
  }
  // 2: top --by type, in its order.
  by_type.limit = 20;
  const auto retained = questions::queryTop(s, by_type).histogram.rows;
  const Rows kept = run(2);
  ASSERT_EQ(kept.size(), retained.size());
  for (size_t k = 0; k < kept.size(); k++) {
    EXPECT_EQ(kept.i(k, "retained"), static_cast<int64_t>(retained[k].retained));
  }
  // 3: top --by site, site groups.
  questions::TopQuery by_site;
  by_site.by = "site";
  by_site.limit = 0;
  std::map<std::string, uint64_t> site_bytes;
  for (const auto& r : questions::queryTop(s, by_site).histogram.rows) {
    if (r.source == "site") site_bytes[r.name] = r.shallow;
  }
  const Rows sites = run(3);
  ASSERT_GT(sites.size(), 0u);
  for (size_t k = 0; k < sites.size(); k++) {
    EXPECT_EQ(sites.i(k, "bytes"), static_cast<int64_t>(site_bytes[sites.s(k, "site")]));
  }
  // 4: the biggest retainer is summary's, the sessions map, held by its global.
  const analysis::Summary sum = questions::querySummary(s, {});
  const Rows big = run(4);
  ASSERT_GT(big.size(), 0u);
  EXPECT_EQ(static_cast<uint64_t>(big.i(0, "address")), sum.top_retainers.at(0).object.address);
  EXPECT_EQ(static_cast<uint64_t>(big.i(0, "retained")), sum.top_retainers.at(0).retained);
  EXPECT_EQ(big.s(0, "name"), "main.sessions");
}

TEST_P(Cookbook, PathsSubtreesAndHolders) {
  const query::Session& s = *l_->now;
  const uint64_t session = report("sessions")["new_addrs"][0].hexAddress();
  const uint64_t map = report("sessions")["map_addr"].hexAddress();
  // 5: paths, as goheap paths shows them.
  questions::PathsQuery pq;
  pq.addr = session;
  const auto paths = questions::queryPaths(s, pq);
  ASSERT_TRUE(paths.ok()) << paths.error().message();
  const Rows steps = run(5, session);
  size_t row = 0;
  for (const auto& p : paths->paths) row += p.steps.size();
  EXPECT_EQ(steps.size(), row);
  ASSERT_GT(steps.size(), 0u);
  EXPECT_EQ(steps.s(0, "name"), "global main.sessions");
  // 6: what the sessions map keeps alive: every Session, and its retained
  // bytes in all.
  const Rows kept = run(6, map);
  int64_t bytes = 0, sessions_kept = 0;
  for (size_t k = 0; k < kept.size(); k++) {
    bytes += kept.i(k, "bytes");
    if (kept.s(k, "type") == "main.Session") sessions_kept = kept.i(k, "objects");
  }
  const NodeId map_id = l_->snap().heap.addresses().find(map);
  EXPECT_EQ(bytes, static_cast<int64_t>(l_->snap().retained[map_id]));
  EXPECT_EQ(sessions_kept, static_cast<int64_t>(sessions()));
  // 9: the global holding the map.
  const Rows global = run(9, map);
  ASSERT_EQ(global.size(), 1u);
  EXPECT_EQ(global.s(0, "name"), report("sessions")["global"].str());
  // 10: the global keeping most alive is that one, with the map's retained size.
  const Rows globals = run(10);
  ASSERT_GT(globals.size(), 0u);
  EXPECT_EQ(globals.s(0, "global"), "main.sessions");
  EXPECT_EQ(globals.i(0, "retained"), static_cast<int64_t>(l_->snap().retained[map_id]));
}

TEST_P(Cookbook, GoroutinesAndFrames) {
  // 7: as goroutines --sort retained.
  questions::GoroutinesQuery gq;
  gq.sort = "retained";
  const auto gs = questions::queryGoroutines(*l_->now, gq);
  const Rows top = run(7);
  ASSERT_GT(top.size(), 0u);
  EXPECT_EQ(static_cast<uint64_t>(top.i(0, "retained")), gs.at(0).retained);
  // 8: every holdBuffer frame holds its 64 KiB buffer.
  const Rows frames = run(8);
  const uint64_t buffers =
      report("buffers")["buffers_old"].u64() + report("buffers")["buffers_added"].u64();
  uint64_t held = 0;
  for (size_t k = 0; k < frames.size(); k++) {
    if (frames.i(k, "retained") == static_cast<int64_t>(report("buffers")["size"].u64())) held++;
  }
  EXPECT_EQ(held, buffers);
}

TEST_P(Cookbook, DuplicatesAndTokens) {
  questions::DupsQuery dq;
  dq.limit = 0;
  const analysis::Duplicates dups = questions::queryDups(*l_->now, dq);
  auto find = [&](analysis::DupKind kind, uint64_t size, uint64_t length, uint64_t copies) {
    for (const analysis::DupGroup& g : dups.groups) {
      if (g.kind == kind && g.size == size && g.length == length && g.copies == copies) return &g;
    }
    return static_cast<const analysis::DupGroup*>(nullptr);
  };
  // 11 and 12: each row is one of goheap dups' groups, wasting as much.
  for (const auto& [n, kind] :
       {std::pair{11, analysis::DupKind::String}, {12, analysis::DupKind::Bytes}}) {
    const Rows rows = run(static_cast<size_t>(n));
    ASSERT_GT(rows.size(), 0u) << n;
    for (size_t k = 0; k < rows.size(); k++) {
      const analysis::DupGroup* g = find(kind, static_cast<uint64_t>(rows.i(k, "size")),
                                         static_cast<uint64_t>(rows.i(k, "length")),
                                         static_cast<uint64_t>(rows.i(k, "copies")));
      ASSERT_NE(g, nullptr) << "query " << n << " row " << k;
      EXPECT_EQ(static_cast<uint64_t>(rows.i(k, "wasted")), g->wasted);
    }
  }
  // The report's duplicated string is the first row of 11.
  const Rows strings = run(11);
  ASSERT_GT(strings.size(), 0u);
  EXPECT_EQ(static_cast<uint64_t>(strings.i(0, "copies")), report("dup_string")["copies"].u64());
  // 13: the token is in the report's copies (and in the global they were
  // copied from).
  const Rows tokens = run(13);
  EXPECT_EQ(tokens.size(), 20u);
  std::set<uint64_t> copies;
  for (const auto& a : report("dup_string")["addrs"].items()) copies.insert(a.hexAddress());
  size_t in_report = 0;
  for (size_t k = 0; k < tokens.size(); k++) {
    in_report += copies.count(static_cast<uint64_t>(tokens.i(k, "address")));
  }
  EXPECT_GE(in_report, tokens.size() - 1);
}

TEST_P(Cookbook, FieldsReferrersAndGarbage) {
  // 14: the Configs whose Port is 8080: the report's identical configs.
  const Rows configs = run(14);
  std::set<uint64_t> got, want;
  for (size_t k = 0; k < configs.size(); k++)
    got.insert(static_cast<uint64_t>(configs.i(k, "address")));
  for (const auto& a : report("identical_configs")["addrs"].items()) want.insert(a.hexAddress());
  ASSERT_FALSE(want.empty()) << "the report lists no identical configs";
  EXPECT_EQ(got, want);
  // 15: every slice counted is empty with a backing array, by its own fields.
  const Rows empty = run(15);
  ASSERT_GT(empty.size(), 0u) << "no empty slice with a backing array";
  for (size_t k = 0; k < empty.size(); k++) EXPECT_GT(empty.i(k, "slices"), 0);
  // 16: the most referenced object has as many referrers as the graph says:
  // the one Limits every Config shares.
  const Rows referred = run(16);
  ASSERT_GT(referred.size(), 0u);
  const NodeId most =
      l_->snap().heap.addresses().find(static_cast<uint64_t>(referred.i(0, "address")));
  ASSERT_NE(most, kNoNode);
  std::set<NodeId> holders;
  for (NodeId p : l_->snap().heap.predecessors().neighbors(most)) holders.insert(p);
  EXPECT_EQ(static_cast<uint64_t>(referred.i(0, "referrers")), holders.size());
  bool limits = false;
  for (size_t k = 0; k < referred.size(); k++) {
    if (referred.s(k, "type") == "main.Limits") {
      limits = true;
      EXPECT_EQ(static_cast<uint64_t>(referred.i(k, "referrers")),
                report("identical_configs")["copies"].u64());
    }
  }
  EXPECT_TRUE(limits);
  // 17: the program's garbage, and the summary's total.
  const Rows garbage = run(17);
  const uint64_t count = report("garbage")["count"].u64(), size = report("garbage")["size"].u64();
  bool found = false;
  int64_t total = 0;
  for (size_t k = 0; k < garbage.size(); k++) {
    total += garbage.i(k, "bytes");
    found |= garbage.i(k, "objects") == static_cast<int64_t>(count) &&
             garbage.i(k, "bytes") == static_cast<int64_t>(count * size);
  }
  EXPECT_TRUE(found);
  if (garbage.size() < 20) {
    EXPECT_EQ(total, static_cast<int64_t>(l_->snap().garbage_bytes));
  }
}

TEST_P(Cookbook, LeakHuntingAcrossTwoDumps) {
  const JsonValue& s = report("sessions");
  // 18: growth by type, as goheap diff counts it.
  questions::DiffQuery dq;
  dq.by = "type";
  dq.sort = "count";
  dq.limit = 0;
  const questions::DiffResult diff = questions::queryDiff(*l_->old, *l_->now, dq);
  std::map<std::string, int64_t> growth;
  for (const auto& row : diff.rows) growth[row.name] += row.countDelta();
  const Rows grew = run(18);
  ASSERT_GT(grew.size(), 0u);
  for (size_t k = 0; k < grew.size(); k++) {
    EXPECT_EQ(grew.i(k, "more_objects"), growth[grew.s(k, "type")]) << grew.s(k, "type");
  }
  // 19: the new Sessions, all of them.
  const Rows fresh = run(19);
  bool sessions = false;
  for (size_t k = 0; k < fresh.size(); k++) {
    if (fresh.s(k, "type") != "main.Session") continue;
    sessions = true;
    EXPECT_EQ(static_cast<uint64_t>(fresh.i(k, "objects")), s["sessions_added"].u64());
    EXPECT_EQ(static_cast<uint64_t>(fresh.i(k, "bytes")), s["new_bytes"].u64());
  }
  EXPECT_TRUE(sessions);
  // 20: every new Session is held from main.sessions.
  const Rows held = run(20);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held.s(0, "held_by"), s["global"].str());
  EXPECT_EQ(static_cast<uint64_t>(held.i(0, "objects")), s["sessions_added"].u64());
}

INSTANTIATE_TEST_SUITE_P(Leaks, Cookbook, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
