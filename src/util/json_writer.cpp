#include "util/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <ostream>

namespace goheap {
namespace {

constexpr std::string_view kReplacement = "\\ufffd";

// The shortest text of `n` in `buf`; empty if it does not fit (32 bytes hold
// any double or 64-bit integer, so only a library bug would do that).
template <class N>
std::string_view decimal(std::array<char, 32>& buf, N n) {
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), n);
  return ec == std::errc() ? std::string_view(buf.data(), static_cast<size_t>(end - buf.data()))
                           : std::string_view();
}

bool inRange(unsigned char c, unsigned lo, unsigned hi) {
  return c >= lo && c <= hi;
}

// Length of the well-formed UTF-8 sequence at text[i], or 0 if it is
// ill-formed; then `bad` is the length of the maximal ill-formed subpart
// (Unicode ch. 3, "U+FFFD substitution of maximal subparts"), at least 1.
size_t utf8Sequence(std::string_view text, size_t i, size_t& bad) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t need = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (inRange(lead, 0xC2, 0xDF)) {
    need = 2;
  } else if (lead == 0xE0) {
    need = 3, lo = 0xA0;  // no overlong forms
  } else if (inRange(lead, 0xE1, 0xEC) || inRange(lead, 0xEE, 0xEF)) {
    need = 3;
  } else if (lead == 0xED) {
    need = 3, hi = 0x9F;  // no surrogates
  } else if (lead == 0xF0) {
    need = 4, lo = 0x90;  // no overlong forms
  } else if (inRange(lead, 0xF1, 0xF3)) {
    need = 4;
  } else if (lead == 0xF4) {
    need = 4, hi = 0x8F;  // nothing above U+10FFFF
  } else {
    bad = 1;
    return 0;
  }
  size_t k = 1;
  for (; k < need && i + k < text.size(); ++k) {
    unsigned char c = byte(i + k);
    bool fits = k == 1 ? inRange(c, lo, hi) : inRange(c, 0x80, 0xBF);
    if (!fits) break;
  }
  if (k == need) return need;
  bad = k;
  return 0;
}

void appendControl(std::string& out, unsigned char c) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  out += "\\u00";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  size_t run = 0;  // start of the bytes that need no escaping
  size_t i = 0;
  auto flushRun = [&] { out.append(text.data() + run, i - run); };
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t bad = 0;
      size_t len = utf8Sequence(text, i, bad);
      bool separator = len == 3 && c == 0xE2 && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                       (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xA8;
      if (len != 0 && !separator) {
        i += len;
        continue;
      }
      flushRun();
      if (separator) {
        out += static_cast<unsigned char>(text[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
        i += 3;
      } else {
        out += kReplacement;
        i += bad;
      }
      run = i;
      continue;
    }
    flushRun();
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        appendControl(out, c);
        break;
    }
    ++i;
    run = i;
  }
  flushRun();
  out += '"';
}

JsonWriter::JsonWriter(std::string& out, Style style) : out_(&out), style_(style) {}

JsonWriter::JsonWriter(std::ostream& out, Style style)
    : out_(&own_buffer_), stream_(&out), style_(style) {}

JsonWriter::~JsonWriter() {
  flush();
}

void JsonWriter::flush() {
  if (stream_ == nullptr || own_buffer_.empty()) return;
  stream_->write(own_buffer_.data(), static_cast<std::streamsize>(own_buffer_.size()));
  own_buffer_.clear();
}

void JsonWriter::maybeFlush() {
  // Large enough that the stream sees few writes, small enough that a huge
  // report is never held whole.
  if (stream_ != nullptr && own_buffer_.size() >= (64u << 10)) flush();
}

void JsonWriter::misuse() {
  ok_ = false;
}

void JsonWriter::newlineAndIndent(size_t depth) {
  *out_ += '\n';
  out_->append(2 * depth, ' ');
}

bool JsonWriter::beforeValue() {
  if (stack_.empty()) {
    if (done_) {
      misuse();
      return false;
    }
    return true;
  }
  Frame& top = stack_.back();
  if (top.is_object) {
    if (!after_key_) {
      misuse();
      return false;
    }
    after_key_ = false;
    return true;
  }
  if (!top.empty) *out_ += ',';
  if (style_ == Style::Pretty) newlineAndIndent(stack_.size());
  top.empty = false;
  return true;
}

void JsonWriter::afterValue() {
  if (!stack_.empty()) return;
  done_ = true;
  if (style_ == Style::Pretty) *out_ += '\n';
  maybeFlush();
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || !stack_.back().is_object || after_key_) {
    misuse();
    return *this;
  }
  Frame& top = stack_.back();
  if (!top.empty) *out_ += ',';
  if (style_ == Style::Pretty) newlineAndIndent(stack_.size());
  top.empty = false;
  appendJsonString(*out_, name);
  *out_ += style_ == Style::Pretty ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin(bool is_object, char open) {
  if (!beforeValue()) return *this;
  *out_ += open;
  stack_.push_back(Frame{is_object, true});
  return *this;
}

JsonWriter& JsonWriter::end(bool is_object, char close) {
  if (stack_.empty() || stack_.back().is_object != is_object || after_key_) {
    misuse();
    return *this;
  }
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (style_ == Style::Pretty && !empty) newlineAndIndent(stack_.size());
  *out_ += close;
  afterValue();
  maybeFlush();
  return *this;
}

JsonWriter& JsonWriter::beginObject() {
  return begin(true, '{');
}
JsonWriter& JsonWriter::endObject() {
  return end(true, '}');
}
JsonWriter& JsonWriter::beginArray() {
  return begin(false, '[');
}
JsonWriter& JsonWriter::endArray() {
  return end(false, ']');
}

JsonWriter& JsonWriter::value(std::string_view text) {
  if (!beforeValue()) return *this;
  appendJsonString(*out_, text);
  afterValue();
  return *this;
}

JsonWriter& JsonWriter::rawValue(std::string_view json) {
  if (!beforeValue()) return *this;
  while (!json.empty() && (json.back() == '\n' || json.back() == ' ')) json.remove_suffix(1);
  if (style_ == Style::Pretty && !stack_.empty()) {
    const std::string indent(2 * stack_.size(), ' ');
    size_t start = 0;
    while (start <= json.size()) {
      const size_t newline = json.find('\n', start);
      const std::string_view line =
          json.substr(start, newline == std::string_view::npos ? json.npos : newline - start);
      if (start != 0) {
        *out_ += '\n';
        *out_ += indent;
      }
      *out_ += line;
      if (newline == std::string_view::npos) break;
      start = newline + 1;
    }
  } else {
    *out_ += json;
  }
  afterValue();
  maybeFlush();
  return *this;
}

JsonWriter& JsonWriter::scalar(std::string_view text) {
  if (!beforeValue()) return *this;
  *out_ += text;
  afterValue();
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  return scalar(b ? "true" : "false");
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  std::array<char, 32> buf{};
  const std::string_view text = decimal(buf, d);
  return scalar(text.empty() ? "null" : text);
}

JsonWriter& JsonWriter::signedValue(int64_t n) {
  std::array<char, 32> buf{};
  return scalar(decimal(buf, n));
}

JsonWriter& JsonWriter::unsignedValue(uint64_t n) {
  std::array<char, 32> buf{};
  return scalar(decimal(buf, n));
}

JsonWriter& JsonWriter::null() {
  return scalar("null");
}

std::string compactJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  bool escaped = false;
  for (const char c : json) {
    if (in_string) {
      out += c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '"') in_string = true;
    out += c;
  }
  return out;
}

}  // namespace goheap
