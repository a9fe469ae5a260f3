#include "cache/entry_description.h"

#include <cstdint>
#include <string_view>

#include "util/format.h"

namespace goheap::cache {

namespace {

constexpr std::string_view kFirstLine = "goheap index description 1\n";

// A value on one line: backslashes and line ends escaped (a path may hold
// either).
void appendEscaped(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

Expected<std::string> unescape(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '\\') {
      out += value[i];
      continue;
    }
    if (++i == value.size()) return Error("a value ends in a lone backslash");
    if (value[i] == '\\') {
      out += '\\';
    } else if (value[i] == 'n') {
      out += '\n';
    } else {
      return Error("a value has an unknown escape \\" + std::string(1, value[i]));
    }
  }
  return out;
}

Expected<int64_t> parseSigned(std::string_view text) {
  const bool negative = text.starts_with('-');
  GOHEAP_TRY(uint64_t magnitude, parseUint(negative ? text.substr(1) : text));
  if (magnitude > static_cast<uint64_t>(INT64_MAX)) return Error("a number is out of range");
  const auto value = static_cast<int64_t>(magnitude);
  return negative ? -value : value;
}

}  // namespace

std::vector<uint8_t> EntryDescription::encode() const {
  std::string text(kFirstLine);
  auto line = [&](std::string_view name, std::string_view value) {
    text.append(name).append("=");
    appendEscaped(text, value);
    text += '\n';
  };
  line("input_path", input_path);
  line("input_size", std::to_string(input_size));
  line("input_mtime_ns", std::to_string(input_mtime_ns));
  line("exe_path", exe_path);
  line("goheap_version", goheap_version);
  line("created_ns", std::to_string(created_ns));
  return {text.begin(), text.end()};
}

Expected<EntryDescription> EntryDescription::decode(std::span<const uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!text.starts_with(kFirstLine)) return Error("the description does not start as one does");
  EntryDescription d;
  size_t at = kFirstLine.size();
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    if (end == std::string_view::npos) return Error("the description's last line is unfinished");
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos) return Error("a description line has no '='");
    const std::string_view name = line.substr(0, equals);
    GOHEAP_TRY(std::string value, unescape(line.substr(equals + 1)));
    if (name == "input_path") {
      d.input_path = std::move(value);
    } else if (name == "exe_path") {
      d.exe_path = std::move(value);
    } else if (name == "goheap_version") {
      d.goheap_version = std::move(value);
    } else if (name == "input_size") {
      GOHEAP_TRY(uint64_t n, parseUint(value));
      d.input_size = n;
    } else if (name == "input_mtime_ns" || name == "created_ns") {
      GOHEAP_TRY(int64_t n, parseSigned(value));
      (name == "created_ns" ? d.created_ns : d.input_mtime_ns) = n;
    }
  }
  return d;
}

}  // namespace goheap::cache
