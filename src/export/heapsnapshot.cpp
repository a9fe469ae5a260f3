// Chrome's .heapsnapshot (V8's heap snapshot JSON), for Chrome DevTools'
// Memory tab and memlab. One JSON document whose flat integer arrays are
// written as they are produced: the nodes, then the edges, then the string
// table. Only the string table is kept in memory, one entry per distinct
// name (type names, root names, field names), never per object.
// The mapping is in docs/export-formats.md ("Chrome heap snapshot").
#include <charconv>
#include <unordered_map>

#include "analysis/labels.h"
#include "export/edge_names.h"
#include "export/formats.h"
#include "util/json_writer.h"

namespace goheap::exporting {

namespace {

// V8's node and edge types, in the order meta lists them: the numbers in
// the arrays index these lists.
constexpr const char* kNodeTypes[] = {"hidden",
                                      "array",
                                      "string",
                                      "object",
                                      "code",
                                      "closure",
                                      "regexp",
                                      "number",
                                      "native",
                                      "synthetic",
                                      "concatenated string",
                                      "sliced string",
                                      "symbol",
                                      "bigint",
                                      "object shape"};
constexpr uint32_t kNodeObject = 3, kNodeSynthetic = 9;
constexpr const char* kEdgeTypes[] = {"context", "element",  "property", "internal",
                                      "hidden",  "shortcut", "weak"};
constexpr uint32_t kEdgeElement = 1, kEdgeProperty = 2;
constexpr uint32_t kNodeFieldCount = 7;  // type, name, id, self_size, edge_count,
                                         // trace_node_id, detachedness

// Interned strings, in first-use order.
class StringTable {
 public:
  uint32_t intern(const std::string& s) {
    auto [it, inserted] = index_.try_emplace(s, static_cast<uint32_t>(order_.size()));
    if (inserted) order_.push_back(&it->first);
    return it->second;
  }
  const std::vector<const std::string*>& order() const { return order_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;  // element addresses are stable
  std::vector<const std::string*> order_;
};

// Comma-separated unsigned integers, buffered and handed to `out` in blocks.
class NumberArray {
 public:
  explicit NumberArray(Output& out) : out_(out) {}
  ~NumberArray() { flush(); }
  NumberArray(const NumberArray&) = delete;
  NumberArray& operator=(const NumberArray&) = delete;

  void add(uint64_t v) {
    if (!first_) buf_ += ',';
    first_ = false;
    char digits[24];
    auto r = std::to_chars(digits, digits + sizeof digits, v);
    buf_.append(digits, r.ptr);
    if (buf_.size() > (1u << 16)) flush();
  }
  // Starts a new line (for people reading the file), no separator.
  void newline() { buf_ += '\n'; }
  void flush() {
    out_.text(buf_);
    buf_.clear();
  }

