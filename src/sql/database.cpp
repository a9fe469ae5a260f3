#include "sql/database.h"

#include <array>
#include <cstring>

#include "sql/schema.h"
#include "util/format.h"

namespace goheap::sql {

namespace {

// What a statement may do once the tables are made: read. Everything that
// writes, attaches a file or changes the connection is refused before it
// runs, whatever SQLite's version adds (unknown actions are refused too).
int authorize(void* /*self*/, int action, const char* arg1, const char* /*arg2*/,
              const char* /*db*/, const char* /*trigger*/) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA: {
      // Pragmas that only describe the schema.
      static constexpr std::array<std::string_view, 6> kReadOnly = {"table_info",  "table_xinfo",
                                                                    "table_list",  "function_list",
                                                                    "module_list", "database_list"};
      const std::string_view name = arg1 ? arg1 : "";
      for (std::string_view ok : kReadOnly) {
        if (name.size() == ok.size() && strncasecmp(name.data(), ok.data(), ok.size()) == 0) {
          return SQLITE_OK;
        }
      }
      return SQLITE_DENY;
    }
    default:
      return SQLITE_DENY;
  }
}

Error statementError(std::string_view text, const std::string& why) {
  std::string shown(text.substr(0, 200));
  if (text.size() > 200) shown += "…";
  return Error(why + " (in: " + shown + ")");
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

void limitSqlMemory(uint64_t bytes) {
  sqlite3_hard_heap_limit64(static_cast<sqlite3_int64>(bytes));
}

Expected<std::unique_ptr<HeapDatabase>> HeapDatabase::open(const SqlHeap& current,
                                                           const SqlHeap* base) {
  std::unique_ptr<HeapDatabase> d(new HeapDatabase());
  d->current_ = &current;
  d->base_ = base;
  // An in-memory database that holds nothing but the virtual tables'
  // declarations; no file name is ever opened.
  if (sqlite3_open_v2(":memory:", &d->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    return Error(std::string("cannot open SQLite: ") +
                 (d->db_ ? sqlite3_errmsg(d->db_) : "out of memory"));
  }
  sqlite3* db = d->db_;
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_extended_result_codes(db, 1);
  // Sorts and GROUP BY spill to memory, not to temporary files.
  sqlite3_exec(db, "PRAGMA temp_store = MEMORY", nullptr, nullptr, nullptr);

  HeapForSchema heaps = [cur = &current, base](std::string_view schema) -> const SqlHeap* {
    if (schema == "main") return cur;
    if (schema == "old") return base;
    return nullptr;
  };
  if (Status st = registerHeapModules(db, heaps, d->counter_); !st) return st.error();
  std::string setup;
  if (base != nullptr) setup += "ATTACH ':memory:' AS old;";
  for (const std::string& name : heapTableNames()) {
    setup += "CREATE VIRTUAL TABLE main." + name + " USING goheap_" + name + ";";
    if (base != nullptr)
      setup += "CREATE VIRTUAL TABLE old." + name + " USING goheap_" + name + ";";
  }
  char* err = nullptr;
  if (sqlite3_exec(db, setup.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    Error e(std::string("cannot create the SQL tables: ") + (err ? err : "unknown error"));
    sqlite3_free(err);
    return e;
  }
  // The table-valued functions are made on first use, and the authorizer
  // installed below would refuse the schema SQLite declares for them then:
  // preparing a call (not running it) makes them now.
  for (const std::string_view prefix : {"", "old_"}) {
    if (prefix == "old_" && base == nullptr) continue;
    for (const TableSchema* function : kSqlSchema) {
      if (!function->function) continue;
      const std::string call =
          "SELECT * FROM " + std::string(prefix) + std::string(function->name) + "(0)";
      sqlite3_stmt* stmt = nullptr;
      const int rc = sqlite3_prepare_v2(db, call.c_str(), -1, &stmt, nullptr);
      sqlite3_finalize(stmt);
      if (rc != SQLITE_OK) {
        return Error("cannot create the SQL function " + std::string(function->name) + ": " +
                     sqlite3_errmsg(db));
      }
    }
  }
  // From here on: read only, and nothing more attached.
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_set_authorizer(db, authorize, nullptr);
  sqlite3_progress_handler(db, 10000, onProgress, d.get());
  return d;
}

HeapDatabase::~HeapDatabase() {
  sqlite3_close_v2(db_);
}

int HeapDatabase::onProgress(void* self) {
  auto* d = static_cast<HeapDatabase*>(self);
  if (d->has_deadline_ && std::chrono::steady_clock::now() > d->deadline_) {
    d->timed_out_ = true;
    return 1;  // interrupts the statement
  }
  if (d->cancelled_ != nullptr && d->cancelled_->load()) {
    d->was_cancelled_ = true;
    return 1;
  }
  return 0;
}

Expected<std::vector<SqlResult>> HeapDatabase::run(std::string_view sql, const SqlLimits& limits) {
  std::vector<SqlResult> results;
  // SQLite ends a statement at a zero byte, and would stop there for ever.
  if (const size_t zero = sql.find('\0'); zero != std::string_view::npos) {
    return Error("the SQL has a zero byte at offset " + std::to_string(zero));
  }
  const char* at = sql.data();
  const char* end = sql.data() + sql.size();
  while (at < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    const int rc = sqlite3_prepare_v3(db_, at, static_cast<int>(end - at), 0, &stmt, &tail);
    const std::string_view text =
        trimmed(std::string_view(at, static_cast<size_t>((tail ? tail : end) - at)));
    if (rc != SQLITE_OK) {
      std::string why = sqlite3_errmsg(db_);
      if (sqlite3_extended_errcode(db_) == SQLITE_AUTH) {
        why =
            "not allowed: goheap's SQL only reads the heap (SELECT, WITH, EXPLAIN); it does "
            "not write, attach files or change settings";
      } else if (why == "no query solution") {
        why =
            "paths(), subtree() and dominators() need their first argument, the node, as a "
            "value known before they run (a number, object_at(ADDRESS), a column of a table "
            "before them in FROM, or a subquery of other tables): paths(ID), subtree(ID), "
            "dominators(ID), where ID is objects.id or a root's node";
      } else if (int offset = sqlite3_error_offset(db_); offset >= 0) {
        why += " at character " + std::to_string(offset - (text.data() - at) + 1);
      }
      sqlite3_finalize(stmt);
      return statementError(text, "SQL error: " + why);
    }
    const char* next = tail ? tail : end;
    if (next <= at) next = end;  // no progress: nothing more SQLite can read
    at = next;
    if (stmt == nullptr) continue;  // only white space or a comment
    if (!sqlite3_stmt_readonly(stmt)) {
      sqlite3_finalize(stmt);
      return statementError(text,
                            "not allowed: goheap's SQL only reads the heap (SELECT, WITH, "
                            "EXPLAIN); it does not write, attach files or change settings");
    }
    Expected<SqlResult> r = step(stmt, text, limits);
    sqlite3_finalize(stmt);
    if (!r) return r.error();
    results.push_back(r.take());
  }
  return results;
}

Expected<SqlResult> HeapDatabase::step(sqlite3_stmt* stmt, std::string_view text,
                                       const SqlLimits& limits) {
  SqlResult r;
  r.sql = std::string(text);
  const int columns = sqlite3_column_count(stmt);
  for (int c = 0; c < columns; c++) r.columns.emplace_back(sqlite3_column_name(stmt, c));
  const auto started = std::chrono::steady_clock::now();
  has_deadline_ = limits.seconds > 0;
  timed_out_ = false;
  cancelled_ = limits.cancelled;
  was_cancelled_ = false;
  if (has_deadline_) {
    deadline_ = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limits.seconds));
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    if (limits.max_rows != 0 && r.rows.size() >= limits.max_rows) {
      r.truncated = true;
      break;
    }
    std::vector<Value>& row = r.rows.emplace_back();
    row.reserve(static_cast<size_t>(columns));
    for (int c = 0; c < columns; c++) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(stmt, c));
          break;
        case SQLITE_TEXT:
          row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, c)),
                                       static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
          break;
        case SQLITE_BLOB: {
          const void* p = sqlite3_column_blob(stmt, c);
          const size_t n = static_cast<size_t>(sqlite3_column_bytes(stmt, c));
          row.emplace_back(Blob{p ? std::string(static_cast<const char*>(p), n) : std::string()});
          break;
        }
        default:
          row.emplace_back(std::monostate{});
      }
    }
  }
  has_deadline_ = false;
  cancelled_ = nullptr;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    if (timed_out_) {
      return statementError(text, "the query was stopped after " + formatDuration(limits.seconds) +
                                      ", its time limit");
    }
    if (was_cancelled_) return statementError(text, "the query was cancelled");
    if ((rc & 0xff) == SQLITE_NOMEM && sqlite3_hard_heap_limit64(-1) > 0) {
      return statementError(text,
                            "the query needed more memory than SQL may use here (" +
                                formatBytes(static_cast<uint64_t>(sqlite3_hard_heap_limit64(-1))) +
                                "); ask for fewer rows, or group before sorting");
    }
    return statementError(text, std::string("SQL error: ") + sqlite3_errmsg(db_));
  }
  return r;
}

}  // namespace goheap::sql
