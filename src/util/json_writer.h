// A streaming JSON writer: every --json output and the server's responses go
// through it, so the schema's text form (escaping, numbers, commas, layout) is
// decided in one place. It writes as it goes and holds only the nesting stack,
// so a report with millions of rows never exists twice in memory.
#pragma once

#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace goheap {

// Appends `text` as a quoted JSON string: quote and backslash escaped, \n \r
// \t as themselves, other control characters as \u00XX, U+2028 and U+2029 as
// \u2028 and \u2029 (so the output can sit inside a <script>), and every
// maximal ill-formed UTF-8 subsequence replaced by \ufffd. Go strings in a
// dump are arbitrary bytes, so this last case is real.
void appendJsonString(std::string& out, std::string_view text);

class JsonWriter {
 public:
  // Compact has no whitespace at all. Pretty puts each member and element on
  // its own line indented by two spaces per level, writes "key": value, keeps
  // empty containers as {} and [], and ends the document with a newline.
  enum class Style : uint8_t { Compact, Pretty };

  // Appends to `out`, which must outlive the writer.
  explicit JsonWriter(std::string& out, Style style = Style::Compact);
  // Writes to `out` through a buffer; flush() or the destructor empties it.
  explicit JsonWriter(std::ostream& out, Style style = Style::Compact);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  // Inside an object, before each value.
  JsonWriter& key(std::string_view name);
  // "name": [{...}, ...]: one object per element of `items`, whose fields
  // `write(item)` writes.
  template <class Items, class Write>
  JsonWriter& arrayOfObjects(std::string_view name, const Items& items, Write&& write) {
    key(name).beginArray();
    for (const auto& item : items) {
      beginObject();
      write(item);
      endObject();
    }
    return endArray();
  }

  JsonWriter& value(std::string_view text);
  // Without this a string literal would convert to bool, not string_view.
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool b);
  // Shortest text that reads back as the same double; NaN and infinities,
  // which JSON cannot express, are written as null.
  JsonWriter& value(double d);
  // Every integer type, so that a uint32_t or an int does not become ambiguous
  // between the 64-bit overloads, double and bool.
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T n) {
    if constexpr (std::is_signed_v<T>) {
      return signedValue(static_cast<int64_t>(n));
    } else {
      return unsignedValue(static_cast<uint64_t>(n));
    }
  }
  JsonWriter& null();
  // A complete JSON value written elsewhere (another command's document),
  // trusted to be well-formed. Trailing whitespace is dropped and, in Pretty
  // style, its lines are indented to the current depth, so a document built
  // of documents reads as if written in one go.
  JsonWriter& rawValue(std::string_view json);

  // key(name) then value(v).
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  // False once the writer was used out of order (a value in an object without
  // a key, an end that does not match its begin, a second top-level value).
  // The offending call writes nothing, so the output stays well-formed as far
  // as it goes; tests check ok() after writing.
  bool ok() const { return ok_; }
  // ok() and exactly one top-level value has been written and closed.
  bool complete() const { return ok_ && done_ && stack_.empty(); }

  // Writes the buffered text to the stream (no-op when writing to a string).
  void flush();

 private:
  struct Frame {
    bool is_object = false;
    bool empty = true;
  };

  JsonWriter& signedValue(int64_t n);
  JsonWriter& unsignedValue(uint64_t n);
  // A number, true, false or null: `text` as it is.
  JsonWriter& scalar(std::string_view text);
  // Writes what goes before a value (comma, newline, indent) and says whether
  // a value may come here at all.
  bool beforeValue();
  JsonWriter& begin(bool is_object, char open);
  JsonWriter& end(bool is_object, char close);
  void afterValue();
  void newlineAndIndent(size_t depth);
  void misuse();
  void maybeFlush();

  std::string own_buffer_;  // used only when writing to a stream
  std::string* out_;
  std::ostream* stream_ = nullptr;
  Style style_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
  bool done_ = false;
  bool ok_ = true;
};

// `json` (a well-formed document, as a JsonWriter writes it) without the
// white space between its tokens: one line, as a newline-delimited message
// (the MCP's stdio transport) needs it.
std::string compactJson(std::string_view json);

}  // namespace goheap
