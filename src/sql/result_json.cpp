#include "sql/result_json.h"

#include "util/format.h"

namespace goheap::sql {

namespace {

std::string blobLiteral(const Blob& b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "x'";
  out.reserve(b.bytes.size() * 2 + 3);
  for (unsigned char c : b.bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  out += '\'';
  return out;
}

}  // namespace

std::string cellText(const Value& v, std::string_view null_text) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::string out;
    JsonWriter(out).value(*d);
    return out;
  }
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<Blob>(&v)) return blobLiteral(*b);
  return std::string(null_text);
}

void writeResultJson(JsonWriter& w, const SqlResult& r) {
  w.beginObject();
  w.field("sql", r.sql);
  w.key("columns").beginArray();
  for (const std::string& c : r.columns) w.value(c);
  w.endArray();
  w.key("rows").beginArray();
  for (const std::vector<Value>& row : r.rows) {
    w.beginArray();
    for (const Value& v : row) {
      if (const auto* i = std::get_if<int64_t>(&v)) {
        w.value(*i);
      } else if (const auto* d = std::get_if<double>(&v)) {
        w.value(*d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        w.value(*s);
      } else if (const auto* b = std::get_if<Blob>(&v)) {
        w.value(blobLiteral(*b));
      } else {
        w.null();
      }
    }
    w.endArray();
  }
  w.endArray();
  w.field("row_count", r.rows.size());
  w.field("truncated", r.truncated);
  w.field("seconds", r.seconds);
  w.endObject();
}

}  // namespace goheap::sql
