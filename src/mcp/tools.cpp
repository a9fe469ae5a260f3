#include "mcp/tools.h"

#include <algorithm>
#include <cctype>

#include "mcp/output_schema.h"
#include "questions/catalog.h"
#include "util/format.h"

namespace goheap::mcp {

namespace {

using query::ParamKind;
using query::ParamSpec;
using questions::HeapsNeeded;
using questions::Question;

constexpr std::string_view kSourceHelp =
    "The heap to read: the path of a heap dump (runtime/debug.WriteHeapDump) or of an ELF core "
    "file; an http:// URL that serves one (the capture package's /debug/heapdump, on loopback "
    "or a prefix the server allows with --allow-url); or pid:PID to snap a running process "
    "(when the server was started with --allow-pid). Paths must be under the client's roots or "
    "an --allow-dir folder. An opened heap stays open: the next question about it answers at "
    "once.";
constexpr std::string_view kExecutableHelp =
    "The program's executable, the build that wrote the heap: Go types, named globals and "
    "frames. Optional for a dump; a core's is found through the core when left out.";
constexpr std::string_view kBaseHelp =
    "An earlier heap of the same program (same executable), as `source` is given: the baseline "
    "to compare with.";
constexpr std::string_view kSqlBaseHelp =
    "An earlier heap of the same program, as `source` is given: its tables are the schema "
    "`old` (old.objects, ...).";

// The value a default is written as, in the schema's type for `p`.
void writeDefault(JsonWriter& w, const ParamSpec& p) {
  if (p.fallback.empty()) return;
  switch (p.kind) {
    case ParamKind::Uint:
    case ParamKind::ByteSize:
    case ParamKind::Address:
      if (Expected<uint64_t> n = parseUint(p.fallback)) {
        w.field("default", *n);
        return;
      }
      break;
    case ParamKind::Percent:
      if (Expected<double> v = query::parsePercent(p.fallback)) {
        w.field("default", *v);
        return;
      }
      break;
    case ParamKind::Flag:
      w.field("default", p.fallback == "true");
      return;
    case ParamKind::Text:
    case ParamKind::Choice:
      break;
  }
  w.field("default", p.fallback);
}

std::string describeParam(const ParamSpec& p) {
  std::string text(p.help);
  // The command line's help of --no-frames says what the switch does; the
  // tool's parameter is the positive one.
  if (query::cliNegated(p)) text = "false: " + text + " (the --" + query::cliName(p) + " switch)";
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  switch (p.kind) {
    case ParamKind::ByteSize:
      text += ". A byte count, or a size like \"64K\" or \"1.5MB\"";
      break;
    case ParamKind::Address:
      text += ". An address as Go prints it (\"0xc000123456\") or a decimal number";
      break;
    case ParamKind::Percent:
      text += ". Percent of the heap, above 0 and at most 100";
      break;
    default:
      break;
  }
  return text + ".";
}

void writeParamSchema(JsonWriter& w, const ParamSpec& p) {
  w.beginObject();
  switch (p.kind) {
    case ParamKind::Text:
    case ParamKind::Choice:
      w.field("type", "string");
      break;
    case ParamKind::Uint:
      w.field("type", "integer").field("minimum", 0);
      break;
    case ParamKind::ByteSize:
    case ParamKind::Address:
      // A number, or text as the command line takes it ("64K", "0xc000...").
      w.key("type").beginArray().value("integer").value("string").endArray();
      break;
    case ParamKind::Percent:
      w.field("type", "number").field("exclusiveMinimum", 0).field("maximum", 100);
      break;
    case ParamKind::Flag:
      w.field("type", "boolean");
      break;
  }
  if (p.kind == ParamKind::Choice) {
    w.key("enum").beginArray();
    for (std::string_view c : p.choices) w.value(c);
    w.endArray();
  }
  writeDefault(w, p);
  w.field("description", describeParam(p));
  w.endObject();
}

void writeInputSchema(JsonWriter& w, const Question& q, HeapChoice heaps) {
  w.beginObject().field("type", "object").key("properties").beginObject();
  std::vector<std::string> required;
  if (heaps == HeapChoice::FromArguments) {
    w.key("source").beginObject().field("type", "string").field("description", kSourceHelp);
    w.endObject();
    required.emplace_back("source");
    w.key("executable").beginObject().field("type", "string").field("description", kExecutableHelp);
    w.endObject();
    if (takesBase(q)) {
      w.key("base").beginObject().field("type", "string");
      w.field("description", needsBase(q) ? kBaseHelp : kSqlBaseHelp).endObject();
      if (needsBase(q)) required.emplace_back("base");
    }
  }
  for (const ParamSpec& p : q.params) {
    w.key(toolParamName(p));
    writeParamSchema(w, p);
    if (p.required) required.push_back(toolParamName(p));
  }
  w.endObject();
  w.key("required").beginArray();
  for (const std::string& r : required) w.value(r);
  w.endArray();
  w.field("additionalProperties", false).endObject();
}

// A JSON value as the text the command line would have been given, or why
// it cannot be one.
Expected<std::string> argumentText(const ParamSpec& p, const JsonNode& v) {
  switch (v.kind()) {
    case JsonNode::Kind::String:
      return v.string();
    case JsonNode::Kind::Number:
      if (p.kind == ParamKind::Percent) return v.numberText();
      if (p.kind == ParamKind::Uint || p.kind == ParamKind::ByteSize ||
          p.kind == ParamKind::Address) {
        if (v.integer() && *v.integer() >= 0) return std::to_string(*v.integer());
        return Error("must be a whole number of at least 0, not " + v.numberText());
      }
      break;
    case JsonNode::Kind::Bool:
      if (p.kind == ParamKind::Flag) return std::string(v.boolean() ? "true" : "false");
      break;
    default:
      break;
  }
  const std::string_view want = p.kind == ParamKind::Flag      ? "true or false"
                                : p.kind == ParamKind::Uint    ? "a whole number"
                                : p.kind == ParamKind::Percent ? "a number"
                                : p.kind == ParamKind::Text || p.kind == ParamKind::Choice
                                    ? "a string"
                                    : "a number or a string";
  return Error("must be " + std::string(want));
}

std::string paramList(const Question& q, HeapChoice heaps) {
  std::string list = heaps == HeapChoice::FromArguments ? "source, executable" : "";
  if (heaps == HeapChoice::FromArguments && takesBase(q)) list += ", base";
  for (const ParamSpec& p : q.params) list += (list.empty() ? "" : ", ") + toolParamName(p);
  return list.empty() ? "none" : list;
}

}  // namespace

std::vector<const Question*> toolQuestions() {
  std::vector<const Question*> tools;
  for (const Question* q : questions::allQuestions()) {
    if (q->command_line) tools.push_back(q);
  }
  return tools;
}

const Question* findTool(std::string_view name) {
  const Question* q = questions::findQuestion(name);
  return q != nullptr && q->command_line ? q : nullptr;
}

std::string toolParamName(const ParamSpec& p) {
  if (query::isPositional(p) || query::cliNegated(p)) {
    std::string name(p.name);
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
  }
  return query::cliName(p);
}

bool takesBase(const Question& q) {
  return q.heaps != HeapsNeeded::One;
}

bool needsBase(const Question& q) {
  return q.heaps == HeapsNeeded::OldAndNew;
}

void writeTool(JsonWriter& w, const Question& q, HeapChoice heaps) {
  w.beginObject().field("name", q.name);
  std::string description(q.summary);
  if (!description.empty()) {
    description[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(description[0])));
  }
  description += ".\n\n" + std::string(q.description);
  if (heaps == HeapChoice::Served) {
    description += "\n\nAnswers about the heap this server has open";
    description += needsBase(q) ? " and its base (goheap serve --base OLD)." : ".";
  }
  w.field("title", "goheap " + std::string(q.name)).field("description", description);
  w.key("inputSchema");
  writeInputSchema(w, q, heaps);
  // structuredContent is the --json document, as docs/cli-json.md has it.
  if (std::optional<std::string> schema = outputSchema(q.name)) {
    w.key("outputSchema").rawValue(*schema);
  }
  // Every tool only reads: the heap, never the world.
  w.key("annotations")
      .beginObject()
      .field("readOnlyHint", true)
      .field("destructiveHint", false)
      .field("idempotentHint", true)
      .field("openWorldHint", false)
      .endObject();
  w.endObject();
}

