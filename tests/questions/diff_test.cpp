// goheap diff against tests/programs/leaks: the program writes a dump before
// its leaks grow (leaks.old.dump) and one after (leaks.dump), and reports
// exactly what it added between them (leaks.json). Every toolchain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <ios>
#include <map>
#include <set>
#include <string>

#include "analysis/diff.h"
#include "analysis/histogram.h"
#include "analysis/snapshot.h"
#include "questions/typed_questions.h"
#include "support/ask_question.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"
#include "typing/names.h"

namespace goheap {
namespace {

using testing::JsonValue;

std::string dumpsDir(const std::string& toolchain) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + toolchain;
}

// Dumps are loaded once per (dump, executable) for the whole binary: the
// tests only read them.
const query::Session& loadSession(const std::string& dump, const std::string& exe,
                                  bool exe_must_match = true) {
  static std::map<std::pair<std::string, std::string>, goheap::testing::SessionPtr> cache;
  auto& slot = cache[{dump, exe}];
  if (!slot) {
    auto session = goheap::testing::openSession(dump, exe);
    EXPECT_TRUE(session.ok()) << dump << ": " << session.error().message();
    slot = session.take();
    const analysis::Snapshot& s = slot->snapshot();
    if (!exe.empty()) {
      if (exe_must_match) {
        EXPECT_TRUE(s.exe) << exe << ": " << s.exe_problem;
      }
      if (s.exe) {
        EXPECT_TRUE(s.types) << exe << ": " << s.types_problem;
      }
    }
  }
  return *slot;
}

std::set<uint64_t> addressesOf(const JsonValue& list) {
  std::set<uint64_t> out;
  for (const JsonValue& a : list.items()) out.insert(a.hexAddress());
  return out;
}

class LeaksDiff : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = dumpsDir(GetParam());
    ASSERT_TRUE(std::filesystem::exists(dir_ + "/leaks.old.dump"))
        << dir_ << "/leaks.old.dump is missing: tests/programs/make-dumps.sh makes it";
    report_ = JsonValue::parseFile(dir_ + "/leaks.json");
  }
  const query::Session& oldSession() const {
    return loadSession(dir_ + "/leaks.old.dump", dir_ + "/leaks");
  }
  const query::Session& newSession() const {
    return loadSession(dir_ + "/leaks.dump", dir_ + "/leaks");
  }
  const analysis::Snapshot& oldDump(bool with_exe) const {
    return loadSession(dir_ + "/leaks.old.dump", with_exe ? dir_ + "/leaks" : "").snapshot();
  }
  const analysis::Snapshot& newDump(bool with_exe) const {
    return loadSession(dir_ + "/leaks.dump", with_exe ? dir_ + "/leaks" : "").snapshot();
  }

  std::string dir_;
  JsonValue report_;
};

const analysis::DiffGroupRow* findGroup(const std::vector<analysis::DiffGroupRow>& rows,
                                        const std::function<bool(const std::string&)>& match) {
  for (const analysis::DiffGroupRow& r : rows) {
    if (match(r.name)) return &r;
  }
  return nullptr;
}

// With types, a Session the typing left untyped would be grouped by its
// allocation site instead (main.newSession); every Session must be typed
// (Go 1.19's overflow buckets included), so the type alone grows by the
// report's count and the site group does not grow.
bool isNewSessionSite(const std::string& name) {
  return name.starts_with("main.newSession ");
}

