// The index file: what goheap computed from a heap, stored as columns
// (sections of fixed-size elements) that are read back by mapping the file
// and pointing into it, with no parsing. One file per cache entry.
//
// Layout (native byte order; the header says which, and a file of another
// byte order or pointer size is refused rather than converted):
//
//   offset  size  header (kHeaderBytes)
//        0     8  magic "GOHEAPIX"
//        8     4  layout version (kLayoutVersion)
//       12     4  byte-order mark 0x01020304
//       16     4  pointer size of the writer
//       20     4  header size (128)
//       24    32  the entry's key (cache_key.h)
//       56     4  section count N
//       60     4  section alignment (64)
//       64     8  file size
//       72    48  zero
//      120     8  checksum: XXH3-64 over (XXH3-64 of bytes 0-119, XXH3-64 of the table)
//
//   128, N entries of kTableEntryBytes: id u32, element size u32, element
//   count u64, offset u64, byte length u64, checksum u64 (checksum.h: over
//   the section's 4 MiB blocks), sorted by id.
//
//   Then each section's bytes at an offset aligned to 64 (4096 for one of
//   1 MiB or more), with zero bytes between; the file ends where the last
//   section does. Every byte is thus covered by a checksum or must be zero,
//   so that any change to the file is found.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cache/cache_key.h"
#include "cache/entry_description.h"
#include "util/column.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/packed_column.h"

namespace goheap::cache {

namespace index_layout {
inline constexpr char kMagic[8] = {'G', 'O', 'H', 'E', 'A', 'P', 'I', 'X'};
inline constexpr uint32_t kLayoutVersion = 1;
inline constexpr uint32_t kByteOrderMark = 0x01020304;
inline constexpr uint64_t kHeaderBytes = 128;
inline constexpr uint64_t kTableEntryBytes = 40;
inline constexpr uint64_t kSectionAlignment = 64;
// Sections this big start on a page, so that each can be paged in and out
// on its own.
inline constexpr uint64_t kPageAlignedSectionBytes = uint64_t{1} << 20;
inline constexpr uint64_t kPageBytes = 4096;

inline constexpr uint64_t kVersionOffset = 8;
inline constexpr uint64_t kKeyOffset = 24;
inline constexpr uint64_t kSectionCountOffset = 56;
inline constexpr uint64_t kFileSizeOffset = 64;
inline constexpr uint64_t kChecksumOffset = 120;
}  // namespace index_layout

// Section ids from here up are the file's own; the codec uses those below.
inline constexpr uint32_t kFirstReservedSection = 0xffff0000;
// The entry's EntryDescription (bytes).
inline constexpr uint32_t kDescriptionSection = 0xffff0001;

struct SectionInfo {
  uint32_t id = 0;
  uint32_t element_size = 0;
  uint64_t element_count = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t checksum = 0;
};

// Collects sections and writes them as one index file. The caller keeps the
// bytes given to add() alive until write() returns: they are written from
// where they are, never gathered into one buffer.
class IndexWriter {
 public:
  // A mistake here (a section id used twice or reserved, an element size of
  // 0, bytes that are not a whole number of elements) is a bug in the
  // caller: it is kept and returned by write().
  void add(uint32_t section_id, uint32_t element_size, std::span<const uint8_t> bytes);

  template <class T>
  void addArray(uint32_t section_id, std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>, "sections hold plain values");
    static_assert(alignof(T) <= index_layout::kSectionAlignment);
    add(section_id, static_cast<uint32_t>(sizeof(T)),
        {reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()});
  }

  // A small section whose bytes the writer keeps.
  void addOwned(uint32_t section_id, uint32_t element_size, std::vector<uint8_t> bytes);
  // A packed column (util/packed_column.h) as two sections: its values as
  // stored (u32 deltas when packed, else u64), and how they are packed.
  template <class V, class D>
  void addPacked(uint32_t values_id, uint32_t packing_id, const BasicPackedColumn<V, D>& column) {
    const std::array<uint64_t, 3> packing{column.packed() ? 1u : 0u, column.base(), column.shift()};
    std::vector<uint8_t> bytes(sizeof packing);
    std::memcpy(bytes.data(), packing.data(), sizeof packing);
    addOwned(packing_id, sizeof(uint64_t), std::move(bytes));
    if (column.packed()) {
      addArray(values_id, column.deltas().span());
    } else {
      addArray(values_id, column.unpacked().span());
    }
  }
  void setDescription(const EntryDescription& description);
  // A section whose bytes `make` returns once write() has written all the
  // others: a small result still being computed elsewhere while the big
  // columns go to the file. Written after them, in the order added.
  void addLast(uint32_t section_id, uint32_t element_size,
               std::function<std::vector<uint8_t>()> make);

  // The size of the file write() makes, less the sections added with
  // addLast (not made yet).
  uint64_t fileSize() const;

  // Writes the file to `fd`, an empty regular file open for writing, at
  // its start; `name` is for messages. An Error names it with strerror(3).
  Status write(int fd, const Key& key, std::string_view name) const;
  // Creates or replaces the file at `path` (in place: for a file others may
  // read, CacheDirectory::store writes beside it and renames).
  Status write(const std::string& path, const Key& key) const;

 private:
  void addSection(uint32_t section_id, uint32_t element_size, std::span<const uint8_t> bytes);
  // The table with offsets (checksums not yet), in the order added.
  std::vector<SectionInfo> plan() const;

