// libFuzzer entry for the JSON reader (src/util/json_reader.h), which reads
// what clients send: any input is read or refused with an Error that names
// its byte offset; what is read, written back with JsonWriter, reads back
// as the same values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/json_reader.h"
#include "util/json_writer.h"

namespace {

void write(goheap::JsonWriter& w, const goheap::JsonNode& v) {
  switch (v.kind()) {
    case goheap::JsonNode::Kind::Null:
      w.null();
      break;
    case goheap::JsonNode::Kind::Bool:
      w.value(v.boolean());
      break;
    case goheap::JsonNode::Kind::Number:
      w.rawValue(v.numberText());
      break;
    case goheap::JsonNode::Kind::String:
      w.value(std::string_view(v.string()));
      break;
    case goheap::JsonNode::Kind::Array:
      w.beginArray();
      for (const goheap::JsonNode& e : v.array()) write(w, e);
      w.endArray();
      break;
    case goheap::JsonNode::Kind::Object:
      w.beginObject();
      for (const auto& [key, member] : v.object()) {
        w.key(key);
        write(w, member);
      }
      w.endObject();
      break;
  }
}

bool same(const goheap::JsonNode& a, const goheap::JsonNode& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case goheap::JsonNode::Kind::Bool:
      return a.boolean() == b.boolean();
    case goheap::JsonNode::Kind::Number:
      return a.numberText() == b.numberText();
    case goheap::JsonNode::Kind::String:
      return a.string() == b.string();
    case goheap::JsonNode::Kind::Array:
      if (a.array().size() != b.array().size()) return false;
      for (size_t i = 0; i < a.array().size(); ++i) {
        if (!same(a.array()[i], b.array()[i])) return false;
      }
      return true;
    case goheap::JsonNode::Kind::Object:
      if (a.object().size() != b.object().size()) return false;
      for (size_t i = 0; i < a.object().size(); ++i) {
        if (a.object()[i].first != b.object()[i].first ||
            !same(a.object()[i].second, b.object()[i].second)) {
          return false;
        }
      }
      return true;
    default:
      return true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = goheap::readJson(text);
  if (!v) {
    if (v.error().message().find("at byte offset ") != 0) std::abort();
    return 0;
  }
  std::string out;
  goheap::JsonWriter w(out);
  write(w, *v);
  if (!w.complete()) std::abort();
  auto back = goheap::readJson(out);
  if (!back || !same(*v, *back)) std::abort();
  return 0;
}
