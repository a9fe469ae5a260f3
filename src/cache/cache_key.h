// What names an index cache entry: a 32-byte key over everything that
// decides what goheap would compute from a heap, so that an entry is used
// only for the very heap, executable, options and goheap it was written by.
//
// The heap file is known by its size, modification time, device and inode
// (cheap, and they change when the file is rewritten) and by a hash of its
// first and last 64 KiB (which catch a file rewritten in place within the
// same second on a file system with coarse times, and a copy restored over
// it). The executable is known by its Go build ID, its size and a hash of
// all its bytes: a copy of it elsewhere is the same build, but a damaged
// copy, or one stripped with `objcopy --strip-debug` (which keeps the build
// ID), is read differently and is another key. One without a build ID is
// also known as the heap is, by its file. A separate debug file its DWARF
// came from is known by its file and a hash of all its bytes too.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bin/binary.h"
#include "util/error.h"
#include "util/file_identity.h"
#include "util/mapped_file.h"
#include "util/version.h"

namespace goheap::cache {

// The version of what goheap stores in an index: which sections the codec
// writes and what they mean. Bump it whenever that changes, so that every
// entry an older goheap wrote misses instead of being misread.
// 2: no dominator preorder (the snapshot no longer keeps one).
// 3: types as an index per object into a table of distinct assignments;
//    object addresses and sizes and retained sizes packed (PackedColumn).
// 4: executables linked externally by Go 1.26+ bind to their heaps (older
//    entries hold such heaps untyped, the executable refused).
// 5: cores of stripped binaries give memstats and their finalizers' types;
//    channels, closures and arrays of interface {} are typed without a
//    typed pointer to them.
// 6: cores keep their large objects' types (the span's largeType); maps,
//    arrays of structs and runtime structs are typed by their shape.
// 7: objects typed by their allocation site (type evidence 4), by typed
//    pointers to a stripped executable's globals, and global strings.
// 8: no predecessors (a query that needs them computes them).
inline constexpr uint32_t kIndexFormatVersion = 8;

struct Key {
  std::array<uint8_t, 32> bytes{};

  bool operator==(const Key&) const = default;
  // 64 lower-case hex digits: the entry's file name.
  std::string hex() const;
  // The key whose hex() is `text`; nothing for anything else.
  static std::optional<Key> fromHex(std::string_view text);
};

// A file as the key sees it: its identity (device, inode, size and
// modification time; not its mode) and the XXH3-64 of its first 64 KiB
// followed by its last 64 KiB (the two overlap in a file under 128 KiB).
struct FileFingerprint {
  FileIdentity identity;
  uint64_t head_tail_hash = 0;
};

// Bytes hashed at each end of the file.
inline constexpr uint64_t kFingerprintEdgeBytes = 64 * 1024;

// The fingerprint of a mapped file: its identity when it was mapped, and
// its bytes (borrowed memory has no identity; only its size and bytes count).
FileFingerprint fingerprintOf(const MappedFile& file);
// The same for a file not mapped yet (it is mapped for the hash, then let go).
Expected<FileFingerprint> fingerprintOf(const std::string& path);

struct ExecutableFingerprint {
  std::string build_id;
  uint64_t size = 0;
  // XXH3-64 of every byte of the file, and of the separate debug file's
  // (0 when there is none): what goheap reads from them, DWARF, rodata,
  // pclntab and code, decides the types.
  uint64_t content_hash = 0;
  uint64_t debug_content_hash = 0;
  // Only for an executable without a build ID: then the file itself.
  std::optional<FileFingerprint> file;
  // The separate debug file its DWARF was read from (bin::Binary::
  // useDebugFile), known as the heap is: typed with it or without it are
  // two entries.
  std::optional<FileFingerprint> debug_file;
};

ExecutableFingerprint fingerprintOf(const bin::Binary& executable);

// The load options that change what is computed (query::OpenOptions has
// them; the others, threads and memory for answers, do not).
struct KeyOptions {
  bool conservative_stacks = true;
  bool type_objects = true;
};

struct KeyInputs {
  FileFingerprint heap;
  std::optional<ExecutableFingerprint> executable;  // nothing: read without one
  KeyOptions options;
  uint32_t format_version = kIndexFormatVersion;
  // A new goheap may compute other answers (types, names, leaks) from the
  // same inputs in the same format: its entries are its own.
  std::string_view goheap_version = goheapVersion();
};

// Two XXH3-128 of the inputs written out field by field, with different seeds.
Key computeKey(const KeyInputs& inputs);

}  // namespace goheap::cache
