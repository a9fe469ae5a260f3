#include "mcp/heap_access.h"

#include <filesystem>
#include <system_error>

#include "acquire/http_url.h"
#include "util/format.h"
#include "util/text.h"

namespace goheap::mcp {

namespace {

namespace fs = std::filesystem;

// `path` made absolute against `base`, with its symbolic links and ".."
// resolved as far as it exists.
std::string resolved(std::string_view path, const std::string& base) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base) / p;
  std::error_code error;
  fs::path r = fs::weakly_canonical(p, error);
  return (error ? p.lexically_normal() : r).string();
}

bool isUnder(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir ||
         (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

}  // namespace

std::optional<std::string> pathOfFileUri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (!uri.starts_with(kScheme)) return std::nullopt;
  uri.remove_prefix(kScheme.size());
  // file:///path, or file://localhost/path: this machine only.
  if (uri.starts_with("localhost/")) uri.remove_prefix(9);
  if (!uri.starts_with('/')) return std::nullopt;
  uri = uri.substr(0, uri.find_first_of("?#"));
  std::optional<std::string> path = percentDecode(uri, false);
  // A NUL would end the path early where the system reads it.
  if (!path || path->find('\0') != std::string::npos) return std::nullopt;
  return path;
}

HeapAccess::HeapAccess(AccessRules rules, std::string working_dir)
    : rules_(std::move(rules)), working_dir_(std::move(working_dir)) {
  for (std::string& dir : rules_.allowed_dirs) dir = resolved(dir, working_dir_);
}

void HeapAccess::setRoots(const std::optional<std::vector<std::string>>& uris) {
  std::vector<std::string> dirs;
  if (uris) {
    for (const std::string& uri : *uris) {
      if (std::optional<std::string> path = pathOfFileUri(uri)) {
        dirs.push_back(resolved(*path, working_dir_));
      }
    }
    // Roots declared, none of them a folder here: nothing is readable but
    // the --allow-dir folders. An impossible path keeps the list non-empty.
    if (dirs.empty()) dirs.emplace_back("\n");
  }
  std::lock_guard lock(mu_);
  roots_ = std::move(dirs);
}

std::vector<std::string> HeapAccess::readableDirs() const {
  std::vector<std::string> dirs;
  {
    std::lock_guard lock(mu_);
    for (const std::string& r : roots_) {
      if (r != "\n") dirs.push_back(r);
    }
    if (roots_.empty()) dirs.push_back(resolved(".", working_dir_));
  }
  dirs.insert(dirs.end(), rules_.allowed_dirs.begin(), rules_.allowed_dirs.end());
  return dirs;
}

Expected<std::string> HeapAccess::file(std::string_view path, std::string_view parameter) const {
  const std::string full = resolved(path, working_dir_);
  const std::vector<std::string> dirs = readableDirs();
  for (const std::string& dir : dirs) {
    if (isUnder(full, dir)) return full;
  }
  std::string list;
  for (const std::string& dir : dirs) list += (list.empty() ? "" : ", ") + dir;
  bool declared;
  {
    std::lock_guard lock(mu_);
    declared = !roots_.empty();
  }
  return Error::needsInput("refused: " + full + " is outside the folders goheap mcp may read (" +
                           (list.empty() ? std::string("none") : list) + "; " +
                           (declared ? "the client's roots"
                                     : "the server's working directory, as the client "
                                       "declares no roots") +
                           ", and the --allow-dir folders); start the server with --allow-dir " +
                           fs::path(full).parent_path().string() + " to allow it")
      .atParameter(parameter);
}

Expected<std::string> HeapAccess::url(std::string_view text, std::string_view parameter) const {
  Expected<acquire::HttpUrl> parsed = acquire::parseHttpUrl(text);
  if (!parsed) {
    return Error::needsInput(std::string(text) + ": " + parsed.error().message())
        .atParameter(parameter);
  }
  const std::string normal = parsed->text();
  if (acquire::isLoopbackHost(parsed->host)) return normal;
  for (const std::string& prefix : rules_.url_prefixes) {
    // A prefix matches at a boundary: http://host:6060 is not a prefix of
    // http://host:60601/ or http://host:6060.example.com/.
    if (!normal.starts_with(prefix)) continue;
    if (prefix.ends_with('/') || normal.size() == prefix.size() ||
        std::string_view("/?").find(normal[prefix.size()]) != std::string_view::npos) {
      return normal;
    }
  }
  return Error::needsInput("refused: " + normal +
                           " is not on loopback, and asking it for a heap dump stops that "
                           "program's world; start the server with --allow-url http://" +
                           parsed->hostHeader() + "/ to allow it")
      .atParameter(parameter);
}

Expected<query::Source> HeapAccess::source(std::string_view text, std::string_view executable,
                                           std::string label, std::string_view parameter) const {
  query::Source source;
  source.label = std::move(label);
  if (text.starts_with("pid:")) {
    Expected<uint64_t> pid = parseUint(text.substr(4));
    if (!pid || *pid == 0 || *pid > 0x7fffffff) {
      return Error::needsInput("bad value for " + std::string(parameter) + ": \"" +
                               std::string(text) + "\" is not pid: and a process ID")
          .atParameter(parameter);
    }
    if (!rules_.allow_pid) {
      return Error::needsInput("refused: snapping a running process (" + std::string(text) +
                               ") stops it for a moment and reads all its memory; start the "
                               "server with --allow-pid to allow it")
          .atParameter(parameter);
    }
    source.heap = query::LiveProcess{static_cast<int>(*pid)};
  } else if (text.find("://") != std::string_view::npos) {
    GOHEAP_TRY(std::string checked, url(text, parameter));
    source.heap = query::HeapUrl{std::move(checked)};
  } else {
    GOHEAP_TRY(std::string checked, file(text, parameter));
    source.heap = query::HeapFile{std::move(checked)};
  }
  if (!executable.empty()) {
    GOHEAP_TRY(std::string exe, file(executable, "executable"));
    source.exe_path = std::move(exe);
  }
  return source;
}

}  // namespace goheap::mcp
