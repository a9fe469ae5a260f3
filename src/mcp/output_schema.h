// The JSON Schema of a tool's structuredContent, made from the one
// description of goheap's JSON answers: docs/cli-json.md (compiled into the
// binary). Each command's section has a table of fields, one row per field
// path ("rows[].name", "objects.reachable_count"), its type ("integer",
// "string, optional", "label", "array of strings", "object or `null`") and
// its meaning; the schema says what the table says: each field's type, and
// which are always there. Fields the table does not list are allowed (the
// JSON only ever gains fields, docs/cli-json.md "Stability"). The tests
// check every answer of the test dumps against the schemas, so a table that
// drifts from the code fails them, and a client that validates what a tool
// returns (the TypeScript SDK does) can trust it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/error.h"

namespace goheap::mcp {

// The schema (dialect 2020-12) of the answer of `section` ("top") as the
// markdown `doc` describes it: the fields of the tables under "## top",
// labels as its "## Node labels" table. An Error when the section is not
// there or a row cannot be read (its line named).
Expected<std::string> outputSchemaFromDoc(std::string_view doc, std::string_view section);

// The same from docs/cli-json.md as compiled in; nothing for a tool whose
// answer it does not describe.
std::optional<std::string> outputSchema(std::string_view tool);

}  // namespace goheap::mcp