  struct Pending {
    uint32_t id;
    uint32_t element_size;
    std::span<const uint8_t> bytes;
  };
  struct Last {
    uint32_t id;
    uint32_t element_size;
    std::function<std::vector<uint8_t>()> make;
  };
  // Whether `section_id` is one of the file's own ids (a caller may not
  // add those): kept as mistake_.
  bool reserved(uint32_t section_id);
  // Whether `section_id` is taken, or not a section's: kept as mistake_.
  bool refused(uint32_t section_id, uint32_t element_size, uint64_t bytes);

  std::vector<Pending> sections_;
  std::vector<Last> last_;
  std::deque<std::vector<uint8_t>> owned_;
  std::optional<Error> mistake_;
};

// What `goheap cache list` shows of an entry without verifying its
// sections: the header, the table and the description are checked.
struct IndexPeek {
  Key key;
  uint64_t file_size = 0;
  size_t sections = 0;
  // An Error when the entry has none or it does not read.
  Expected<EntryDescription> description = Error("no description");
};

class IndexFile {
 public:
  // Maps `path` read-only and checks everything before returning: the
  // header (magic, layout version, byte order, pointer size, key, sizes),
  // the table (offsets in the file and aligned, no overlaps, element size
  // times count equal to the length), the zero bytes between sections, and
  // every checksum (on `threads` threads for big files). Any failure is an
  // Error naming the file, the byte offset and what is wrong.
  static Expected<std::shared_ptr<const IndexFile>> open(const std::string& path,
                                                         const Key& expected, unsigned threads = 2);
  // The same over memory the caller keeps alive (tests, fuzzing); it must
  // be aligned to 64 bytes like a mapping.
  static Expected<std::shared_ptr<const IndexFile>> fromBytes(std::span<const uint8_t> bytes,
                                                              const Key& expected,
                                                              unsigned threads = 2);
  // The header, table and description of the file at `path`, whatever its
  // key; the other sections are not read.
  static Expected<IndexPeek> peek(const std::string& path);

  bool has(uint32_t section_id) const { return find(section_id) != nullptr; }
  // A section's bytes, pointing into the mapping.
  Expected<std::span<const uint8_t>> bytes(uint32_t section_id) const;
  // A section as elements of T, pointing into the mapping: valid while this
  // IndexFile lives (hold the shared_ptr as long as the span). An Error
  // when the section is absent or its element size is not sizeof(T).
  template <class T>
  Expected<std::span<const T>> array(uint32_t section_id) const {
    static_assert(std::is_trivially_copyable_v<T>, "sections hold plain values");
    static_assert(alignof(T) <= index_layout::kSectionAlignment);
    GOHEAP_TRY(const SectionInfo* s, typedSection(section_id, sizeof(T)));
    return std::span<const T>(reinterpret_cast<const T*>(file_.data() + s->offset),
                              s->element_count);
  }

  // A section as a column viewing the mapping (util/column.h), into `out`;
  // an Error naming the section as array() does.
  template <class T>
  Status column(uint32_t section_id, Column<T>& out) const {
    Expected<std::span<const T>> values = array<T>(section_id);
    if (!values) {
      return Error("section " + std::to_string(section_id) + ": " + values.error().message());
    }
    out = Column<T>::view(*values);
    return Status::success();
  }

  // A column addPacked wrote, viewing the mapping, into `out`.
  template <class V, class D>
  Status packedColumn(uint32_t values_id, uint32_t packing_id, BasicPackedColumn<V, D>& out) const {
    const std::string where = "section " + std::to_string(packing_id) + ": ";
    Expected<std::span<const uint64_t>> packing = array<uint64_t>(packing_id);
    if (!packing) return Error(where + packing.error().message());
    const std::span<const uint64_t> p = *packing;
    if (p.size() != 3 || p[0] > 1 || p[1] > std::numeric_limits<V>::max() || p[2] > 3) {
      return Error(where + "not a packing");
    }
    if (p[0] == 0) {
      Column<V> plain;
      if (Status s = column(values_id, plain); !s) return s;
      out = BasicPackedColumn<V, D>(std::move(plain));
      return Status::success();
    }
    Column<D> deltas;
    if (Status s = column(values_id, deltas); !s) return s;
    out = BasicPackedColumn<V, D>::fromPacked(static_cast<V>(p[1]), static_cast<uint8_t>(p[2]),
                                              std::move(deltas));
    return Status::success();
  }

  // Sorted by id.
  std::span<const SectionInfo> sections() const { return sections_; }
  const Key& key() const { return key_; }
  uint64_t fileSize() const { return file_.size(); }
  const std::string& path() const { return file_.path(); }
  Expected<EntryDescription> description() const;

 private:
  IndexFile(MappedFile file, Key key, std::vector<SectionInfo> sections)
      : file_(std::move(file)), key_(key), sections_(std::move(sections)) {}
  static Expected<std::shared_ptr<const IndexFile>> verify(MappedFile file, const Key& expected,
                                                           unsigned threads);
  const SectionInfo* find(uint32_t section_id) const;
  Expected<const SectionInfo*> typedSection(uint32_t section_id, uint64_t element_size) const;

  MappedFile file_;
  Key key_;
  std::vector<SectionInfo> sections_;
};

}  // namespace goheap::cache