 private:
  Output& out_;
  std::string buf_;
  bool first_ = true;
};

// Nodes are written super-root first (V8's snapshot starts at its root),
// then the objects in address order, then the other roots.
uint64_t nodeIndex(const graph::Heap& h, NodeId n) {
  if (n == h.superRoot()) return 0;
  return n < h.superRoot() ? uint64_t{n} + 1 : n;
}

template <class Fn>
void forEachNodeInOrder(const graph::Heap& h, Fn&& fn) {
  fn(h.superRoot());
  for (NodeId n = 0; n < h.nodeCount(); n++) {
    if (n != h.superRoot()) fn(n);
  }
}

std::string quotedList(std::initializer_list<const char*> items) {
  std::string s = "[";
  for (const char* i : items) {
    if (s.size() > 1) s += ',';
    appendJsonString(s, i);
  }
  return s + "]";
}

template <size_t N>
std::string quotedList(const char* const (&items)[N]) {
  std::string s = "[";
  for (const char* i : items) {
    if (s.size() > 1) s += ',';
    appendJsonString(s, i);
  }
  return s + "]";
}

void writeHeader(const graph::Heap& h, Output& out) {
  std::string meta = "{\"snapshot\":{\"meta\":{";
  meta += "\"node_fields\":" + quotedList({"type", "name", "id", "self_size", "edge_count",
                                           "trace_node_id", "detachedness"});
  meta += ",\n\"node_types\":[" + quotedList(kNodeTypes) +
          ",\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"]";
  meta += ",\n\"edge_fields\":" + quotedList({"type", "name_or_index", "to_node"});
  meta += ",\n\"edge_types\":[" + quotedList(kEdgeTypes) + ",\"string_or_number\",\"node\"]";
  meta += ",\n\"trace_function_info_fields\":" +
          quotedList({"function_id", "name", "script_name", "script_id", "line", "column"});
  meta += ",\n\"trace_node_fields\":" +
          quotedList({"id", "function_info_index", "count", "size", "children"});
  meta += ",\n\"sample_fields\":" + quotedList({"timestamp_us", "last_assigned_id"});
  meta += ",\n\"location_fields\":" + quotedList({"object_index", "script_id", "line", "column"});
  meta += "},\n\"node_count\":" + std::to_string(h.nodeCount());
  meta += ",\"edge_count\":" + std::to_string(h.successors.edgeCount());
  meta += ",\"trace_function_count\":0},\n";
  out.text(meta);
}

}  // namespace

Status writeHeapSnapshot(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  WriteProgress progress(options, "heapsnapshot");
  const graph::Heap& h = s.heap;
  const uint64_t total = uint64_t{h.nodeCount()} * 2;
  uint64_t done = 0;
  auto tick = [&] {
    if ((++done & 0xffff) == 0) progress.report(done, total);
  };
  writeHeader(h, out);
  StringTable strings;
  // Objects are named as `top --by type` groups them: the Go type with
  // DWARF, else the allocation site, closure, interface type or shape.
  const typing::Grouping groups = s.namer().group(typing::GroupKind::Type);
  std::vector<uint32_t> group_string(groups.names.size());
  for (size_t g = 0; g < groups.names.size(); g++)
    group_string[g] = strings.intern(groups.names[g]);

  out.text("\"nodes\":[");
  {
    NumberArray a(out);
    forEachNodeInOrder(h, [&](NodeId n) {
      if (h.isObject(n)) {
        a.add(kNodeObject);
        a.add(group_string[groups.group_of[n]]);
      } else {
        a.add(kNodeSynthetic);
        a.add(strings.intern(n == h.superRoot() ? "(GC roots)" : analysis::labelNode(s, n).name));
      }
      a.add(uint64_t{n} * 2 + 1);  // odd, like V8's heap object ids
      a.add(s.shallowSize(n));
      a.add(h.successors.neighbors(n).size());
      a.add(0);
      a.add(0);
      a.newline();
      tick();
    });
  }
  out.text("],\n\"edges\":[");
  {
    NumberArray a(out);
    EdgeNamer namer(s);
    forEachNodeInOrder(h, [&](NodeId n) {
      for (const NamedEdge& e : namer.edges(n)) {
        a.add(e.label.is_index ? kEdgeElement : kEdgeProperty);
        a.add(e.label.is_index ? e.label.index : strings.intern(e.label.name));
        a.add(nodeIndex(h, e.target) * kNodeFieldCount);
      }
      a.newline();
      tick();
    });
  }
  out.text("],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],");
  out.text("\n\"strings\":[");
  std::string buf;
  bool first = true;
  for (const std::string* str : strings.order()) {
    if (!first) buf += ",\n";
    first = false;
    appendJsonString(buf, *str);
    if (buf.size() > (1u << 16)) {
      out.text(buf);
      buf.clear();
    }
  }
  out.text(buf);
  out.text("]}\n");
  progress.report(total, total);
  return Status::success();
}

}  // namespace goheap::exporting
