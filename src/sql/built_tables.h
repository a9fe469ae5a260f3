// The small tables, built once per heap as rows (SqlHeap::rows): roots,
// goroutines, frames, globals, types and sites. Each has its schema
// (schema.h: its columns, and those it can be searched on) and the function
// that builds its rows, one cell per column in the schema's order.
#pragma once

#include <vector>

#include "sql/heap_indexes.h"
#include "sql/schema.h"

namespace goheap::sql {

struct BuiltTableSpec {
  const TableSchema& schema;
  std::vector<int> indexed;  // its Indexed columns (indexedColumns)
  BuiltRows (*build)(const SqlHeap& heap);
};
const BuiltTableSpec& builtTableSpec(BuiltTable table);

}  // namespace goheap::sql
