// Separate debug files, found the way gdb, delve and perf find them. A
// distribution strips its executables and ships their DWARF apart (Debian's
// -dbgsym packages: `objcopy --only-keep-debug EXE EXE.debug`, then
// `objcopy --strip-debug --add-gnu-debuglink=EXE.debug EXE`); the stripped
// executable names its debug file two ways:
//   - its GNU build ID (the ELF note NT_GNU_BUILD_ID), whose hex digits
//     name DIR/.build-id/ab/cdef....debug in a debug folder;
//   - its .gnu_debuglink section: a file name and the CRC-32 of that file.
// Go's own linker writes a GNU build ID by default since Go 1.24; before, only
// when asked (-ldflags=-B=gobuildid, or -B 0xHEX); externally linked builds
// have one.
//
// Nothing here reads the environment or keeps state: the folders to search
// are passed in, and the search says what it tried, for messages.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bin/container.h"

namespace goheap::bin {

// The folder searched after the ones the user gives (--debug-dir), as gdb's
// default debug-file-directory.
inline constexpr std::string_view kSystemDebugDir = "/usr/lib/debug";

// The GNU build ID of an ELF file (the NT_GNU_BUILD_ID note in
// .note.gnu.build-id) as lower-case hex digits; empty when it has none.
std::string gnuBuildId(const Container& c);

// What .gnu_debuglink says: the debug file's name (no folder) and the CRC-32
// of its bytes.
struct DebugLink {
  std::string name;
  uint32_t crc = 0;
};
// The .gnu_debuglink of an ELF file; nothing when it has none or it is
// malformed (no NUL-terminated name, no room for the CRC).
std::optional<DebugLink> debugLink(const Container& c);

// The CRC-32 (ISO 3309, as zlib and gdb's gnu_debuglink_crc32 compute it) of
// `bytes`.
uint32_t debugLinkCrc(std::span<const uint8_t> bytes);

// Whether the container holds DWARF of its own (a .debug_info section, or
// the Mach-O or compressed spellings of it).
bool hasOwnDebugInfo(const Container& c);

// The build ID's file under a debug folder: DIR/.build-id/ab/cdef....debug.
// Empty for a build ID shorter than two bytes (gdb needs at least that).
std::string buildIdDebugPath(std::string_view debug_dir, std::string_view build_id);

struct DebugFileSearch {
  std::string path;      // the debug file found; empty when none
  std::string found_by;  // "build ID", ".gnu_debuglink"
  // Each place looked at, and why it was not taken, in the order tried:
  // "/usr/lib/debug/.build-id/ab/cd.debug: no such file".
  std::vector<std::string> tried;
  // The executable's GNU build ID (hex) and debug link name, as read; empty
  // when it has none.
  std::string build_id;
  std::string link_name;

  bool found() const { return !path.empty(); }
  // Why none was found, for a message: what the executable names its debug
  // file by and every place tried, or that it names none.
  std::string explain() const;
};

// The file system of a process whose executable goheap reads through
// /proc/PID/exe because the path it runs from does not reach it here (a
// container's): its root as goheap reaches it, /proc/PID/root, and the
// executable's path as the process sees it. Empty for an executable that is
// where its path says.
struct ProcessFiles {
  std::string root;
  std::string exe_path;
};

// Looks for the separate debug file of the executable at `exe_path` (its
// container `exe`), in this order:
//   1. by GNU build ID, DIR/.build-id/ab/cdef....debug in each of
//      `debug_dirs` and then kSystemDebugDir;
//   2. by .gnu_debuglink NAME: in the executable's folder, in its .debug/
//      subfolder, then DIR + the executable's folder + "/" + NAME for each
//      debug folder (gdb's global debug folders).
// A candidate is taken when it is an ELF file with DWARF and, found by build
// ID, has the same build ID, or, found by link, the CRC the link names.
// With `process` (a process in a container), its own kSystemDebugDir is a
// debug folder after the others, and the executable's folder is the one it
// runs from, in its file system.
DebugFileSearch findDebugFile(const std::string& exe_path, const Container& exe,
                              std::span<const std::string> debug_dirs,
                              const ProcessFiles& process = {});

// Checks that the file at `path` can serve `exe`'s DWARF: an ELF file with a
// .debug_info section for the same machine and, when both have one, the same
// GNU build ID. The reason when it cannot; empty when it can.
std::string debugFileMismatch(const Container& exe, const Container& debug);

}  // namespace goheap::bin
