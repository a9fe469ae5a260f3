// util/json_reader.h: what it reads, what it refuses (with the byte offset),
// and, as its oracle, every JSON document goheap's golden files hold, read
// back to the same values the tests' own independent reader
// (support/json_value.h) finds.
#include "util/json_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/json_value.h"
#include "util/json_writer.h"

namespace goheap {
namespace {

JsonNode read(std::string_view text) {
  Expected<JsonNode> v = readJson(text);
  EXPECT_TRUE(v) << text << ": " << v.error().message();
  return v ? v.take() : JsonNode{};
}

std::string refusal(std::string_view text) {
  Expected<JsonNode> v = readJson(text);
  EXPECT_FALSE(v) << text << " was read";
  return v ? "" : v.error().message();
}

TEST(JsonReader, ReadsEveryKindOfValue) {
  const JsonNode v = read(
      R"( {"a": [1, -2.5, 1e3, 0, true, false, null], "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00",
           "o": {}, "e": []} )");
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.object().size(), 4u);
  const JsonNode& a = *v.find("a");
  ASSERT_EQ(a.array().size(), 7u);
  EXPECT_EQ(a.array()[0].integer(), 1);
  EXPECT_EQ(a.array()[1].number(), -2.5);
  EXPECT_FALSE(a.array()[1].integer());
  EXPECT_EQ(a.array()[2].integer(), 1000);
  EXPECT_EQ(a.array()[2].numberText(), "1e3");
  EXPECT_TRUE(a.array()[4].boolean());
  EXPECT_FALSE(a.array()[5].boolean());
  EXPECT_TRUE(a.array()[6].isNull());
  EXPECT_EQ(v.find("s")->string(), "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(v.find("o")->isObject());
  EXPECT_TRUE(v.find("e")->array().empty());
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(read("-9223372036854775808").integer(), INT64_MIN);
  EXPECT_FALSE(read("9223372036854775808").integer());
}

TEST(JsonReader, RefusesWithTheByteOffset) {
  EXPECT_EQ(refusal(""), "at byte offset 0 (JSON): a value is missing");
  EXPECT_EQ(refusal("[1, 2"), "at byte offset 5 (JSON): ',' or ']' expected in an array");
  EXPECT_EQ(refusal("{\"a\": 1, \"a\": 2}"), "at byte offset 9 (JSON): duplicate key");
  EXPECT_EQ(refusal("[01]"), "at byte offset 2 (JSON): ',' or ']' expected in an array");
  EXPECT_EQ(refusal("1 2"), "at byte offset 2 (JSON): more after the value");
  EXPECT_EQ(refusal("\"a\x01\""), "at byte offset 2 (JSON): a control character in a string");
  EXPECT_EQ(refusal("\"\xc0\xaf\""), "at byte offset 1 (JSON): ill-formed UTF-8 in a string");
  EXPECT_EQ(refusal("\"\\ud800\""),
            "at byte offset 1 (JSON): a high surrogate without its low one");
  EXPECT_EQ(refusal("\"\\udc00\""), "at byte offset 1 (JSON): a lone low surrogate");
  EXPECT_EQ(refusal("\"\\x\""), "at byte offset 1 (JSON): an unknown escape");
  EXPECT_EQ(refusal("1e999"), "at byte offset 0 (JSON): a number out of range");
  EXPECT_EQ(refusal("{1: 2}"), "at byte offset 1 (JSON): an object's key must be a string");
  EXPECT_EQ(refusal("nul"), "at byte offset 0 (JSON): not a JSON value");
  for (const char* bad : {"-", "1.", "1e", ".5", "+1", "[1,]", "{\"a\"}", "'a'", "NaN"}) {
    refusal(bad);
  }
}

TEST(JsonReader, NestingIsBounded) {
  const std::string deep = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(readJson(deep));
  const std::string deeper = std::string(65, '[') + std::string(65, ']');
  EXPECT_EQ(refusal(deeper), "at byte offset 64 (JSON): nested more than 64 deep");
  // A million brackets cost no stack.
  refusal(std::string(1000000, '['));
}

// The two readers agree on a value: the same kinds, members, elements,
// strings and numbers.
void expectSame(const JsonNode& ours, const testing::JsonValue& theirs, const std::string& where) {
  ASSERT_EQ(ours.isNull(), theirs.isNull()) << where;
  if (ours.isObject()) {
    for (const auto& [key, value] : ours.object()) {
      ASSERT_TRUE(theirs.has(key)) << where << "." << key;
      expectSame(value, theirs[key], where + "." + key);
    }
  } else if (ours.isArray()) {
    ASSERT_EQ(ours.array().size(), theirs.size()) << where;
    for (size_t i = 0; i < ours.array().size(); ++i) {
      expectSame(ours.array()[i], theirs[i], where + "[" + std::to_string(i) + "]");
    }
  } else if (ours.isString()) {
    EXPECT_EQ(ours.string(), theirs.str()) << where;
  } else if (ours.isNumber()) {
    EXPECT_EQ(ours.number(), theirs.number()) << where;
  }
}

TEST(JsonReader, ReadsEveryGoldenDocumentAsTheTestsReaderDoes) {
  size_t documents = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(GOHEAP_SOURCE_DIR) + "/tests/golden")) {
    if (e.path().extension() != ".out") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().empty() || text.str()[0] != '{') continue;  // a text answer
    SCOPED_TRACE(e.path().filename().string());
    Expected<JsonNode> ours = readJson(text.str());
    ASSERT_TRUE(ours) << ours.error().message();
    expectSame(*ours, testing::JsonValue::parse(text.str()), "");
    ++documents;
  }
  EXPECT_GT(documents, 200u);
}

// What JsonWriter writes, the reader reads back, strings of any bytes
// included (the writer replaces ill-formed UTF-8 with U+FFFD).
TEST(JsonReader, ReadsWhatTheWriterWrites) {
  std::string out;
  JsonWriter w(out);
  w.beginObject();
  w.field("bytes", std::string_view("\xff\x00\x01\xe2\x80\xa8 ok", 9));
  w.field("n", uint64_t{18446744073709551615u}).field("d", -0.125);
  w.endObject();
  const JsonNode v = read(out);
  EXPECT_EQ(v.find("bytes")->string(), std::string("\xef\xbf\xbd\x00\x01\xe2\x80\xa8 ok", 11));
  EXPECT_EQ(v.find("n")->numberText(), "18446744073709551615");
  EXPECT_EQ(v.find("d")->number(), -0.125);
}

}  // namespace
}  // namespace goheap
