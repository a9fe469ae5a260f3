#include "cache/cache_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "util/format.h"
#include "util/signal_cleanup.h"

namespace goheap::cache {

namespace {

constexpr std::string_view kEntrySuffix = ".ghx";
constexpr std::string_view kTemporaryInfix = ".ghx.tmp.";
constexpr size_t kKeyHexDigits = 64;

bool isKeyHex(std::string_view name) {
  return name.size() >= kKeyHexDigits && Key::fromHex(name.substr(0, kKeyHexDigits)).has_value();
}

bool isEntryName(std::string_view name) {
  return name.size() == kKeyHexDigits + kEntrySuffix.size() && isKeyHex(name) &&
         name.ends_with(kEntrySuffix);
}

// "<hex>.ghx.tmp.<pid>.<6 characters>", as store() makes them.
bool isTemporaryName(std::string_view name) {
  if (!isKeyHex(name)) return false;
  std::string_view rest = name.substr(kKeyHexDigits);
  if (!rest.starts_with(kTemporaryInfix)) return false;
  rest.remove_prefix(kTemporaryInfix.size());
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string_view::npos || rest.size() - dot - 1 != 6) return false;
  return std::all_of(rest.begin(), rest.begin() + static_cast<ptrdiff_t>(dot),
                     [](char c) { return c >= '0' && c <= '9'; });
}

int64_t nowNs() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

int64_t mtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Makes `path` and its missing parents, each 0700 (a cache holds what the
// heaps hold: nobody else's business). An existing folder keeps its mode.
Status makeFolders(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Error(path + " is " + fileKindName(st.st_mode));
    return Status::success();
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    if (Status s = makeFolders(path.substr(0, slash)); !s) return s;
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Error::io("cannot create " + path + ": " + std::strerror(errno));
  }
  return Status::success();
}

// The names in a folder; an Error with strerror when it cannot be read.
Expected<std::vector<std::string>> folderNames(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return Error::io("cannot read " + path + ": " + std::strerror(errno));
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir)) names.emplace_back(e->d_name);
  ::closedir(dir);
  return names;
}

}  // namespace

CacheEnvironment CacheEnvironment::fromProcess() {
  CacheEnvironment env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME")) env.xdg_cache_home = xdg;
  if (const char* home = std::getenv("HOME")) env.home = home;
  return env;
}

std::optional<std::string> cacheDirectoryPath(const std::string& explicit_dir,
                                              const CacheEnvironment& env) {
  if (!explicit_dir.empty()) return explicit_dir;
  if (env.xdg_cache_home.starts_with('/')) return env.xdg_cache_home + "/goheap";
  if (!env.home.empty()) return env.home + "/.cache/goheap";
  return std::nullopt;
}

CacheDirectory CacheDirectory::open(const std::string& explicit_dir, uint64_t max_bytes,
                                    const CacheEnvironment& env) {
  CacheDirectory dir;
  dir.max_bytes_ = max_bytes;
  const std::optional<std::string> where = cacheDirectoryPath(explicit_dir, env);
  if (!where) {
    dir.turnOff("neither $XDG_CACHE_HOME nor $HOME is set (--cache DIR names a folder)");
    return dir;
  }
  dir.path_ = *where;
  while (dir.path_.size() > 1 && dir.path_.ends_with('/')) dir.path_.pop_back();
  if (Status s = makeFolders(dir.path_); !s) {
    dir.turnOff(s.error().message());
    return dir;
  }
  if (::access(dir.path_.c_str(), W_OK | X_OK) != 0) {
    dir.turnOff("cannot write in " + dir.path_ + ": " + std::strerror(errno));
    return dir;
  }
  dir.usable_ = true;
  return dir;
}

void CacheDirectory::turnOff(std::string reason) {
  usable_ = false;
  warning_ = "the index cache is off: " + std::move(reason) +
             "; goheap works without it (--cache DIR chooses another folder, --no-cache "
             "says not to use one)";
}

std::optional<std::string> CacheDirectory::takeWarning() {
  if (usable_ || warned_ || warning_.empty()) return std::nullopt;
  warned_ = true;
  return warning_;
}

std::string CacheDirectory::entryPath(const Key& key) const {
  return path_ + "/" + key.hex() + std::string(kEntrySuffix);
}

