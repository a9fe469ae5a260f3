#include "core/snap_note.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "util/format.h"

namespace goheap::core {

namespace {

uint64_t toUint(std::string_view text) {
  uint64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// A value stays on its line: a path with a newline (possible, if perverse)
// is cut there rather than corrupting the next key.
std::string oneLine(std::string_view value) {
  return std::string(value.substr(0, value.find('\n')));
}

// A hex number that is all of `text`.
std::optional<uint64_t> hexValue(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// The next space-separated field of `text`, taken off it.
std::string_view takeField(std::string_view& text) {
  const size_t end = std::min(text.find(' '), text.size());
  const std::string_view field = text.substr(0, end);
  text.remove_prefix(std::min(end + 1, text.size()));
  return field;
}

// "START-END PERMS OFFSET RSS PATH", or nothing when it does not parse.
std::optional<SnapMapping> parseMapping(std::string_view text) {
  SnapMapping m;
  const std::string_view range = takeField(text);
  const size_t dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::optional<uint64_t> start = hexValue(range.substr(0, dash));
  const std::optional<uint64_t> end = hexValue(range.substr(dash + 1));
  m.perms = std::string(takeField(text));
  const std::optional<uint64_t> offset = hexValue(takeField(text));
  const std::string_view rss = takeField(text);
  uint64_t rss_value = 0;
  auto [rss_end, ec] = std::from_chars(rss.data(), rss.data() + rss.size(), rss_value);
  if (!start || !end || *start >= *end || m.perms.size() != 4 || !offset || rss.empty() ||
      ec != std::errc() || rss_end != rss.data() + rss.size() || rss_value > *end - *start) {
    return std::nullopt;
  }
  m.start = *start;
  m.end = *end;
  m.offset = *offset;
  m.rss = rss_value;
  m.path = std::string(text);
  return m;
}

}  // namespace

std::string formatSnapNote(const SnapNote& note) {
  std::string out;
  out.append("pid=").append(std::to_string(note.pid)).append("\n");
  out.append("exe=").append(oneLine(note.exe_path)).append("\n");
  out.append("build_id=").append(oneLine(note.build_id)).append("\n");
  out.append("go_version=").append(oneLine(note.go_version)).append("\n");
  if (!note.exe_copy.empty()) out.append("exe_copy=").append(oneLine(note.exe_copy)).append("\n");
  out.append("untouched_is_zero=").append(note.untouched_is_zero ? "1" : "0").append("\n");
  for (const SnapMapping& m : note.mappings) {
    out.append("mapping=")
        .append(formatHex(m.start).substr(2))
        .append("-")
        .append(formatHex(m.end).substr(2))
        .append(" ")
        .append(m.perms)
        .append(" ")
        .append(formatHex(m.offset).substr(2))
        .append(" ")
        .append(std::to_string(m.rss))
        .append(" ")
        .append(oneLine(m.path))
        .append("\n");
  }
  return out;
}

SnapNote parseSnapNote(std::string_view text) {
  SnapNote note;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    while (!line.empty() && line.back() == '\0') line.remove_suffix(1);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    if (key == "pid") note.pid = toUint(value);
    if (key == "exe") note.exe_path = std::string(value);
    if (key == "build_id") note.build_id = std::string(value);
    if (key == "go_version") note.go_version = std::string(value);
    if (key == "exe_copy") note.exe_copy = std::string(value);
    if (key == "untouched_is_zero") note.untouched_is_zero = value == "1";
    if (key == "mapping") {
      std::optional<SnapMapping> m = parseMapping(value);
      // Out of order or overlapping: as malformed as a line that does not parse.
      if (m && (note.mappings.empty() || note.mappings.back().end <= m->start)) {
        note.mappings.push_back(std::move(*m));
      } else {
        ++note.skipped_mapping_lines;
      }
    }
  }
  return note;
}

}  // namespace goheap::core
