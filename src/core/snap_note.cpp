#include "core/snap_note.h"

#include <charconv>

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

}  // namespace

std::string formatSnapNote(const SnapNote& note) {
  std::string out;
  out.append("pid=").append(std::to_string(note.pid)).append("\n");
  out.append("exe=").append(oneLine(note.exe_path)).append("\n");
  out.append("build_id=").append(oneLine(note.build_id)).append("\n");
  out.append("go_version=").append(oneLine(note.go_version)).append("\n");
  if (!note.exe_copy.empty()) out.append("exe_copy=").append(oneLine(note.exe_copy)).append("\n");
  out.append("untouched_is_zero=").append(note.untouched_is_zero ? "1" : "0").append("\n");
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
  }
  return note;
}

}  // namespace goheap::core
