// What an index cache entry was made from, for people: `goheap cache list`
// shows it. It is kept in the entry itself (a section of its own), as text
// lines "name=value", so that an entry describes itself without the input
// it came from, and a name a later goheap adds is skipped by an older one.
// Nothing here decides whether an entry is used: the key does (cache_key.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/error.h"

namespace goheap::cache {

struct EntryDescription {
  std::string input_path;  // the heap dump or core, as given
  uint64_t input_size = 0;
  int64_t input_mtime_ns = 0;
  std::string exe_path;  // empty: none
  std::string goheap_version;
  int64_t created_ns = 0;  // since the Unix epoch

  bool operator==(const EntryDescription&) const = default;

  std::vector<uint8_t> encode() const;
  // An Error for bytes that are not such lines; unknown names are skipped,
  // missing ones keep their defaults.
  static Expected<EntryDescription> decode(std::span<const uint8_t> bytes);
};

}  // namespace goheap::cache
