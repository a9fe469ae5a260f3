// The folder of index cache entries: where it is, finding an entry by its
// key, storing one so that no reader ever sees half a file, and keeping the
// folder within its bound by evicting whole entries, least recently used
// first.
//
// An entry is one index file named by its key, "<64 hex digits>.ghx". A
// store writes "<hex>.ghx.tmp.<pid>.<6 characters>" beside it and renames
// it into place: two processes storing the same key both succeed, and the
// last rename wins with a whole file. The time an entry was last used is
// its modification time, which lookup() sets (access times are often not
// kept). Nothing else in the folder is touched: only names of these two
// forms are ever removed, and a temporary file only once it is an hour old
// (its writer may be running still).
//
// A folder that cannot be made or written turns caching off: goheap works
// as without a cache, and the reason is handed out once, for the caller to
// show as a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cache/cache_key.h"
#include "cache/entry_description.h"
#include "cache/index_file.h"
#include "util/error.h"

namespace goheap::cache {

// --cache-size when not given.
inline constexpr uint64_t kDefaultCacheBytes = uint64_t{10} << 30;
// A temporary file older than this is taken for the leftover of a run that
// died, and removed.
inline constexpr int64_t kStaleTemporaryNs = int64_t{3600} * 1000000000;

// What the environment says about where caches go.
struct CacheEnvironment {
  std::string xdg_cache_home;
  std::string home;

  static CacheEnvironment fromProcess();
};

// DIR of --cache when given, else $XDG_CACHE_HOME/goheap (an absolute one:
// the XDG spec has relative ones ignored), else $HOME/.cache/goheap;
// nothing when neither is set.
std::optional<std::string> cacheDirectoryPath(const std::string& explicit_dir,
                                              const CacheEnvironment& env);

struct CacheEntry {
  Key key;
  std::string path;
  uint64_t size = 0;
  int64_t last_used_ns = 0;  // the file's modification time
  // An Error when the entry is unreadable or has no description.
  Expected<EntryDescription> description = Error("no description");
};

struct ClearResult {
  uint64_t entries = 0;
  uint64_t bytes = 0;
};

// Not for use from two threads at once; two processes are fine.
class CacheDirectory {
 public:
  // Finds or makes the folder (mode 0700, and so its missing parents).
  // Never fails: a folder that cannot be made, or is not a writable
  // folder, gives a CacheDirectory that finds and stores nothing, whose
  // takeWarning() says why.
  static CacheDirectory open(const std::string& explicit_dir, uint64_t max_bytes,
                             const CacheEnvironment& env = CacheEnvironment::fromProcess());

  bool usable() const { return usable_; }
  // The folder ("" when none could be named).
  const std::string& path() const { return path_; }
  uint64_t maxBytes() const { return max_bytes_; }
  // The path an entry of `key` has, whether or not it exists.
  std::string entryPath(const Key& key) const;

  // Why caching is off, worded for Sink::warning, the first time it
  // is asked after caching turned off; nothing otherwise.
  std::optional<std::string> takeWarning();

  // The entry's path when there is one (and it is marked as just used).
  std::optional<std::string> lookup(const Key& key) const;

  // Writes `writer`'s file as the entry of `key`, then evicts entries, least
  // recently used first, until the folder's entries take at most
  // maxBytes(). An Error, worded for a warning, when it was not stored: an
  // index larger than the bound on its own, or a folder that cannot be
  // written (caching is then off for the rest of the run, and every later
  // call does nothing, so the failure is told once).
  Status store(const Key& key, const IndexWriter& writer);

  // Removes the entry of `key` (one found corrupt), if there is one.
  void remove(const Key& key) const;

  // The entries, most recently used first.
  Expected<std::vector<CacheEntry>> list() const;
  // Removes every entry, and temporary files left by runs that died.
  Expected<ClearResult> clear() const;

 private:
  void turnOff(std::string reason);
  // Entries, least recently used first, `newest` (if one) last; removes
  // stale temporary files on the way.
  struct Found {
    std::string path;
    uint64_t size;
    int64_t mtime_ns;
  };
  Expected<std::vector<Found>> scan(const std::string& newest) const;
  void evict(const std::string& newest) const;

  std::string path_;
  uint64_t max_bytes_ = kDefaultCacheBytes;
  bool usable_ = false;
  std::string warning_;
  bool warned_ = false;
};

}  // namespace goheap::cache