TEST_P(LeaksDiff, TypeGrowthOfSessionsMatchesTheReport) {
  const JsonValue& sessions = report_["sessions"];
  const auto rows = analysis::diffGroups(oldDump(true), newDump(true), typing::GroupKind::Type,
                                         analysis::SortKey::Retained);
  const analysis::DiffGroupRow* typed =
      findGroup(rows, [&](const std::string& n) { return n == sessions["type"].str(); });
  ASSERT_NE(typed, nullptr);
  const analysis::DiffGroupRow* untyped = findGroup(rows, isNewSessionSite);
  const int64_t count = typed->countDelta() + (untyped ? untyped->countDelta() : 0);
  const int64_t bytes = typed->shallowDelta() + (untyped ? untyped->shallowDelta() : 0);
  EXPECT_EQ(count, static_cast<int64_t>(sessions["sessions_added"].u64()));
  EXPECT_EQ(bytes, static_cast<int64_t>(sessions["new_bytes"].u64()));
  EXPECT_EQ(typed->old_count + (untyped ? untyped->old_count : 0), sessions["sessions_old"].u64());
  EXPECT_EQ(typed->countDelta(), static_cast<int64_t>(sessions["sessions_added"].u64()));
  if (untyped != nullptr) {
    EXPECT_EQ(untyped->new_count, 0u) << "untyped Sessions";
  }
  // Sorted by growth of the key, descending.
  for (size_t i = 1; i < rows.size(); i++) {
    EXPECT_GE(rows[i - 1].retainedDelta(), rows[i].retainedDelta()) << i;
  }
}

// A stripped build (no DWARF, no symbols), as production ships: the types
// come from the runtime's descriptors, and diff still names the type that
// leaked, first by growth, with the count its own run reports.
TEST_P(LeaksDiff, StrippedBuildNamesTheLeakedType) {
  const std::string dir = dir_ + "/stripped";
  ASSERT_TRUE(std::filesystem::exists(dir + "/leaks.old.dump"))
      << dir << "/leaks.old.dump is missing: tests/programs/make-dumps.sh makes it";
  const JsonValue report = JsonValue::parseFile(dir + "/leaks.json");
  const JsonValue& sessions = report["sessions"];
  const analysis::Snapshot& before =
      loadSession(dir + "/leaks.old.dump", dir + "/leaks").snapshot();
  const analysis::Snapshot& after = loadSession(dir + "/leaks.dump", dir + "/leaks").snapshot();
  ASSERT_TRUE(after.exe);
  ASSERT_EQ(after.exe->debugInfo(), nullptr) << "the build has DWARF";
  const auto rows =
      analysis::diffGroups(before, after, typing::GroupKind::Type, analysis::SortKey::Retained);
  ASSERT_FALSE(rows.empty());
  const analysis::DiffGroupRow* typed =
      findGroup(rows, [&](const std::string& n) { return n == sessions["type"].str(); });
  ASSERT_NE(typed, nullptr) << "no row " << sessions["type"].str();
  // Without malloc headers (Go 1.19) a run may leave a few of the old
  // dump's Sessions to no guess that the new dump's map then names: the
  // growth is the report's, plus at most those.
  const uint64_t added = sessions["sessions_added"].u64(), old = sessions["sessions_old"].u64();
  EXPECT_GE(typed->countDelta(), static_cast<int64_t>(added));
  EXPECT_LE(typed->countDelta(), static_cast<int64_t>(added + old));
  EXPECT_GE(typed->new_count * 100, (old + added) * 99) << "Sessions of the new dump typed";
  // What grows most is theirs: the Sessions, or the map holding them (its
  // header, directory, tables or groups).
  const std::string& top = rows.front().name;
  EXPECT_TRUE(top == sessions["type"].str() ||
              top.find("[uint64]*main.Session") != std::string::npos)
      << top;
}

// Groups that did not change are left out unless asked for: every row shown
// changed, and asking for the rest adds exactly the ones that did not.
TEST_P(LeaksDiff, UnchangedGroupsAreLeftOutUnlessAsked) {
  const auto all = analysis::diffGroups(oldDump(true), newDump(true), typing::GroupKind::Type,
                                        analysis::SortKey::Retained);
  size_t unchanged = 0;
  for (const analysis::DiffGroupRow& r : all) {
    if (r.countDelta() == 0 && r.shallowDelta() == 0 && r.retainedDelta() == 0) unchanged++;
  }
  ASSERT_GT(unchanged, 0u);
  questions::DiffQuery q;
  q.limit = 0;
  const questions::DiffResult changed = questions::queryDiff(oldSession(), newSession(), q);
  ASSERT_GT(changed.rows.size(), 0u);
  for (const analysis::DiffGroupRow& r : changed.rows) {
    EXPECT_FALSE(r.countDelta() == 0 && r.shallowDelta() == 0 && r.retainedDelta() == 0) << r.name;
  }
  q.unchanged = true;
  const questions::DiffResult every = questions::queryDiff(oldSession(), newSession(), q);
  EXPECT_EQ(every.groups, all.size());
  EXPECT_EQ(changed.groups + unchanged, all.size());
}

