// A JSON Schema checker for the subset goheap's output schemas use (type,
// properties, required, items): the tests' validator of the answers against
// the schemas made from docs/cli-json.md (mcp/output_schema.h).
#pragma once

#include <string>
#include <vector>

#include "support/json_value.h"

namespace goheap::testing {

// What in `value` the schema does not allow, each with its path
// ("rows[3].name: is a string, want integer"); empty when it matches.
std::vector<std::string> schemaProblems(const JsonValue& value, const JsonValue& schema,
                                        const std::string& path = "$");

}  // namespace goheap::testing
