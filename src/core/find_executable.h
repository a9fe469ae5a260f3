// Which executable goes with a core. A core holds the process's memory but
// not its program's symbols, types or read-only data, so every command that
// reads a core needs the executable. The user may name it; else the core
// says where it was: the file mapped over the entry point (NT_FILE), the
// path the kernel was asked to run (AT_EXECFN, a string in the process's
// memory), and a copy may sit beside the core under the same name. Each
// candidate is opened and checked against the core (executable_match.h);
// the first that belongs to it is taken, and every one tried is kept so that
// a failure can say what was looked at.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bin/binary.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "util/error.h"

namespace goheap::core {

struct ExecutableCandidate {
  std::string path;
  // "the command line", "the running process", "the executable the core
  // carries", "the snap's copy", "the snap note", "NT_FILE", "AT_EXECFN",
  // "beside the core"
  std::string from;
  std::string problem;  // why it was not taken; empty for the one taken
  // For the executable a core of `snap -o -` carries: where it is in the
  // core file, which `path` then names.
  std::optional<CoreNotes::FileRange> part = std::nullopt;
};

// An executable opened and checked against a core.
struct CheckedExecutable {
  bin::Binary binary;
  ExecutableMatch match;  // whether it is the core's, and its load bias
};

struct ExecutableSearch {
  std::vector<ExecutableCandidate> tried;  // in the order tried
  std::optional<size_t> found;             // into `tried`
  // The one found, opened and checked while it was tried: a caller that
  // reads the core with it moves it out, and the file is opened once.
  std::optional<CheckedExecutable> opened;

  const ExecutableCandidate* executable() const { return found ? &tried[*found] : nullptr; }
  // For the user when nothing was found, one candidate a line:
  //   no executable belongs to core.1234; tried:
  //     /srv/app (NT_FILE): no such file
  //     ./app (beside the core): core and executable do not match: entry ...
  std::string explain(std::string_view core_path) const;
};

// Opens the executable at `path` and checks it against `core`: an Error only
// when it cannot be opened; a mismatch is in `match`.
Expected<CheckedExecutable> openExecutable(const CoreFile& core, const std::string& path);
// The same for the executable within the file at `path`, at `part`.
Expected<CheckedExecutable> openExecutable(const CoreFile& core, const std::string& path,
                                           const CoreNotes::FileRange& part);

// Finds the executable of `core`, read from `core_path`. With `given` (the
// command line named one) only that one is tried: a user's choice is not
// second-guessed, a mismatch is reported instead. `running_exe`: the
// executable of the process the core was just snapped from, through
// /proc/PID/exe, when the path the core records does not reach it in
// goheap's mount namespace (a process in a container); tried first, as
// "the running process".
ExecutableSearch findExecutable(const CoreFile& core, std::string_view core_path,
                                std::optional<std::string_view> given,
                                std::optional<std::string_view> running_exe = std::nullopt);

}  // namespace goheap::core