// What a site group holds, counted with the executable's types: reachable
// objects whose alloc sample's first frame outside the runtime is the site.
struct SiteMembers {
  int64_t runtime_count = 0, runtime_bytes = 0;  // of a runtime.* type
  int64_t other_count = 0;                       // of any other type
};

SiteMembers membersOfSite(const analysis::Snapshot& typed,
                          const std::function<bool(const std::string&)>& is_site,
                          const std::string& program_type) {
  SiteMembers m;
  const typing::ObjectNamer& namer = typed.namer();
  for (NodeId o = 0; o < typed.heap.objectCount(); o++) {
    if (!typed.reachable(o)) continue;
    const int64_t bucket = namer.bucketOf(o);
    if (bucket < 0 || !is_site(namer.siteName(static_cast<size_t>(bucket)))) continue;
    const std::string type = namer.typeName(o);
    if (type.starts_with("runtime.")) {
      m.runtime_count++;
      m.runtime_bytes += static_cast<int64_t>(typed.shallowSize(o));
    } else {
      m.other_count++;
      EXPECT_EQ(type, program_type) << "at 0x" << std::hex << typed.address(o);
    }
  }
  return m;
}

TEST_P(LeaksDiff, SiteOfNewSessionGrowsWithoutTheExecutable) {
  const JsonValue& sessions = report_["sessions"];
  const auto rows = analysis::diffGroups(oldDump(false), newDump(false), typing::GroupKind::Name,
                                         analysis::SortKey::Count);
  const analysis::DiffGroupRow* row = findGroup(rows, isNewSessionSite);
  ASSERT_NE(row, nullptr);
  // A site holds every object whose alloc sample's first frame outside the
  // runtime is that site, the runtime's own objects allocated while it ran
  // included. When new(Session) has to wait on a semaphore inside mallocgc
  // (a GC assist that finishes the mark phase meets a mark worker in
  // gcMarkDone, or a GC start) with the sudog caches empty, the runtime
  // allocates a runtime.sudog (96 B) under main.newSession's frame, and
  // keeps it, reachable, in the P's sudog cache. Some runs of the Go 1.19
  // program on a busy machine have one (issue 13 saw 20,001 objects and
  // 2,560,096 B). With the executable such objects are typed: the site must
  // grow by exactly the program's Sessions and those.
  const std::string& type = sessions["type"].str();
  const SiteMembers before = membersOfSite(oldDump(true), isNewSessionSite, type);
  const SiteMembers after = membersOfSite(newDump(true), isNewSessionSite, type);
  const auto added = static_cast<int64_t>(sessions["sessions_added"].u64());
  const auto old_sessions = static_cast<int64_t>(sessions["sessions_old"].u64());
  const auto added_bytes = static_cast<int64_t>(sessions["new_bytes"].u64());
  EXPECT_EQ(before.other_count, old_sessions);
  EXPECT_EQ(after.other_count, old_sessions + added);
  EXPECT_EQ(row->countDelta(), added + after.runtime_count - before.runtime_count);
  EXPECT_EQ(row->shallowDelta(), added_bytes + after.runtime_bytes - before.runtime_bytes);
  EXPECT_EQ(static_cast<int64_t>(row->old_count), old_sessions + before.runtime_count);
}

