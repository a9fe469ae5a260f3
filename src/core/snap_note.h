// The note `goheap snap` adds to the cores it writes (owner "GOHEAP", type
// kNtGoheapSnap): where the process's executable was, its build ID, the name
// of the copy made beside the core (--with-exe), and the promise that makes
// a snap core small: a writable PT_LOAD segment holding fewer bytes in the
// file than in memory reads as zero past them. The kernel and gcore leave
// memory out only where it is unknown; snap leaves out the pages of
// anonymous memory the process never touched (or gave back), which are zero.
//
// The descriptor is text, one "key=value" line each, so that the format can
// grow: a reader ignores keys it does not know. It also lists every mapping
// of the process as /proc/PID/maps had it, with its Rss from
// /proc/PID/smaps, those snap did not copy included (reservations, shared
// file mappings), one "mapping=" line each:
//   mapping=START-END PERMS OFFSET RSS PATH
// START, END and OFFSET in hex as maps writes them, RSS in bytes, PATH as
// maps names it ("" for anonymous memory, "[heap]", a file's path).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goheap::core {

constexpr std::string_view kGoheapNoteOwner = "GOHEAP";
constexpr uint32_t kNtGoheapSnap = 1;
// A second note of owner "GOHEAP", written by `goheap snap -o -`: the
// process's executable, whole, as its descriptor, so that a core streamed
// out of a container carries its program with it. Other tools skip a note
// they do not know.
constexpr uint32_t kNtGoheapExecutable = 2;

// One line of /proc/PID/maps when the process was snapped, with its Rss.
struct SnapMapping {
  uint64_t start = 0, end = 0;
  std::string perms;    // "rw-p", as maps writes it
  uint64_t offset = 0;  // in the file
  uint64_t rss = 0;     // bytes resident (smaps' Rss)
  std::string path;     // "", "[heap]", "[stack]", "/usr/lib/...": may hold spaces

  bool readable() const { return !perms.empty() && perms[0] == 'r'; }
  bool writable() const { return perms.size() > 1 && perms[1] == 'w'; }
  bool executable() const { return perms.size() > 2 && perms[2] == 'x'; }
  bool shared() const { return perms.size() > 3 && perms[3] == 's'; }
};

struct SnapNote {
  uint64_t pid = 0;
  std::string exe_path;    // /proc/PID/exe when snapped, " (deleted)" removed
  std::string build_id;    // the Go build ID, empty when none
  std::string go_version;  // "go1.26.1"
  std::string exe_copy;    // the copy's file name, in the core's folder; empty when none
  bool untouched_is_zero = false;
  // Every mapping, by address; empty in a snap of an older goheap.
  std::vector<SnapMapping> mappings;
  // "mapping=" lines that did not parse, skipped.
  uint64_t skipped_mapping_lines = 0;
};

std::string formatSnapNote(const SnapNote& note);
// Keys it does not know and malformed lines are ignored: nothing in the note
// is needed to read the core, only to find its executable.
SnapNote parseSnapNote(std::string_view text);

}  // namespace goheap::core
