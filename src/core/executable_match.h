// Whether an executable is the one whose process a core holds, and where it
// was loaded: (a) its path among the core's NT_FILE mappings, (b) the
// auxiliary vector's AT_ENTRY against its entry point plus the load bias,
// (c) the text bytes the core holds against the executable's (the kernel
// keeps the first page, with the ELF headers and the Go build ID), (d) the
// Go build info (.go.buildinfo: the Go version, modules and settings) in the
// core's data against the executable's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bin/container.h"
#include "core/core_file.h"

namespace goheap::core {

// `path` made absolute with symbolic links resolved; as given when that
// fails. Paths of executables are compared so.
std::string canonicalPath(std::string_view path);

// Run-time address minus link-time address: for a position-independent
// executable AT_ENTRY minus its entry point, else (or without AT_ENTRY) 0.
uint64_t loadBias(const CoreFile& core, const bin::Container& exe);

struct MatchCheck {
  std::string name;      // "path", "entry", "text"
  bool checked = false;  // false when the core cannot tell (no NT_FILE, no AT_ENTRY, ...)
  bool ok = false;
  std::string detail;  // what was compared, or how they differ
};

struct ExecutableMatch {
  uint64_t bias = 0;
  std::vector<MatchCheck> checks;
  // No check that could be made failed; a path that differs fails only
  // when neither the entry nor the text could be compared.
  bool matches() const;
  bool failed(const MatchCheck& c) const;
  // "core and executable do not match: entry 0x401000 vs 0x45e1a0"; empty
  // when they match.
  std::string mismatch() const;
};

// `exe_path` is the path the executable was opened by; it is compared,
// made absolute and with symbolic links resolved, with NT_FILE's paths, and
// by base name when no path is equal.
ExecutableMatch checkExecutable(const CoreFile& core, const bin::Container& exe,
                                std::string_view exe_path);

}  // namespace goheap::core
