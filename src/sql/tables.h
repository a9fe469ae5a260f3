// The SQL tables over one heap (docs/sql.md has the schema): objects, refs,
// fields and strings read the Snapshot's columns as they are asked for; the
// small tables come from SqlHeap's built rows; paths(), subtree() and
// dominators() are table-valued functions. None copies the heap.
#pragma once

#include <sqlite3.h>

#include <functional>
#include <string>
#include <string_view>

#include "sql/heap_indexes.h"
#include "util/error.h"

namespace goheap::sql {

// The heap a table in `schema` ("main", or "old" with --base) reads; null
// for a schema without one.
using HeapForSchema = std::function<const SqlHeap*(std::string_view schema)>;

// Rows the virtual tables visited on one connection: how a test tells a
// lookup from a scan.
struct ScanCounter {
  uint64_t rows = 0;
};

// Registers every table's module and the scalar functions with `db`. The
// tables count the rows they visit in `counter`, which outlives `db`.
Status registerHeapModules(sqlite3* db, HeapForSchema heaps, ScanCounter& counter);

// The names of the tables created in each schema, in documentation order
// (CREATE VIRTUAL TABLE schema.NAME USING goheap_NAME).
std::vector<std::string> heapTableNames();

}  // namespace goheap::sql
