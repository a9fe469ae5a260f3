// SQLite virtual tables as small C++ classes. A Table says its schema and
// how it can be searched (plan(), SQLite's xBestIndex), and opens Cursors
// that walk the rows a plan selects (xFilter, xNext, xColumn). The C glue
// between sqlite3_module and these classes is virtual_table.cpp's, so each
// table (tables.cpp) is only what it reads from the heap.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sql/schema.h"
#include "util/error.h"

namespace goheap::sql {

// What xFilter is asked for: the plan plan() chose (idxNum) and the values
// of the constraints it asked for, in the order it numbered them.
struct ScanRequest {
  int plan = 0;
  std::span<sqlite3_value* const> args;
};

class Cursor {
 public:
  virtual ~Cursor() = default;
  // Starts a scan as `request` says; an Error becomes the query's error.
  virtual Status filter(const ScanRequest& request) = 0;
  virtual void next() = 0;
  virtual bool eof() const = 0;
  virtual void column(sqlite3_context* ctx, int column) = 0;
  virtual int64_t rowid() const = 0;
};

class Table {
 public:
  virtual ~Table() = default;
  // Its columns, as schema.h declares them.
  virtual const TableSchema& schema() const = 0;
  // Chooses how to answer a query's constraints (SQLite's xBestIndex):
  // SQLITE_OK, or SQLITE_CONSTRAINT when the constraints given cannot be
  // answered (a table-valued function called without its argument).
  virtual int plan(sqlite3_index_info& info) const = 0;
  virtual std::unique_ptr<Cursor> open() const = 0;
};

// Makes the Table for CREATE VIRTUAL TABLE schema.name USING module (or, for
// a table-valued function, for its name): `schema` is "main" or "old".
using TableFactory = std::function<Expected<std::unique_ptr<Table>>(std::string_view schema)>;

// Registers `module` with `db`. An eponymous module is a table-valued
// function (SELECT * FROM paths(42)), usable without CREATE VIRTUAL TABLE.
Status registerModule(sqlite3* db, const std::string& module, TableFactory make, bool eponymous);

// ---- planning helpers ----

// An equality lookup a table can do on `column`, about `rows` rows each.
struct Lookup {
  int column;
  double rows;
};
// Chooses the cheapest of `lookups` that has a usable equality constraint:
// idxNum becomes its index in `lookups` plus one and the constraint's value
// the scan's first argument. Without one, a full scan of `full_rows` (idxNum
// 0). Returns the lookup's index, or -1 for the full scan.
int planLookup(sqlite3_index_info& info, std::span<const Lookup> lookups, double full_rows);

// The usable equality constraint on `column`, or -1.
int equalityConstraint(const sqlite3_index_info& info, int column);

// ---- values ----

// Results as SQLite takes them. Text and blobs are copied unless `stable`
// says they outlive the statement (SQLITE_STATIC).
inline void resultInt(sqlite3_context* ctx, uint64_t v) {
  sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(v));
}
inline void resultText(sqlite3_context* ctx, std::string_view s, bool stable = false) {
  sqlite3_result_text64(ctx, s.data(), s.size(), stable ? SQLITE_STATIC : SQLITE_TRANSIENT,
                        SQLITE_UTF8);
}
inline void resultBlob(sqlite3_context* ctx, const uint8_t* p, uint64_t n, bool stable = false) {
  sqlite3_result_blob64(ctx, p, n, stable ? SQLITE_STATIC : SQLITE_TRANSIENT);
}

// A value as a non-negative integer (ids, addresses, offsets); a text such
// as '0xc000123450' is read as a number too. Nothing for NULL, negatives and
// other text.
std::optional<uint64_t> unsignedArg(sqlite3_value* v);
// A value as text (what a type or site name is compared with).
std::string_view textArg(sqlite3_value* v);

}  // namespace goheap::sql
