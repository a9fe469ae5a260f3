// The MCP server's tools, made from the one question table
// (questions/catalog.h): every question of the command line is a tool of the
// same name, its inputSchema written from the question's ParamSpecs, and a
// call's arguments read back into the ParamValues the question's own read
// function checks. So a tool takes what `goheap NAME` takes, and a mistake
// gets the command's message, with nothing special-cased per tool.
//
// A tool parameter is named as the command line's long flag ("min-bytes",
// "by", "limit"), with two exceptions a JSON object asks for: a positional
// argument takes its API name ("addr" for ADDR), and a switch the command
// line spells negatively (--no-frames) takes the positive name ("frames",
// true by default). An API-only parameter takes the name its ParamSpec gives
// the command line (sql's statement is "query").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/params.h"
#include "questions/question.h"
#include "util/error.h"
#include "util/json_reader.h"
#include "util/json_writer.h"

namespace goheap::mcp {

// Where a tool's heaps come from.
enum class HeapChoice : uint8_t {
  // `goheap mcp`: each call names its heap (`source`, `executable`, and
  // `base` for the questions that compare two heaps).
  FromArguments,
  // /mcp of `goheap serve`: the heap (and base) the server has open.
  Served,
};

// The questions offered as tools, in the table's order: those the command
// line offers (the web UI's own endpoints, flame and search, are not).
std::vector<const questions::Question*> toolQuestions();
// The tool that answers `name`, else null.
const questions::Question* findTool(std::string_view name);

// How a tool's arguments name `p` (see above).
std::string toolParamName(const query::ParamSpec& p);

// The tools/list entry of `q`: name, title, description, inputSchema (a JSON
// Schema object, dialect 2020-12, the protocol's default), outputSchema
// (output_schema.h; where docs/cli-json.md describes the answer) and
// annotations.
void writeTool(JsonWriter& w, const questions::Question& q, HeapChoice heaps);

// A tool call's arguments, read.
struct ToolArguments {
  std::string source;      // a heap dump's or core's path, an http:// URL, or "pid:PID"
  std::string executable;  // may be empty
  std::string base;        // OLD, for diff (and sql's `old` schema); may be empty
  query::ParamValues values;
};

// Reads `arguments` (a JSON object, or null for none) for the tool `q`:
// each member must be one of its parameters, of the type its schema gives
// (a string is taken for any, as the command line takes text). A mistake is
// an Error::needsInput naming the parameter.
Expected<ToolArguments> readToolArguments(const questions::Question& q, const JsonNode* arguments,
                                          HeapChoice heaps);

// Whether the tool `q` takes a base heap, and whether it must be given.
bool takesBase(const questions::Question& q);
bool needsBase(const questions::Question& q);

}  // namespace goheap::mcp
