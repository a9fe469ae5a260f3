// The small tables, built once per heap as rows (SqlHeap::rows): roots,
// goroutines, frames, globals, types and sites. Each has its columns, the
// columns it can be searched on, and the function that builds its rows.
#pragma once

#include <vector>

#include "sql/heap_indexes.h"
#include "sql/virtual_table.h"

namespace goheap::sql {

struct BuiltTableSpec {
  const char* name;  // the SQL table's name
  std::vector<ColumnDef> columns;
  std::vector<int> indexed;  // columns an equality lookup reads an index for
  BuiltRows (*build)(const SqlHeap& heap);
};
const BuiltTableSpec& builtTableSpec(BuiltTable table);

}  // namespace goheap::sql
