// What the Go linker records about a build: the build info blob (Go
// version, main module, dependencies, build settings; read by
// debug/buildinfo and `go version -m`) and the build ID (`go tool buildid`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bin/container.h"
#include "util/error.h"

namespace goheap::bin {

struct ModuleVersion {
  std::string path, version, sum;
};

struct GoModule : ModuleVersion {
  std::optional<ModuleVersion> replace;  // a "=>" line after it
};

struct BuildInfo {
  std::string go_version;
  std::string path;  // the main package's import path
  GoModule main;
  std::vector<GoModule> deps;
  std::vector<std::pair<std::string, std::string>> settings;  // in file order
};

// The raw blob: the Go version and the module info text, its 16-byte
// sentinels removed (empty when the framing is not there, as debug/buildinfo
// reads it). nullopt when the file has no build info header. Before Go 1.18
// the header holds pointers to both strings, read through the segments.
struct RawBuildInfo {
  std::string go_version;
  std::string modinfo;
};
std::optional<RawBuildInfo> readRawBuildInfo(const Container& c);

// Parses module info text ("path\t...", "mod\t...", "dep\t...", "=>\t...",
// "build\tkey=value" lines, values quoted Go-style when they need it), the
// format runtime/debug.ParseBuildInfo reads. An Error names the line.
Expected<BuildInfo> parseModuleInfo(std::string_view text);

// Both: nullopt without a header; an Error for unparsable module info.
std::optional<Expected<BuildInfo>> readBuildInfo(const Container& c);

// The build ID: the ELF note "Go" type 4 (.note.go.buildid), else the string
// `\xff Go build ID: "..."\n \xff` near the start of the file or of the text
// (Mach-O, PE). Empty when there is none.
std::string readBuildId(const Container& c);

// Go's strconv.Unquote for "..." and `...` strings; nullopt when malformed.
std::optional<std::string> unquoteGoString(std::string_view quoted);

// The contents of the Go string whose header (pointer, length) is at `addr`,
// read through the file's segments; none when unreadable or longer than
// `max_length`.
std::optional<std::string> goStringAt(const Container& c, uint64_t addr, uint32_t ptr_size,
                                      bool big_endian, uint64_t max_length);

}  // namespace goheap::bin
