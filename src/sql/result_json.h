// A query's results as JSON: the document of `goheap sql --json`, of
// /api/sql and of the "sql" section of `goheap report`'s JSON (docs/sql.md).
#pragma once

#include <string>
#include <vector>

#include "sql/database.h"
#include "util/json_writer.h"

namespace goheap::sql {

// {"sql", "columns", "rows", "row_count", "truncated", "seconds"}. A blob
// is written as SQL writes a blob literal, "x'68656c6c6f'"; text as a JSON
// string (bytes that are not UTF-8 replaced).
void writeResultJson(JsonWriter& w, const SqlResult& r);

// One cell as text, for tables and CSV: NULL as `null_text`; a blob as
// x'…' hex.
std::string cellText(const Value& v, std::string_view null_text);

}  // namespace goheap::sql