// The rows of new Sessions whose holder names main.sessions: their objects
// are exactly the Sessions the program added.
void expectNewSessions(const analysis::Snapshot& now, const analysis::NewSince& ns,
                       const JsonValue& sessions,
                       const std::function<bool(const std::string&)>& is_session_group) {
  uint64_t count = 0, bytes = 0, rows = 0;
  std::set<uint64_t> got;
  for (const analysis::NewObjectsRow& r : ns.rows) {
    if (!is_session_group(r.group)) continue;
    auto reached = analysis::reachedFrom(now, r.holder.node);
    if (r.holder.global != sessions["global"].str() &&
        !(reached && reached->global == sessions["global"].str())) {
      continue;
    }
    rows++;
    count += r.count;
    bytes += r.bytes;
    EXPECT_EQ(r.holder.address, sessions["map_addr"].hexAddress()) << r.group;
    for (NodeId o : r.members) got.insert(now.address(o));
  }
  EXPECT_GE(rows, 1u) << "no row of new Sessions held through " << sessions["global"].str();
  EXPECT_EQ(count, sessions["sessions_added"].u64());
  EXPECT_EQ(bytes, sessions["new_bytes"].u64());
  EXPECT_EQ(got, addressesOf(sessions["new_addrs"]));
}

TEST_P(LeaksDiff, NewSessionsAreHeldByTheSessionsMap) {
  const JsonValue& sessions = report_["sessions"];
  const analysis::Snapshot& now = newDump(true);
  // By type: the main.Session row (and, for Sessions left untyped, their
  // site's row).
  expectNewSessions(
      now, analysis::newSince(oldDump(true), now, typing::GroupKind::Type), sessions,
      [&](const std::string& g) { return g == sessions["type"].str() || isNewSessionSite(g); });
  // By site, with the executable naming the global: one row, exact.
  expectNewSessions(now, analysis::newSince(oldDump(true), now, typing::GroupKind::Name), sessions,
                    isNewSessionSite);
  // Without the executable: still one row of main.newSession's objects with
  // the map header as holder.
  const analysis::Snapshot& bare = newDump(false);
  const analysis::NewSince ns = analysis::newSince(oldDump(false), bare, typing::GroupKind::Name);
  const auto row = std::find_if(ns.rows.begin(), ns.rows.end(), [&](const auto& r) {
    return isNewSessionSite(r.group) && r.holder.address == sessions["map_addr"].hexAddress();
  });
  ASSERT_NE(row, ns.rows.end());
  EXPECT_EQ(row->count, sessions["sessions_added"].u64());
}

TEST_P(LeaksDiff, NewBuffersAreHeldByHoldBufferFrames) {
  const JsonValue& buffers = report_["buffers"];
  const analysis::Snapshot& now = newDump(true);
  const analysis::NewSince ns = analysis::newSince(oldDump(true), now, typing::GroupKind::Type);
  std::set<uint64_t> got;
  uint64_t count = 0, rows = 0;
  for (const analysis::NewObjectsRow& r : ns.rows) {
    if (r.function != buffers["function"].str()) continue;
    // Each goroutine's frame holds one buffer: one row for them all.
    if (r.count == buffers["buffers_added"].u64()) {
      rows++;
      EXPECT_EQ(r.holders, buffers["buffers_added"].u64());
      EXPECT_EQ(r.bytes, r.count * buffers["size"].u64());
    }
    for (NodeId o : r.members) {
      if (now.shallowSize(o) != buffers["size"].u64()) continue;
      got.insert(now.address(o));
      count++;
    }
  }
  EXPECT_EQ(rows, 1u);
  EXPECT_EQ(count, buffers["buffers_added"].u64());
  EXPECT_EQ(got, addressesOf(buffers["new_addrs"]));
}

