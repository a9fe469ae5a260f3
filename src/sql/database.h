// An SQLite connection whose tables are a heap's (tables.h), and the rules
// every query runs under: read-only (no statement that writes, no ATTACH,
// no PRAGMA that changes anything, no extension), a time limit enforced by
// SQLite's progress handler, and a row limit. `goheap sql`, /api/sql and
// `goheap report --sql` all run their SQL through here.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sql/heap_indexes.h"
#include "sql/tables.h"
#include "util/error.h"

namespace goheap::sql {

struct SqlLimits {
  uint64_t max_rows = 0;  // rows kept per statement; 0: all
  double seconds = 0;     // per statement; 0: none
  // Set by another thread to stop the running statement (an MCP client's
  // cancellation); null: never.
  const std::atomic<bool>* cancelled = nullptr;
};

struct SqlResult {
  std::string sql;  // the statement, as written
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
  bool truncated = false;  // more rows than SqlLimits::max_rows
  double seconds = 0;
};

// The most SQLite may allocate in this process, for every connection
// together (sorts, GROUP BY and DISTINCT tables, temporary results); 0 for
// no limit. Beyond it a statement fails with an error that says so, rather
// than the process growing until the machine runs out: goheap serve sets it.
void limitSqlMemory(uint64_t bytes);

class HeapDatabase {
 public:
  // A connection over `current` (schema main) and, when given, `base`
  // (schema old). Both must outlive it.
  static Expected<std::unique_ptr<HeapDatabase>> open(const SqlHeap& current,
                                                      const SqlHeap* base = nullptr);
  ~HeapDatabase();
  HeapDatabase(const HeapDatabase&) = delete;
  HeapDatabase& operator=(const HeapDatabase&) = delete;

  // Runs each statement of `sql` (separated by ';') in turn. The first that
  // fails ends the run: its Error says which statement, and why.
  Expected<std::vector<SqlResult>> run(std::string_view sql, const SqlLimits& limits = {});

  // Rows the heap's tables visited since the connection was opened.
  uint64_t rowsVisited() const { return counter_.rows; }
  sqlite3* handle() const { return db_; }

 private:
  HeapDatabase() = default;
  Expected<SqlResult> step(sqlite3_stmt* stmt, std::string_view text, const SqlLimits& limits);

  sqlite3* db_ = nullptr;
  ScanCounter counter_;
  const SqlHeap* current_ = nullptr;
  const SqlHeap* base_ = nullptr;
  // The running statement's deadline, for the progress handler.
  std::chrono::steady_clock::time_point deadline_{};
  bool has_deadline_ = false;
  bool timed_out_ = false;
  const std::atomic<bool>* cancelled_ = nullptr;
  bool was_cancelled_ = false;
  static int onProgress(void* self);
};

}  // namespace goheap::sql