std::optional<std::string> CacheDirectory::lookup(const Key& key) const {
  if (!usable_) return std::nullopt;
  std::string path = entryPath(key);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  // Used now, for eviction; a failure (a read-only folder) only makes it
  // look older than it is.
  const timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
  return path;
}

Status CacheDirectory::store(const Key& key, const IndexWriter& writer) {
  if (!usable_) return Status::success();
  const uint64_t size = writer.fileSize();
  if (size > max_bytes_) {
    return Error("the index of this heap (" + formatBytes(size) +
                 ") is larger than the index cache's bound (" + formatBytes(max_bytes_) +
                 ", --cache-size); it is not cached");
  }
  const std::string final_path = entryPath(key);
  std::string temporary = final_path.substr(0, final_path.size() - kEntrySuffix.size()) +
                          std::string(kTemporaryInfix) + std::to_string(::getpid()) + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) {
    turnOff("cannot create a file in " + path_ + ": " + std::strerror(errno));
    Status failed = Error::io(warning_);
    warned_ = true;
    return failed;
  }
  const int slot = removeOnSignal(temporary);
  Status written = writer.write(fd, key, temporary);
  if (::close(fd) != 0 && written) {
    written = Error::io("cannot write " + temporary + ": " + std::strerror(errno));
  }
  if (written && ::rename(temporary.c_str(), final_path.c_str()) != 0) {
    written =
        Error::io("cannot rename " + temporary + " to " + final_path + ": " + std::strerror(errno));
  }
  if (!written) ::unlink(temporary.c_str());
  keepOnSignal(slot);
  if (!written) {
    turnOff(written.error().message());
    warned_ = true;
    return Error::io(warning_);
  }
  evict(final_path);
  return Status::success();
}

void CacheDirectory::remove(const Key& key) const {
  if (!path_.empty()) ::unlink(entryPath(key).c_str());
}

Expected<std::vector<CacheDirectory::Found>> CacheDirectory::scan(const std::string& newest) const {
  GOHEAP_TRY(std::vector<std::string> names, folderNames(path_));
  const int64_t now = nowNs();
  std::vector<Found> found;
  for (const std::string& name : names) {
    const bool entry = isEntryName(name);
    if (!entry && !isTemporaryName(name)) continue;
    const std::string path = path_ + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;  // removed meanwhile
    if (!entry) {
      if (now - mtimeNs(st) > kStaleTemporaryNs) ::unlink(path.c_str());
      continue;
    }
    found.push_back({path, static_cast<uint64_t>(st.st_size), mtimeNs(st)});
  }
  std::sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
    return std::pair(a.path == newest, a.mtime_ns) < std::pair(b.path == newest, b.mtime_ns);
  });
  return found;
}

void CacheDirectory::evict(const std::string& newest) const {
  Expected<std::vector<Found>> found = scan(newest);
  if (!found) return;
  uint64_t total = 0;
  for (const Found& f : *found) total += f.size;
  for (const Found& f : *found) {
    if (total <= max_bytes_) break;
    // Another process may have removed it first; either way it is gone.
    ::unlink(f.path.c_str());
    total -= f.size;
  }
}

Expected<std::vector<CacheEntry>> CacheDirectory::list() const {
  if (path_.empty()) return Error(warning_);
  GOHEAP_TRY(std::vector<Found> found, scan(""));
  std::vector<CacheEntry> entries;
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    CacheEntry e;
    const std::string name = it->path.substr(path_.size() + 1);
    e.key = *Key::fromHex(name.substr(0, kKeyHexDigits));
    e.path = it->path;
    e.size = it->size;
    e.last_used_ns = it->mtime_ns;
    Expected<IndexPeek> peek = IndexFile::peek(it->path);
    if (!peek) {
      e.description = peek.error();
    } else {
      e.description = std::move(peek->description);
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

Expected<ClearResult> CacheDirectory::clear() const {
  if (path_.empty()) return Error(warning_);
  GOHEAP_TRY(std::vector<Found> found, scan(""));
  ClearResult result;
  for (const Found& f : found) {
    if (::unlink(f.path.c_str()) != 0 && errno != ENOENT) {
      return Error::io("cannot remove " + f.path + ": " + std::strerror(errno));
    }
    result.entries++;
    result.bytes += f.size;
  }
  return result;
}

}  // namespace goheap::cache
