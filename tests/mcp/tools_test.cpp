// The MCP tools against the question table they are made from: each tool's
// inputSchema lists exactly its question's ParamSpecs, with the type, enum
// and default each ParamSpec gives, and a call's arguments reach the
// question's read function as the command line's flags would.
#include <gtest/gtest.h>

#include <set>

#include "mcp/tools.h"
#include "questions/catalog.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using mcp::HeapChoice;
using query::ParamKind;
using questions::Question;

testing::JsonValue schemaOf(const Question& q, HeapChoice heaps) {
  std::string out;
  JsonWriter w(out);
  mcp::writeTool(w, q, heaps);
  return testing::JsonValue::parse(out);
}

TEST(McpTools, AreTheCommandLinesQuestions) {
  std::vector<std::string> names;
  for (const Question* q : mcp::toolQuestions()) names.emplace_back(q->name);
  const std::vector<std::string> expected = {"summary", "top",        "dom",      "paths",
                                             "obj",     "goroutines", "suspects", "diff",
                                             "dups",    "waste",      "sql",      "memory"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(mcp::findTool("flame"), nullptr);  // the web UI's own
  EXPECT_EQ(mcp::findTool("search"), nullptr);
}

// Each property is a ParamSpec (or source, executable, base), each
// ParamSpec a property, with its kind's type, its choices and its default.
TEST(McpTools, SchemasListExactlyTheParamSpecs) {
  for (const HeapChoice heaps : {HeapChoice::FromArguments, HeapChoice::Served}) {
    for (const Question* q : mcp::toolQuestions()) {
      SCOPED_TRACE(std::string(q->name));
      const testing::JsonValue tool = schemaOf(*q, heaps);
      EXPECT_EQ(tool["name"].str(), q->name);
      const testing::JsonValue& schema = tool["inputSchema"];
      EXPECT_EQ(schema["type"].str(), "object");
      EXPECT_FALSE(schema["additionalProperties"].boolean());
      std::set<std::string> properties;
      for (const auto& [name, value] : schema["properties"].members()) properties.insert(name);
      std::set<std::string> expected;
      if (heaps == HeapChoice::FromArguments) {
        expected = {"source", "executable"};
        if (q->heaps != questions::HeapsNeeded::One) expected.insert("base");
      }
      std::set<std::string> required;
      for (const testing::JsonValue& r : schema["required"].items()) required.insert(r.str());
      for (const query::ParamSpec& p : q->params) {
        const std::string name = mcp::toolParamName(p);
        expected.insert(name);
        const testing::JsonValue& prop = schema["properties"][name];
        EXPECT_FALSE(prop["description"].str().empty()) << name;
        EXPECT_EQ(required.count(name) == 1, p.required) << name;
        switch (p.kind) {
          case ParamKind::Text:
            EXPECT_EQ(prop["type"].str(), "string") << name;
            break;
          case ParamKind::Choice: {
            EXPECT_EQ(prop["type"].str(), "string") << name;
            std::vector<std::string> choices;
            for (const testing::JsonValue& c : prop["enum"].items()) choices.push_back(c.str());
            EXPECT_EQ(choices, std::vector<std::string>(p.choices.begin(), p.choices.end()));
            EXPECT_EQ(prop["default"].str(), p.fallback) << name;
            break;
          }
          case ParamKind::Uint:
            EXPECT_EQ(prop["type"].str(), "integer") << name;
            if (!p.fallback.empty()) {
              EXPECT_EQ(std::to_string(prop["default"].u64()), p.fallback) << name;
            }
            break;
          case ParamKind::Flag:
            EXPECT_EQ(prop["type"].str(), "boolean") << name;
            EXPECT_EQ(prop["default"].boolean(), p.fallback == "true") << name;
            break;
          case ParamKind::Percent:
            EXPECT_EQ(prop["type"].str(), "number") << name;
            EXPECT_DOUBLE_EQ(prop["default"].number(), std::stod(std::string(p.fallback)));
            break;
          case ParamKind::ByteSize:
          case ParamKind::Address:
            EXPECT_EQ(prop["type"].items().size(), 2u) << name;
            break;
        }
      }
      EXPECT_EQ(properties, expected);
      EXPECT_EQ(required.count("source") == 1, heaps == HeapChoice::FromArguments);
    }
  }
}

TEST(McpTools, NamesAreTheCommandLinesLongFlags) {
  const Question& dom = *mcp::findTool("dom");
  std::set<std::string> names;
  for (const query::ParamSpec& p : dom.params) names.insert(mcp::toolParamName(p));
  EXPECT_TRUE(names.count("min-bytes"));  // --min-bytes
  EXPECT_TRUE(names.count("from-node"));  // --from-node
  const Question& goroutines = *mcp::findTool("goroutines");
  names.clear();
  for (const query::ParamSpec& p : goroutines.params) names.insert(mcp::toolParamName(p));
  EXPECT_TRUE(names.count("frames"));  // --no-frames, said positively
  EXPECT_TRUE(names.count("leaked"));
  const Question& paths = *mcp::findTool("paths");
  names.clear();
  for (const query::ParamSpec& p : paths.params) names.insert(mcp::toolParamName(p));
  EXPECT_TRUE(names.count("addr"));  // the positional ADDR
  const Question& sql = *mcp::findTool("sql");
  names.clear();
  for (const query::ParamSpec& p : sql.params) names.insert(mcp::toolParamName(p));
  EXPECT_EQ(names, (std::set<std::string>{"query", "limit"}));
}

Expected<mcp::ToolArguments> read(std::string_view tool, std::string_view json) {
  Expected<JsonNode> node = readJson(json);
  if (!node) return node.error();
  return mcp::readToolArguments(*mcp::findTool(tool), &*node, HeapChoice::FromArguments);
}

TEST(McpTools, ArgumentsReachTheQuestionAsFlagsWould) {
  auto args = read("top", R"({"source":"a.dump","executable":"a","limit":3,"by":"site"})");
  ASSERT_TRUE(args) << args.error().message();
  EXPECT_EQ(args->source, "a.dump");
  EXPECT_EQ(args->executable, "a");
  ASSERT_NE(args->values.given("limit"), nullptr);
  EXPECT_EQ(*args->values.given("limit"), "3");
  EXPECT_TRUE(mcp::findTool("top")->read(args->values));

  auto flags = read("goroutines", R"({"source":"a","frames":false,"leaked":true})");
  ASSERT_TRUE(flags) << flags.error().message();
  EXPECT_EQ(*flags->values.given("frames"), "false");
  EXPECT_EQ(*flags->values.given("leaked"), "true");

  // Sizes and addresses as text, as on the command line.
  auto sizes = read("dom", R"({"source":"a","min-bytes":"1M"})");
  ASSERT_TRUE(sizes);
  EXPECT_TRUE(mcp::findTool("dom")->read(sizes->values));
  auto nulls = read("top", R"({"source":"a","filter":null})");
  ASSERT_TRUE(nulls);
  EXPECT_EQ(nulls->values.given("filter"), nullptr);
}

TEST(McpTools, MistakesNameTheParameter) {
  auto unknown = read("top", R"({"source":"a","colour":"red"})");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().parameter(), "colour");
  EXPECT_NE(unknown.error().message().find("takes: source, executable, "), std::string::npos)
      << unknown.error().message();
  auto type = read("top", R"({"source":"a","limit":"many"})");
  ASSERT_TRUE(type);  // text is taken, and the question's read refuses it
  auto refused = mcp::findTool("top")->read(type->values);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("limit"), std::string::npos);
  EXPECT_FALSE(read("top", R"({"source":"a","limit":-1})"));
  EXPECT_FALSE(read("top", R"({"source":"a","limit":true})"));
  EXPECT_FALSE(read("top", R"({"source":"a","limit":[1]})"));
  EXPECT_FALSE(read("top", R"({"limit":1})"));  // no source
  auto no_base = read("diff", R"({"source":"a"})");
  ASSERT_FALSE(no_base);
  EXPECT_EQ(no_base.error().parameter(), "base");
  EXPECT_FALSE(read("top", R"([1])"));
  // Mistakes are spelled as the tool names them.
  auto sql = read("sql", R"({"source":"a","query":" ; "})");
  ASSERT_TRUE(sql);
  auto empty = mcp::findTool("sql")->read(sql->values);
  ASSERT_FALSE(empty);
  EXPECT_TRUE(empty.error().message().starts_with("query holds no statement"))
      << empty.error().message();
}

}  // namespace
}  // namespace goheap
