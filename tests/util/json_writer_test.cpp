#include "util/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace goheap {
namespace {

// Whether `text` is well-formed UTF-8 (no overlongs, surrogates or code
// points above U+10FFFF).
bool wellFormedUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80                   ? 1
               : (c >= 0xC2 && c <= 0xDF) ? 2
               : (c >= 0xE0 && c <= 0xEF) ? 3
               : (c >= 0xF0 && c <= 0xF4) ? 4
                                          : 0;
    if (n == 0 || i + n > text.size()) return false;
    uint32_t cp = n == 1 ? c : (c & (0xFFu >> (n + 1)));
    for (size_t k = 1; k < n; ++k) {
      auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// A strict RFC 8259 reader that checks the writer's output is JSON and gives
// back the strings it holds, decoded, so tests can check the round trip.
// Besides the grammar it checks that the text is well-formed UTF-8 and has no
// raw control characters.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : text_(text) {}

  bool check() {
    skipSpace();
    if (!value()) return false;
    skipSpace();
    return pos_ == text_.size() && wellFormedUtf8(text_);
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  bool value() {
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    return literal("true") || literal("false") || literal("null");
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool object() {
    ++pos_;
    skipSpace();
    if (peek('}')) return ++pos_, true;
    for (;;) {
      skipSpace();
      if (!peek('"') || !string()) return false;
      skipSpace();
      if (!peek(':')) return false;
      ++pos_;
      skipSpace();
      if (!value()) return false;
      skipSpace();
      if (peek('}')) return ++pos_, true;
      if (!peek(',')) return false;
      ++pos_;
    }
  }
  bool array() {
    ++pos_;
    skipSpace();
    if (peek(']')) return ++pos_, true;
    for (;;) {
      skipSpace();
      if (!value()) return false;
      skipSpace();
      if (peek(']')) return ++pos_, true;
      if (!peek(',')) return false;
      ++pos_;
    }
  }
  bool digits() {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }
  bool number() {
    if (peek('-')) ++pos_;
    if (peek('0')) {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (peek('.')) {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      if (!digits()) return false;
    }
    return true;
  }
  bool hex4(uint32_t& v) {
    if (pos_ + 4 > text_.size()) return false;
    v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text_[pos_++];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
      v = v * 16 + d;
    }
    return true;
  }
  static void appendUtf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool string() {
    ++pos_;
    std::string decoded;
    while (pos_ < text_.size()) {
      auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        strings_.push_back(std::move(decoded));
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        decoded += static_cast<char>(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size()) return false;
      char e = text_[pos_++];
      switch (e) {
        case '"':
          decoded += '"';
          break;
        case '\\':
          decoded += '\\';
          break;
        case '/':
          decoded += '/';
          break;
        case 'b':
          decoded += '\b';
          break;
        case 'f':
          decoded += '\f';
          break;
        case 'n':
          decoded += '\n';
          break;
        case 'r':
          decoded += '\r';
          break;
        case 't':
          decoded += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          // The writer never needs surrogate pairs: it writes non-ASCII raw.
          if (cp >= 0xD800 && cp <= 0xDFFF) return false;
          appendUtf8(decoded, cp);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<std::string> strings_;
};

std::string compactString(std::string_view s) {
  std::string out;
  JsonWriter w(out);
  w.value(s);
  return out;
}

TEST(JsonChecker, RejectsWhatIsNotJson) {
  for (std::string_view bad : {"", "{", "[1,]", "{\"a\"}", "01", "1.", "\"\x01\"", "\"\\x\"",
                               "[1] [2]", "nul", "\"\xff\""}) {
    EXPECT_FALSE(JsonChecker(bad).check()) << bad;
  }
  EXPECT_TRUE(JsonChecker(" {\"a\": [1, -2.5e3, true, null, \"x\"]} ").check());
}

TEST(JsonWriter, CompactHasNoWhitespaceAndCommasInPlace) {
  std::string out;
  JsonWriter w(out);
  w.beginObject();
  w.field("name", "goheap").field("objects", uint64_t{3});
  w.key("sizes").beginArray().value(1).value(2).value(3).endArray();
  w.key("empty").beginObject().endObject();
  w.key("none").beginArray().endArray();
  w.key("nested").beginArray().beginObject().field("a", true).endObject().null().endArray();
  w.endObject();
  EXPECT_EQ(out, R"({"name":"goheap","objects":3,"sizes":[1,2,3],"empty":{},"none":[],)"
                 R"("nested":[{"a":true},null]})");
  EXPECT_TRUE(w.complete());
  EXPECT_TRUE(JsonChecker(out).check());
}

TEST(JsonWriter, PrettyIndentsByTwoAndEndsWithNewline) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("a", 1);
  w.key("b").beginArray().value("x").beginObject().field("c", false).endObject().endArray();
  w.key("e").beginObject().endObject();
  w.key("f").beginArray().endArray();
  w.endObject();
  EXPECT_EQ(out,
            "{\n"
            "  \"a\": 1,\n"
            "  \"b\": [\n"
            "    \"x\",\n"
            "    {\n"
            "      \"c\": false\n"
            "    }\n"
            "  ],\n"
            "  \"e\": {},\n"
            "  \"f\": []\n"
            "}\n");
  EXPECT_TRUE(w.complete());
  EXPECT_TRUE(JsonChecker(out).check());
}

// A document made of documents (goheap report) must read exactly as if it
// had been written in one go, in both styles.
TEST(JsonWriter, RawValueOfAWholeDocumentIsIndentedInPlace) {
  for (JsonWriter::Style style : {JsonWriter::Style::Compact, JsonWriter::Style::Pretty}) {
    auto inner = [](JsonWriter& w) {
      w.beginObject().field("n", 1);
      w.key("list").beginArray().value("a\nb").beginObject().endObject().endArray();
      w.endObject();
    };
    std::string direct;
    {
      JsonWriter w(direct, style);
      w.beginObject().field("x", true).key("doc");
      inner(w);
      w.key("docs").beginArray();
      inner(w);
      w.endArray().endObject();
    }
    std::string part;
    {
      JsonWriter w(part, style);
      inner(w);
    }
    std::string composed;
    JsonWriter w(composed, style);
    w.beginObject().field("x", true).key("doc").rawValue(part);
    w.key("docs").beginArray().rawValue(part).endArray().endObject();
    EXPECT_TRUE(w.complete());
    EXPECT_EQ(composed, direct);
    EXPECT_TRUE(JsonChecker(composed).check());
  }
}

TEST(JsonWriter, TopLevelScalar) {
  std::string out;
  JsonWriter w(out);
  w.value(42);
  EXPECT_EQ(out, "42");
  EXPECT_TRUE(w.complete());
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(compactString("say \"hi\""), R"("say \"hi\"")");
  EXPECT_EQ(compactString("C:\\go"), R"("C:\\go")");
  EXPECT_EQ(compactString("a\nb\tc\rd"), R"("a\nb\tc\rd")");
  EXPECT_EQ(compactString(std::string_view("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(compactString("\b\f"), R"("\u0008\u000c")");
  EXPECT_EQ(compactString("/ and \x7f stay"), "\"/ and \x7f stay\"");
}

TEST(JsonWriter, KeysAreEscapedToo) {
  std::string out;
  JsonWriter w(out);
  w.beginObject().field("a\"b", 1).endObject();
  EXPECT_EQ(out, R"({"a\"b":1})");
}

TEST(JsonWriter, WellFormedUtf8PassesThrough) {
  EXPECT_EQ(compactString("µs 日本 😀"), "\"µs 日本 😀\"");
  EXPECT_EQ(compactString("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");  // U+10FFFF
}

TEST(JsonWriter, LineAndParagraphSeparatorsAreEscaped) {
  EXPECT_EQ(compactString("a\xe2\x80\xa8"
                          "b\xe2\x80\xa9"),
            R"("a\u2028b\u2029")");
}

TEST(JsonWriter, IllFormedUtf8BecomesOneReplacementPerMaximalSubpart) {
  EXPECT_EQ(compactString("\xff"), R"("\ufffd")");
  EXPECT_EQ(compactString("a\xc3"), R"("a\ufffd")");  // truncated at the end
  EXPECT_EQ(compactString("\xe2\x82"
                          "A"),
            R"("\ufffdA")");                                            // truncated before ASCII
  EXPECT_EQ(compactString("\xc0\xaf"), R"("\ufffd\ufffd")");            // overlong
  EXPECT_EQ(compactString("\xe0\x80\x80"), R"("\ufffd\ufffd\ufffd")");  // overlong
  EXPECT_EQ(compactString("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // surrogate
  EXPECT_EQ(compactString("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // > U+10FFFF
  EXPECT_EQ(compactString("\xf0\x9f\x98"), R"("\ufffd")");  // three of four bytes
  EXPECT_EQ(compactString("\x80z"), R"("\ufffdz")");        // lone continuation
}

TEST(JsonWriter, IntegersAtTheirLimits) {
  std::string out;
  JsonWriter w(out);
  w.beginArray();
  w.value(std::numeric_limits<uint64_t>::max());
  w.value(std::numeric_limits<int64_t>::min());
  w.value(uint32_t{7}).value(-3).value(uint8_t{255}).value(int16_t{-1});
  w.endArray();
  EXPECT_EQ(out, "[18446744073709551615,-9223372036854775808,7,-3,255,-1]");
}

TEST(JsonWriter, DoublesAreShortestAndNonFiniteIsNull) {
  std::string out;
  JsonWriter w(out);
  w.beginArray();
  w.value(0.1).value(3.0).value(-2.5).value(1e300).value(0.0);
  w.value(std::nan("")).value(std::numeric_limits<double>::infinity());
  w.value(-std::numeric_limits<double>::infinity());
  w.endArray();
  EXPECT_EQ(out, "[0.1,3,-2.5,1e+300,0,null,null,null]");
  EXPECT_TRUE(JsonChecker(out).check());
}

TEST(JsonWriter, BoolsAndStringLiteralsAreNotConfused) {
  std::string out;
  JsonWriter w(out);
  w.beginArray().value(true).value(false).value("true").value(std::string("s")).endArray();
  EXPECT_EQ(out, R"([true,false,"true","s"])");
}

TEST(JsonWriter, ValueWithoutKeyInObjectIsMisuse) {
  std::string out;
  JsonWriter w(out);
  w.beginObject().value(1);
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(out, "{");  // the misplaced value was not written
}

TEST(JsonWriter, MismatchedEndIsMisuse) {
  std::string out;
  JsonWriter w(out);
  w.beginObject().endArray();
  EXPECT_FALSE(w.ok());
}

TEST(JsonWriter, KeyOutsideObjectIsMisuse) {
  std::string out;
  JsonWriter w(out);
  w.beginArray().key("a");
  EXPECT_FALSE(w.ok());
}

TEST(JsonWriter, SecondTopLevelValueIsMisuse) {
  std::string out;
  JsonWriter w(out);
  w.value(1).value(2);
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(out, "1");
}

TEST(JsonWriter, UnfinishedDocumentIsNotComplete) {
  std::string out;
  JsonWriter w(out);
  w.beginObject().key("a");
  EXPECT_TRUE(w.ok());
  EXPECT_FALSE(w.complete());
}

TEST(JsonWriter, StreamOutputEqualsStringOutput) {
  std::string expected;
  std::ostringstream stream;
  {
    JsonWriter a(expected, JsonWriter::Style::Pretty);
    JsonWriter b(stream, JsonWriter::Style::Pretty);
    for (JsonWriter* w : {&a, &b}) {
      w->beginArray();
      // Enough to cross the writer's flush threshold several times.
      for (int i = 0; i < 20000; ++i) w->beginObject().field("i", i).field("s", "x\"y").endObject();
      w->endArray();
    }
  }
  EXPECT_EQ(stream.str(), expected);
  EXPECT_TRUE(JsonChecker(expected).check());
}

// Random bytes, many of them ill-formed UTF-8: the output must always be
// valid JSON, and a string that was well-formed must read back unchanged.
TEST(JsonWriter, RandomStringsAlwaysGiveValidJson) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> len(0, 12);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::string> inputs;
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    int n = len(rng);
    for (int k = 0; k < n; ++k) s += static_cast<char>(byte(rng));
    inputs.push_back(s);
  }
  inputs.emplace_back("plain ascii");
  inputs.emplace_back("µ 日本 😀 \"q\" \\ \n");

  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginArray();
  for (const std::string& s : inputs) w.value(s);
  w.endArray();
  JsonChecker checker(out);
  ASSERT_TRUE(checker.check());
  ASSERT_EQ(checker.strings().size(), inputs.size());
  size_t compared = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (wellFormedUtf8(inputs[i])) {
      EXPECT_EQ(checker.strings()[i], inputs[i]);
      ++compared;
    } else {
      EXPECT_NE(checker.strings()[i].find("\xef\xbf\xbd"), std::string::npos);
    }
  }
  EXPECT_GE(compared, 2u);
}

}  // namespace
}  // namespace goheap

namespace goheap {
namespace {

// compactJson leaves strings as written, white space and all, and drops
// only what lies between tokens: the compact writer's text.
TEST(CompactJson, IsTheCompactWritersText) {
  const auto document = [](JsonWriter::Style style) {
    std::string out;
    JsonWriter w(out, style);
    w.beginObject()
        .field("a b", " spaced \"quoted\" \\ {\n}\t")
        .key("list")
        .beginArray()
        .value(1)
        .value(-2.5)
        .null()
        .beginObject()
        .endObject()
        .endArray()
        .endObject();
    return out;
  };
  const std::string compact = document(JsonWriter::Style::Compact);
  for (const JsonWriter::Style style : {JsonWriter::Style::Pretty, JsonWriter::Style::Compact}) {
    EXPECT_EQ(compactJson(document(style)), compact);
  }
}

}  // namespace
}  // namespace goheap
