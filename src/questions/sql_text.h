// How an SQL result is shown as text: /api/sql's and the MCP's text, and
// `goheap sql`, which prints each statement's result as it ends.
#pragma once

#include <cstddef>
#include <string>

#include "sql/database.h"

namespace goheap::questions {

// One statement's rows as a table, with its statement above when `many`.
std::string sqlResultText(const sql::SqlResult& r, bool many, size_t width);
// As CSV, after a blank line unless `first`.
std::string sqlResultCsv(const sql::SqlResult& r, bool first);

}  // namespace goheap::questions
