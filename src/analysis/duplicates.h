// Memory held more than once: the same string or []byte contents in
// distinct backing objects, and objects of one type with identical bytes.
// What `goheap dups` lists. Contents are hashed, grouped by hash, then
// compared byte by byte, so the pass stays linear on big heaps.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/headers.h"
#include "analysis/snapshot.h"

namespace goheap::analysis {

enum class DupKind : uint8_t { String, Bytes, Object };
std::string_view dupKindName(DupKind k);  // "string", "bytes", "object"

struct DupHolder {
  NodeId node = kNoNode;
  std::string name;    // describeHolder
  uint64_t count = 0;  // copies it points to
};

struct DupGroup {
  DupKind kind = DupKind::Bytes;
  std::string name;                // type, or group name without types
  std::string preview;             // the contents, quoted and escaped, at most ~64 characters
  uint64_t size = 0;               // of one copy: its object's size
  uint64_t length = 0;             // of the duplicated contents (a string's len)
  uint64_t copies = 0;             // distinct objects
  uint64_t total = 0;              // their bytes
  uint64_t wasted = 0;             // total - size
  std::vector<NodeId> objects;     // by address
  std::vector<DupHolder> holders;  // the most common referrers, most first
};

struct DupTotals {
  uint64_t groups = 0, copies = 0, wasted = 0;
};

struct DupOptions {
  bool strings = true, bytes = true, objects = true;
  size_t limit = 20;  // groups kept (0: all)
  uint64_t min_wasted = 0;
  size_t holders = 3;
  unsigned threads = 2;  // for hashing and sorting; the answer is the same
};

struct Duplicates {
  // With types, strings and []byte are read through their headers and
  // objects compared within one type; without, the pointer-free objects
  // (kind bytes: strings and []byte cannot be told apart) and the others
  // (kind object) are compared within one group name and size.
  bool typed = false;
  std::vector<DupGroup> groups;       // by wasted bytes, cut to the limit
  uint64_t matching_groups = 0;       // before the cut
  std::array<DupTotals, 3> totals{};  // per DupKind, over every group found
};

// `headers`: findHeaders(s) when the caller keeps it (a server); else found here.
Duplicates findDuplicates(const Snapshot& s, const DupOptions& options,
                          const std::vector<Header>* headers = nullptr);

// Bytes as a Go string literal: quoted, non-printables escaped, cut with "..."
// after about `max` characters.
std::string quotePreview(const uint8_t* p, uint64_t n, size_t max = 64);

}  // namespace goheap::analysis
