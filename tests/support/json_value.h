// A small JSON reader for tests: the Go programs' reports and goheap's own
// --json output are read back with it. Not for production input.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace goheap::testing {

class JsonValue {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  static JsonValue parse(const std::string& text);  // aborts the test on bad JSON
  static JsonValue parseFile(const std::string& path);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool has(const std::string& key) const { return object_.count(key) > 0; }
  const JsonValue& operator[](const std::string& key) const;
  const JsonValue& operator[](size_t i) const { return array_.at(i); }
  size_t size() const { return kind_ == Kind::Array ? array_.size() : object_.size(); }
  const std::vector<JsonValue>& items() const { return array_; }
  const std::map<std::string, JsonValue>& members() const { return object_; }

  const std::string& str() const { return string_; }
  double number() const { return number_; }
  uint64_t u64() const { return static_cast<uint64_t>(number_); }
  bool boolean() const { return bool_; }
  // "0xc000012345" -> number.
  uint64_t hexAddress() const { return std::stoull(string_, nullptr, 16); }

 private:
  friend class JsonParser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::map<std::string, JsonValue> object_;
};

}  // namespace goheap::testing
