#include "util/json_reader.h"

#include <charconv>
#include <cmath>

namespace goheap {

const JsonNode* JsonNode::find(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

// A recursive-descent reader over the text, its position `at_`.
class JsonReader {
 public:
  JsonReader(std::string_view text, JsonLimits limits) : s_(text), limits_(limits) {}

  Expected<JsonNode> document() {
    JsonNode v;
    if (Status st = value(v, 0); !st) return st.error();
    skipSpace();
    if (at_ != s_.size()) return fail("more after the value");
    return v;
  }

 private:
  Error fail(std::string_view what) const { return Error::atOffset(at_, "JSON", what); }

  void skipSpace() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) {
      ++at_;
    }
  }

  bool literal(std::string_view word) {
    if (s_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  Status value(JsonNode& v, uint32_t depth) {
    skipSpace();
    if (at_ >= s_.size()) return fail("a value is missing");
    const char c = s_[at_];
    if (c == '{' || c == '[') {
      if (depth >= limits_.max_depth) {
        return fail("nested more than " + std::to_string(limits_.max_depth) + " deep");
      }
      return c == '{' ? object(v, depth + 1) : array(v, depth + 1);
    }
    if (c == '"') {
      v.kind_ = JsonNode::Kind::String;
      return string(v.text_);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    if (literal("true") || literal("false")) {
      v.kind_ = JsonNode::Kind::Bool;
      v.bool_ = s_[at_ - 1] == 'e' && s_[at_ - 2] == 'u';
      return Status::success();
    }
    if (literal("null")) return Status::success();
    return fail("not a JSON value");
  }

  Status object(JsonNode& v, uint32_t depth) {
    v.kind_ = JsonNode::Kind::Object;
    ++at_;  // {
    skipSpace();
    if (at_ < s_.size() && s_[at_] == '}') {
      ++at_;
      return Status::success();
    }
    for (;;) {
      skipSpace();
      if (at_ >= s_.size() || s_[at_] != '"') return fail("an object's key must be a string");
      const size_t key_at = at_;
      std::string key;
      if (Status st = string(key); !st) return st;
      if (v.find(key) != nullptr) return Error::atOffset(key_at, "JSON", "duplicate key");
      skipSpace();
      if (at_ >= s_.size() || s_[at_] != ':') return fail("':' expected after a key");
      ++at_;
      JsonNode member;
      if (Status st = value(member, depth); !st) return st;
      v.members_.emplace_back(std::move(key), std::move(member));
      Expected<bool> more = another('}', "',' or '}' expected in an object");
      if (!more || !*more) return more ? Status::success() : Status(more.error());
    }
  }

  // After a member or element: true past a ',', false past `close`.
  Expected<bool> another(char close, std::string_view what) {
    skipSpace();
    if (at_ < s_.size() && (s_[at_] == ',' || s_[at_] == close)) return s_[at_++] == ',';
    return fail(what);
  }

  Status array(JsonNode& v, uint32_t depth) {
    v.kind_ = JsonNode::Kind::Array;
    ++at_;  // [
    skipSpace();
    if (at_ < s_.size() && s_[at_] == ']') {
      ++at_;
      return Status::success();
    }
    for (;;) {
      JsonNode element;
      if (Status st = value(element, depth); !st) return st;
      v.array_.push_back(std::move(element));
      Expected<bool> more = another(']', "',' or ']' expected in an array");
      if (!more || !*more) return more ? Status::success() : Status(more.error());
    }
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  Status number(JsonNode& v) {
    const size_t start = at_;
    auto digits = [&] {
      const size_t from = at_;
      while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
      return at_ - from;
    };
    if (s_[at_] == '-') ++at_;
    if (at_ < s_.size() && s_[at_] == '0') {
      ++at_;
    } else if (digits() == 0) {
      return fail("a number needs digits");
    }
    bool integral = true;
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_;
      integral = false;
      if (digits() == 0) return fail("digits expected after '.'");
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      integral = false;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (digits() == 0) return fail("digits expected in the exponent");
    }
    v.kind_ = JsonNode::Kind::Number;
    v.text_ = std::string(s_.substr(start, at_ - start));
    const char* first = v.text_.data();
    const char* last = first + v.text_.size();
    if (std::from_chars(first, last, v.number_).ec != std::errc() || !std::isfinite(v.number_)) {
      return Error::atOffset(start, "JSON", "a number out of range");
    }
    int64_t i = 0;
    if (integral && std::from_chars(first, last, i).ec == std::errc()) {
      v.integer_ = i;
    } else if (!integral && v.number_ == std::trunc(v.number_) && std::fabs(v.number_) < 9.2e18) {
      v.integer_ = static_cast<int64_t>(v.number_);
    }
    return Status::success();
  }

  // Four hex digits at at_.
  std::optional<uint32_t> hex4() {
    if (s_.size() - at_ < 4) return std::nullopt;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[at_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return std::nullopt;
      }
    }
    return v;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | cp >> 6);
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | cp >> 12);
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | cp >> 18);
      out += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  // The length of the well-formed UTF-8 sequence at at_ (Unicode 3.9,
  // table 3-7), or 0.
  size_t utf8Length() const {
    const auto byte = [&](size_t k) -> uint8_t {
      return at_ + k < s_.size() ? static_cast<uint8_t>(s_[at_ + k]) : uint8_t{0};
    };
    const uint8_t b0 = byte(0);
    const auto in = [](uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; };
    if (b0 < 0x80) return 1;
    if (in(b0, 0xc2, 0xdf)) return in(byte(1), 0x80, 0xbf) ? 2 : 0;
    if (in(b0, 0xe0, 0xef)) {
      const uint8_t lo = b0 == 0xe0 ? 0xa0 : 0x80, hi = b0 == 0xed ? 0x9f : 0xbf;
      return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) ? 3 : 0;
    }
    if (in(b0, 0xf0, 0xf4)) {
      const uint8_t lo = b0 == 0xf0 ? 0x90 : 0x80, hi = b0 == 0xf4 ? 0x8f : 0xbf;
      return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) && in(byte(3), 0x80, 0xbf) ? 4 : 0;
    }
    return 0;
  }

  Status string(std::string& out) {
    ++at_;  // "
    for (;;) {
      if (at_ >= s_.size()) return fail("a string is not closed");
      const char c = s_[at_];
      if (c == '"') {
        ++at_;
        return Status::success();
      }
      if (static_cast<uint8_t>(c) < 0x20) return fail("a control character in a string");
      if (c != '\\') {
        const size_t n = utf8Length();
        if (n == 0) return fail("ill-formed UTF-8 in a string");
        out.append(s_.substr(at_, n));
        at_ += n;
        continue;
      }
      const size_t escape_at = at_;
      ++at_;
      if (at_ >= s_.size()) return fail("a string is not closed");
      const char e = s_[at_++];
      // The escapes of one character, and what each stands for.
      constexpr std::string_view kEscapes = "\"\\/bfnrt", kMeanings = "\"\\/\b\f\n\r\t";
      if (const size_t k = kEscapes.find(e); k != std::string_view::npos) {
        out += kMeanings[k];
        continue;
      }
      if (e != 'u') return Error::atOffset(escape_at, "JSON", "an unknown escape");
      std::optional<uint32_t> cp = hex4();
      if (!cp) return Error::atOffset(escape_at, "JSON", "\\u needs four hex digits");
      if (*cp >= 0xdc00 && *cp <= 0xdfff) {
        return Error::atOffset(escape_at, "JSON", "a lone low surrogate");
      }
      if (*cp >= 0xd800 && *cp <= 0xdbff) {
        std::optional<uint32_t> low;
        if (literal("\\u")) low = hex4();
        if (!low || *low < 0xdc00 || *low > 0xdfff) {
          return Error::atOffset(escape_at, "JSON", "a high surrogate without its low one");
        }
        *cp = 0x10000 + ((*cp - 0xd800) << 10) + (*low - 0xdc00);
      }
      appendUtf8(out, *cp);
    }
  }

  std::string_view s_;
  JsonLimits limits_;
  size_t at_ = 0;
};

Expected<JsonNode> readJson(std::string_view text, JsonLimits limits) {
  return JsonReader(text, limits).document();
}

}  // namespace goheap