Expected<ToolArguments> readToolArguments(const Question& q, const JsonNode* arguments,
                                          HeapChoice heaps) {
  ToolArguments out{{}, {}, {}, query::ParamValues(q.params, toolParamName)};
  if (arguments == nullptr || arguments->isNull()) arguments = nullptr;
  if (arguments != nullptr && !arguments->isObject()) {
    return Error::needsInput("the arguments must be a JSON object");
  }
  const auto bad = [&](const std::string& name, const std::string& why) {
    return Error::needsInput("bad value for " + name + ": " + why).atParameter(name);
  };
  if (arguments != nullptr) {
    for (const auto& [name, value] : arguments->object()) {
      if (value.isNull()) continue;  // as if left out
      std::string* heap_argument = nullptr;
      if (heaps == HeapChoice::FromArguments) {
        if (name == "source") heap_argument = &out.source;
        if (name == "executable") heap_argument = &out.executable;
        if (name == "base" && takesBase(q)) heap_argument = &out.base;
      }
      if (heap_argument != nullptr) {
        if (!value.isString()) return bad(name, "must be a string");
        *heap_argument = value.string();
        continue;
      }
      const ParamSpec* spec = nullptr;
      for (const ParamSpec& p : q.params) {
        if (toolParamName(p) == name) spec = &p;
      }
      if (spec == nullptr) {
        return Error::needsInput("unknown parameter \"" + name + "\" (the " + std::string(q.name) +
                                 " tool takes: " + paramList(q, heaps) + ")")
            .atParameter(name);
      }
      Expected<std::string> text = argumentText(*spec, value);
      if (!text) return bad(name, text.error().message());
      out.values.set(*spec, text.take());
    }
  }
  if (heaps == HeapChoice::FromArguments) {
    if (out.source.empty()) {
      return Error::needsInput(
                 "missing parameter \"source\": the heap dump's or core's path, an http:// URL, "
                 "or pid:PID")
          .atParameter("source");
    }
    if (needsBase(q) && out.base.empty()) {
      return Error::needsInput("missing parameter \"base\": the earlier heap to compare with")
          .atParameter("base");
    }
  }
  return out;
}

}  // namespace goheap::mcp
