// The leaks test program's two dumps (NEW as main, OLD as the schema old)
// behind one SQL connection, with the program's report: loaded once per Go
// release for the SQL tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "sql/database.h"
#include "support/json_value.h"
#include "support/open_heap.h"

namespace goheap::testing {

struct LeaksSql {
  JsonValue report;
  SessionPtr now, old;
  std::unique_ptr<sql::SqlHeap> now_heap, old_heap;
  std::unique_ptr<sql::HeapDatabase> db;
  std::string dir;

  // The statement's one result; a test failure (and no rows) when it fails.
  sql::SqlResult run(const std::string& text, const sql::SqlLimits& limits = {}) const {
    auto r = db->run(text, limits);
    if (!r) {
      ADD_FAILURE() << r.error().message();
      return {};
    }
    if (r->size() != 1) {
      ADD_FAILURE() << text << ": " << r->size() << " results";
      return {};
    }
    return std::move(r->front());
  }
  const analysis::Snapshot& snap() const { return now->snapshot(); }
};

// Null when the dumps are missing (the caller skips or fails).
inline const LeaksSql* leaksSql(const std::string& version, bool with_exe = true) {
  static std::map<std::pair<std::string, bool>, std::unique_ptr<LeaksSql>> cache;
  auto& slot = cache[{version, with_exe}];
  if (slot) return slot.get();
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version;
  if (!std::filesystem::exists(dir + "/leaks.dump")) return nullptr;
  auto l = std::make_unique<LeaksSql>();
  l->dir = dir;
  l->report = JsonValue::parseFile(dir + "/leaks.json");
  const std::string exe = with_exe ? dir + "/leaks" : "";
  auto now = openSession(dir + "/leaks.dump", exe);
  auto old = openSession(dir + "/leaks.old.dump", exe);
  if (!now || !old) {
    ADD_FAILURE() << "cannot open " << dir << "/leaks.dump or leaks.old.dump";
    return nullptr;
  }
  l->now = now.take();
  l->old = old.take();
  l->now_heap = std::make_unique<sql::SqlHeap>(l->now);
  l->old_heap = std::make_unique<sql::SqlHeap>(l->old);
  auto db = sql::HeapDatabase::open(*l->now_heap, l->old_heap.get());
  if (!db) {
    ADD_FAILURE() << db.error().message();
    return nullptr;
  }
  l->db = db.take();
  slot = std::move(l);
  return slot.get();
}

inline int64_t integer(const sql::Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  ADD_FAILURE() << "not an integer";
  return -1;
}
inline std::string text(const sql::Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (std::holds_alternative<std::monostate>(v)) return "NULL";
  ADD_FAILURE() << "not text";
  return {};
}

}  // namespace goheap::testing
