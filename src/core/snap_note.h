// The note `goheap snap` adds to the cores it writes (owner "GOHEAP", type
// kNtGoheapSnap): where the process's executable was, its build ID, the name
// of the copy made beside the core (--with-exe), and the promise that makes
// a snap core small: a writable PT_LOAD segment holding fewer bytes in the
// file than in memory reads as zero past them. The kernel and gcore leave
// memory out only where it is unknown; snap leaves out the pages of
// anonymous memory the process never touched (or gave back), which are zero.
//
// The descriptor is text, one "key=value" line each, so that the format can
// grow: a reader ignores keys it does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace goheap::core {

constexpr std::string_view kGoheapNoteOwner = "GOHEAP";
constexpr uint32_t kNtGoheapSnap = 1;

struct SnapNote {
  uint64_t pid = 0;
  std::string exe_path;    // /proc/PID/exe when snapped, " (deleted)" removed
  std::string build_id;    // the Go build ID, empty when none
  std::string go_version;  // "go1.26.1"
  std::string exe_copy;    // the copy's file name, in the core's folder; empty when none
  bool untouched_is_zero = false;
};

std::string formatSnapNote(const SnapNote& note);
// Keys it does not know and malformed lines are ignored: nothing in the note
// is needed to read the core, only to find its executable.
SnapNote parseSnapNote(std::string_view text);

}  // namespace goheap::core
