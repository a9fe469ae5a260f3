#include "mcp/output_schema.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "questions/catalog.h"
#include "util/json_writer.h"
#include "web/web_assets.h"

namespace goheap::mcp {

namespace {

// A node of the schema as the table builds it.
struct Node {
  std::vector<std::string> types;  // JSON Schema's "type"; empty: any
  bool label = false;              // a node label (docs/cli-json.md "Node labels")
  bool optional = false;
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> properties;
  std::unique_ptr<Node> items;

  Node& property(const std::string& name) {
    for (auto& [key, node] : properties) {
      if (key == name) return *node;
    }
    properties.emplace_back(name, std::make_unique<Node>());
    return *properties.back().second;
  }
  Node& itemsOf(std::string_view type) {
    if (!items) {
      items = std::make_unique<Node>();
      items->types = {std::string(type)};
    }
    return *items;
  }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view text, std::string_view by) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(by, start);
    parts.push_back(trim(text.substr(start, end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + by.size();
  }
}

// The type a table's word names: how a node is, as `node` is set.
Status setType(Node& node, std::string_view word) {
  for (std::string_view alternative : split(word, " or ")) {
    if (alternative == "integer" || alternative == "integers") {
      node.types.emplace_back("integer");
    } else if (alternative == "string" || alternative == "strings") {
      node.types.emplace_back("string");
    } else if (alternative == "bool" || alternative == "boolean") {
      node.types.emplace_back("boolean");
    } else if (alternative == "number") {
      node.types.emplace_back("number");
    } else if (alternative == "null") {
      node.types.emplace_back("null");
    } else if (alternative == "object") {
      node.types.emplace_back("object");
    } else if (alternative == "label") {
      node.types.emplace_back("object");
      node.label = true;
    } else if (alternative == "array") {
      node.types.emplace_back("array");
    } else if (alternative == "array of strings") {
      node.types.emplace_back("array");
      node.itemsOf("string");
    } else if (alternative == "array of arrays") {
      node.types.emplace_back("array");
      node.itemsOf("array");
    } else {
      return Error("unknown type \"" + std::string(alternative) + "\"");
    }
  }
  return Status::success();
}

// One row: `paths` (backquoted, comma-separated; ".bytes" is a sibling of
// the path before) of type `types` ("string, integer, optional").
Status addRow(Node& root, std::string_view paths_cell, std::string_view types_cell) {
  std::vector<std::string> paths;
  for (size_t at = 0; (at = paths_cell.find('`', at)) != std::string_view::npos;) {
    const size_t end = paths_cell.find('`', at + 1);
    if (end == std::string_view::npos) return Error("unclosed ` in the field");
    std::string path(paths_cell.substr(at + 1, end - at - 1));
    if (path.starts_with('.') && !paths.empty()) {
      const std::string& before = paths.back();
      path = before.substr(0, before.rfind('.')) + path;
    }
    paths.push_back(std::move(path));
    at = end + 1;
  }
  if (paths.empty()) return Error("no field");
  std::string types_text;
  for (char c : types_cell) {
    if (c != '`') types_text += c;
  }
  bool optional = false;
  std::vector<std::string_view> types;
  for (std::string_view t : split(types_text, ", ")) {
    if (t == "optional" || t.starts_with("with ")) {
      optional = true;
    } else {
      types.push_back(t);
    }
  }
  if (types.empty()) return Error("no type");
  for (size_t i = 0; i < paths.size(); i++) {
    const std::string_view type = types.size() == paths.size() ? types[i] : types[0];
    Node* node = &root;
    const std::vector<std::string_view> parts = split(paths[i], ".");
    for (size_t p = 0; p < parts.size(); p++) {
      std::string_view name = parts[p];
      int depth = 0;
      while (name.ends_with("[]")) {
        name.remove_suffix(2);
        depth++;
      }
      Node& child = node->property(std::string(name));
      const bool last = p + 1 == parts.size();
      if (last && (depth == 0 || type.starts_with("array"))) {
        child.types.clear();
        if (Status st = setType(child, type); !st) return st;
        child.optional = optional;
        break;
      }
      if (child.types.empty()) child.types = {depth > 0 ? "array" : "object"};
      node = &child;
      for (int d = 1; d <= depth; d++) node = &node->itemsOf(d < depth ? "array" : "object");
      if (last) {
        node->types.clear();
        if (Status st = setType(*node, type); !st) return st;
      }
    }
  }
  return Status::success();
}

// The tables' rows of the section headed "## `title`".
Expected<Node> readSection(std::string_view doc, std::string_view title) {
  const std::string heading = "\n## " + std::string(title) + "\n";
  const size_t start = doc.find(heading);
  if (start == std::string_view::npos) return Error("no section \"## " + std::string(title) + "\"");
  size_t end = doc.find("\n## ", start + heading.size());
  if (end == std::string_view::npos) end = doc.size();
  Node root;
  root.types = {"object"};
  size_t line_start = start + heading.size();
  while (line_start < end) {
    size_t line_end = doc.find('\n', line_start);
    if (line_end == std::string_view::npos || line_end > end) line_end = end;
    const std::string_view line = doc.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (!line.starts_with("| `")) continue;
    // | `path` | type | meaning |: the meaning may hold anything.
    const size_t first = line.find(" | ");
    const size_t second = first == std::string_view::npos ? first : line.find(" | ", first + 3);
    Status added =
        second == std::string_view::npos
            ? Status(Error("not a row of three cells"))
            : addRow(root, line.substr(1, first), line.substr(first + 3, second - first - 3));
    if (!added) {
      return Error("docs/cli-json.md, " + std::string(title) + ": " + added.error().message() +
                   " in: " + std::string(line.substr(0, 80)));
    }
  }
  return root;
}

void writeNode(JsonWriter& w, const Node& node, const Node& label) {
  const Node& shape = node.label ? label : node;
  w.beginObject();
  std::vector<std::string> types = node.types;
  if (types.size() == 1) {
    w.field("type", types[0]);
  } else if (!types.empty()) {
    w.key("type").beginArray();
    for (const std::string& t : types) w.value(t);
    w.endArray();
  }
  if (!shape.properties.empty()) {
    w.key("properties").beginObject();
    for (const auto& [name, child] : shape.properties) {
      w.key(name);
      writeNode(w, *child, label);
    }
    w.endObject();
    w.key("required").beginArray();
    for (const auto& [name, child] : shape.properties) {
      if (!child->optional) w.value(name);
    }
    w.endArray();
  }
  if (node.items) {
    w.key("items");
    writeNode(w, *node.items, label);
  }
  w.endObject();
}

}  // namespace

Expected<std::string> outputSchemaFromDoc(std::string_view doc, std::string_view section) {
  GOHEAP_TRY(Node label, readSection(doc, "Node labels"));
  GOHEAP_TRY(Node root, readSection(doc, section));
  Node& version = root.property("schema_version");
  version.types = {"integer"};
  std::string out;
  JsonWriter w(out);
  writeNode(w, root, label);
  return out;
}

std::optional<std::string> outputSchema(std::string_view tool) {
  // Made once per tool: tools/list, resources and every call ask again.
  static const std::map<std::string, std::string, std::less<>> schemas = [] {
    std::map<std::string, std::string, std::less<>> made;
    for (const web::WebAsset& a : web::webAssets()) {
      if (a.path != "/cli-json.md") continue;
      const std::string_view doc(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size());
      for (const questions::Question* q : questions::allQuestions()) {
        if (Expected<std::string> schema = outputSchemaFromDoc(doc, q->name)) {
          made.emplace(q->name, schema.take());
        }
      }
    }
    return made;
  }();
  const auto it = schemas.find(tool);
  return it == schemas.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace goheap::mcp
