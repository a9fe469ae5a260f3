#include "support/json_value.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace goheap::testing {

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  JsonValue document() {
    JsonValue v = value();
    skipSpace();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("bad JSON at " + std::to_string(i_) + ": " + what);
  }
  void skipSpace() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) {
      i_++;
    }
  }
  bool consume(char c) {
    skipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      i_++;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  JsonValue value() {
    skipSpace();
    if (i_ >= s_.size()) fail("unexpected end");
    JsonValue v;
    char c = s_[i_];
    if (c == '{') {
      i_++;
      v.kind_ = JsonValue::Kind::Object;
      if (consume('}')) return v;
      do {
        skipSpace();
        std::string key = string();
        expect(':');
        v.object_[key] = value();
      } while (consume(','));
      expect('}');
    } else if (c == '[') {
      i_++;
      v.kind_ = JsonValue::Kind::Array;
      if (consume(']')) return v;
      do {
        v.array_.push_back(value());
      } while (consume(','));
      expect(']');
    } else if (c == '"') {
      v.kind_ = JsonValue::Kind::String;
      v.string_ = string();
    } else if (s_.compare(i_, 4, "true") == 0) {
      i_ += 4;
      v.kind_ = JsonValue::Kind::Bool;
      v.bool_ = true;
    } else if (s_.compare(i_, 5, "false") == 0) {
      i_ += 5;
      v.kind_ = JsonValue::Kind::Bool;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else {
      size_t end = i_;
      while (end < s_.size() && std::string("+-0123456789.eE").find(s_[end]) != std::string::npos) {
        end++;
      }
      if (end == i_) fail("unexpected character");
      v.kind_ = JsonValue::Kind::Number;
      v.number_ = std::strtod(s_.substr(i_, end - i_).c_str(), nullptr);
      i_ = end;
    }
    return v;
  }
  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    i_++;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("bad escape");
      char e = s_[i_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          unsigned code = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          // Enough for tests: encode the code unit as UTF-8.
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
          }
          break;
        }
        default:
          out += e;
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    i_++;
    return out;
  }

  const std::string& s_;
  size_t i_ = 0;
};

JsonValue JsonValue::parse(const std::string& text) {
  return JsonParser(text).document();
}

JsonValue JsonValue::parseFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str());
}

const JsonValue& JsonValue::operator[](const std::string& key) const {
  auto it = object_.find(key);
  if (it == object_.end()) throw std::runtime_error("no key '" + key + "' in JSON object");
  return it->second;
}

}  // namespace goheap::testing