TEST_P(LeaksDiff, SwappedOrderShowsNegativeGrowth) {
  const JsonValue& sessions = report_["sessions"];
  const auto rows = analysis::diffGroups(newDump(true), oldDump(true), typing::GroupKind::Type,
                                         analysis::SortKey::Retained);
  const analysis::DiffGroupRow* typed =
      findGroup(rows, [&](const std::string& n) { return n == sessions["type"].str(); });
  ASSERT_NE(typed, nullptr);
  const analysis::DiffGroupRow* untyped = findGroup(rows, isNewSessionSite);
  EXPECT_EQ(typed->countDelta() + (untyped ? untyped->countDelta() : 0),
            -static_cast<int64_t>(sessions["sessions_added"].u64()));
  EXPECT_EQ(typed->shallowDelta() + (untyped ? untyped->shallowDelta() : 0),
            -static_cast<int64_t>(sessions["new_bytes"].u64()));
  EXPECT_LT(typed->countDelta(), 0);
  // NEW as OLD: no session of the smaller dump is new.
  const analysis::NewSince ns =
      analysis::newSince(newDump(true), oldDump(true), typing::GroupKind::Type);
  for (const analysis::NewObjectsRow& r : ns.rows) {
    EXPECT_FALSE(r.group == sessions["type"].str() || isNewSessionSite(r.group))
        << r.count << " new sessions in the older dump";
  }
  const questions::DiffResult r =
      questions::queryDiff(newSession(), oldSession(), questions::DiffQuery{});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

TEST_P(LeaksDiff, SameProgramDoesNotWarn) {
  EXPECT_TRUE(analysis::diffWarnings(oldDump(false), newDump(false)).empty());
  const auto w = analysis::diffWarnings(oldDump(true), newDump(true));
  EXPECT_TRUE(w.empty()) << w[0];
}

TEST_P(LeaksDiff, AnotherProgramWarns) {
  const analysis::Snapshot& other = loadSession(dir_ + "/zoo.dump", "").snapshot();
  const auto w = analysis::diffWarnings(newDump(false), other);
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w[0].find("different executables"), std::string::npos) << w[0];
}

TEST_P(LeaksDiff, ExecutableOfAnotherProgramMatchesNeither) {
  // leaks' executable with zoo's dump: it matches NEW only.
  const analysis::Snapshot& other =
      loadSession(dir_ + "/zoo.dump", dir_ + "/leaks", false).snapshot();
  // Two different programs: an executable that matched would be goheap's
  // mistake, not a reason to skip.
  ASSERT_EQ(other.exe, nullptr) << "leaks' executable was taken for zoo's dump's";
  const auto w = analysis::diffWarnings(other, newDump(true));
  bool said = false;
  for (const std::string& s : w)
    said = said || s.find("matches NEW but not OLD") != std::string::npos;
  EXPECT_TRUE(said);
}

// Asked through the question table, as every front end asks it: the growth
// of the sessions' type is the report's, and each heap's reachable objects
// are what a plain walk of its graph reaches.
TEST_P(LeaksDiff, TheQuestionAnswersTheReportsGrowth) {
  const JsonValue& sessions = report_["sessions"];
  const JsonValue diff = testing::askQuestion(
      "diff", {{"by", "type"}, {"limit", "0"}, {"filter", sessions["type"].str()}}, newSession(),
      &oldSession());
  const JsonValue* row = nullptr;
  for (const JsonValue& r : diff["rows"].items()) {
    if (r["name"].str() == sessions["type"].str()) row = &r;
  }
  ASSERT_NE(row, nullptr) << sessions["type"].str();
  EXPECT_EQ((*row)["count_delta"].number(), static_cast<double>(sessions["sessions_added"].u64()));
  EXPECT_EQ((*row)["shallow_delta"].number(), static_cast<double>(sessions["new_bytes"].u64()));
  const testing::Reached before = testing::reachedObjects(oldSession().snapshot());
  const testing::Reached after = testing::reachedObjects(newSession().snapshot());
  EXPECT_EQ(diff["old"]["reachable_count"].u64(), before.objects);
  EXPECT_EQ(diff["new"]["reachable_bytes"].u64(), after.bytes);
}

INSTANTIATE_TEST_SUITE_P(Questions, LeaksDiff, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
