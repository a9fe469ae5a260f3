#include "support/json_schema_check.h"

#include <cmath>

namespace goheap::testing {

namespace {

bool isType(const JsonValue& v, const std::string& type) {
  switch (v.kind()) {
    case JsonValue::Kind::Null:
      return type == "null";
    case JsonValue::Kind::Bool:
      return type == "boolean";
    case JsonValue::Kind::Number:
      return type == "number" || (type == "integer" && std::floor(v.number()) == v.number());
    case JsonValue::Kind::String:
      return type == "string";
    case JsonValue::Kind::Array:
      return type == "array";
    case JsonValue::Kind::Object:
      return type == "object";
  }
  return false;
}

}  // namespace

std::vector<std::string> schemaProblems(const JsonValue& value, const JsonValue& schema,
                                        const std::string& path) {
  std::vector<std::string> problems;
  if (schema.has("type")) {
    const JsonValue& type = schema["type"];
    bool matches = false;
    std::string want;
    if (type.kind() == JsonValue::Kind::String) {
      matches = isType(value, type.str());
      want = type.str();
    } else {
      for (const JsonValue& t : type.items()) {
        matches = matches || isType(value, t.str());
        want += (want.empty() ? "" : " or ") + t.str();
      }
    }
    if (!matches) {
      problems.push_back(path + ": want " + want);
      return problems;
    }
  }
  if (value.kind() == JsonValue::Kind::Object) {
    if (schema.has("required")) {
      for (const JsonValue& r : schema["required"].items()) {
        if (!value.has(r.str())) problems.push_back(path + "." + r.str() + ": missing");
      }
    }
    if (schema.has("properties")) {
      for (const auto& [name, sub] : schema["properties"].members()) {
        if (!value.has(name)) continue;
        for (std::string& p : schemaProblems(value[name], sub, path + "." + name)) {
          problems.push_back(std::move(p));
        }
      }
    }
  }
  if (value.kind() == JsonValue::Kind::Array && schema.has("items")) {
    for (size_t i = 0; i < value.size(); i++) {
      for (std::string& p :
           schemaProblems(value[i], schema["items"], path + "[" + std::to_string(i) + "]")) {
        problems.push_back(std::move(p));
      }
    }
  }
  return problems;
}

}  // namespace goheap::testing
