// A strict JSON reader (RFC 8259), the counterpart of json_writer.h: what
// goheap is sent as JSON (the MCP server's JSON-RPC requests, issue 32) is
// read here into a small tree of values. Text a client sends can be written
// by anyone, so the reader is strict and bounded: nesting deeper than the
// limit, numbers JSON does not allow, control characters or ill-formed
// UTF-8 in strings, lone surrogates, duplicate keys and anything after the
// value are errors that name their byte offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace goheap {

class JsonNode {
 public:
  enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };

  JsonNode() = default;

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool boolean() const { return bool_; }
  double number() const { return number_; }
  // The number when it is an integer that fits (written without a fraction
  // or exponent, or with one that leaves an integer: 1e3), else nothing.
  std::optional<int64_t> integer() const { return integer_; }
  // The number as written ("1.50e3"), for a caller that wants it exactly.
  const std::string& numberText() const { return text_; }
  const std::string& string() const { return text_; }
  const std::vector<JsonNode>& array() const { return array_; }
  // In the order written; keys are unique.
  const std::vector<std::pair<std::string, JsonNode>>& object() const { return members_; }
  // The member `key` of an object, or null when absent or not an object.
  const JsonNode* find(std::string_view key) const;

 private:
  friend class JsonReader;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  std::optional<int64_t> integer_;
  std::string text_;  // a string's value, or a number's text
  std::vector<JsonNode> array_;
  std::vector<std::pair<std::string, JsonNode>> members_;
};

struct JsonLimits {
  uint32_t max_depth = 64;  // arrays and objects inside one another
};

// The value `text` holds, and nothing but white space around it; an Error
// "at byte offset N (JSON): ..." otherwise.
Expected<JsonNode> readJson(std::string_view text, JsonLimits limits = {});

}  // namespace goheap
