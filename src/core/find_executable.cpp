#include "core/find_executable.h"

#include <filesystem>
#include <system_error>

#include "bin/binary.h"
#include "core/executable_match.h"
#include "core/memory_image.h"

namespace goheap::core {

namespace {

namespace fs = std::filesystem;

// AT_EXECFN points at a NUL-terminated path on the initial stack; Linux
// limits paths to PATH_MAX (4096) bytes.
constexpr uint64_t kMaxPath = 4096;

// The file mapped over the entry point: the executable, not a shared
// library or the dynamic loader. Without AT_ENTRY, the first mapping (the
// kernel lists mappings by address, and a Go executable is mapped first).
std::optional<std::string> mappedExecutable(const CoreFile& core) {
  if (core.files().empty()) return std::nullopt;
  const FileMapping* chosen = &core.files().front();
  if (const std::optional<uint64_t> entry = core.aux(kAtEntry)) {
    for (const FileMapping& m : core.files()) {
      if (*entry >= m.start && *entry < m.end) {
        chosen = &m;
        break;
      }
    }
  }
  return std::string(chosen->pathWithoutDeleted());
}

// The string AT_EXECFN points to, when the core holds it.
std::optional<std::string> execFileName(const CoreFile& core) {
  const std::optional<uint64_t> addr = core.aux(kAtExecfn);
  if (!addr) return std::nullopt;
  const MemoryImage memory(core);
  std::string path;
  for (uint64_t i = 0; i < kMaxPath; i++) {
    Expected<std::span<const uint8_t>> b = memory.read(*addr + i, 1);
    if (!b) return std::nullopt;
    if ((*b)[0] == 0) break;
    path.push_back(static_cast<char>((*b)[0]));
  }
  if (path.empty()) return std::nullopt;
  return path;
}

// Why `path` is not the executable of `core`, or "" when it is, and then
// `opened` holds it.
std::string problemWith(const CoreFile& core, const ExecutableCandidate& candidate,
                        std::optional<CheckedExecutable>& opened) {
  const std::string& path = candidate.path;
  std::error_code ec;
  if (!fs::exists(path, ec)) return "no such file";
  if (fs::is_directory(path, ec)) return "a directory";
  Expected<CheckedExecutable> exe =
      candidate.part ? openExecutable(core, path, *candidate.part) : openExecutable(core, path);
  if (!exe) return exe.error().message();
  if (!exe->match.matches()) return exe->match.mismatch();
  opened = exe.take();
  return "";
}

}  // namespace

Expected<CheckedExecutable> openExecutable(const CoreFile& core, const std::string& path) {
  GOHEAP_TRY(bin::Binary binary, bin::Binary::open(path));
  ExecutableMatch match = checkExecutable(core, binary.container(), path);
  return CheckedExecutable{std::move(binary), std::move(match)};
}

Expected<CheckedExecutable> openExecutable(const CoreFile& core, const std::string& path,
                                           const CoreNotes::FileRange& part) {
  GOHEAP_TRY(bin::Binary binary, bin::Binary::openPart(path, part.offset, part.size));
  ExecutableMatch match = checkExecutable(core, binary.container(), path);
  return CheckedExecutable{std::move(binary), std::move(match)};
}

std::string ExecutableSearch::explain(std::string_view core_path) const {
  std::string out = "no executable belongs to " + std::string(core_path);
  if (tried.empty()) {
    return out + ": the core names none (no NT_FILE note, no AT_EXECFN); give it after the core";
  }
  out += "; tried:";
  for (const ExecutableCandidate& c : tried) {
    out += "\n  " + c.path + " (" + c.from + "): " + c.problem;
  }
  return out;
}

ExecutableSearch findExecutable(const CoreFile& core, std::string_view core_path,
                                std::optional<std::string_view> given,
                                std::optional<std::string_view> running_exe) {
  std::vector<ExecutableCandidate> candidates;
  auto add = [&](std::string path, const char* from) {
    const std::string canonical = canonicalPath(path);
    for (const ExecutableCandidate& c : candidates) {
      if (canonicalPath(c.path) == canonical) return;
    }
    candidates.push_back({std::move(path), from, ""});
  };
  if (given) {
    add(std::string(*given), "the command line");
  } else {
    if (running_exe) add(std::string(*running_exe), "the running process");
    // `snap -o -` streams the executable inside the core.
    if (const std::optional<CoreNotes::FileRange>& carried = core.carriedExecutable()) {
      candidates.push_back(
          {std::string(core_path), "the executable the core carries", "", *carried});
    }
    const fs::path core_dir = fs::path(std::string(core_path)).parent_path();
    if (const std::optional<SnapNote>& snap = core.snapNote()) {
      // goheap snap said where the program was, and where it put its copy.
      if (!snap->exe_copy.empty()) {
        add((core_dir / fs::path(snap->exe_copy).filename()).string(), "the snap's copy");
      }
      if (!snap->exe_path.empty()) add(snap->exe_path, "the snap note");
    }
    const std::optional<std::string> mapped = mappedExecutable(core);
    const std::optional<std::string> exec_fn = execFileName(core);
    if (mapped) add(*mapped, "NT_FILE");
    if (exec_fn) add(*exec_fn, "AT_EXECFN");
    // A copy beside the core, under the name the process ran as: a core
    // and its program are often copied off a machine together.
    const fs::path& dir = core_dir;
    for (const std::optional<std::string>& named : {mapped, exec_fn}) {
      if (named) add((dir / fs::path(*named).filename()).string(), "beside the core");
    }
    if (core.process() && !core.process()->name.empty()) {
      add((dir / std::string(core.process()->name)).string(), "beside the core");
    }
  }
  ExecutableSearch search;
  for (ExecutableCandidate& c : candidates) {
    c.problem = problemWith(core, c, search.opened);
    search.tried.push_back(c);
    if (c.problem.empty()) {
      search.found = search.tried.size() - 1;
      break;
    }
  }
  return search;
}

}  // namespace goheap::core
