// core::MemoryImage: the memory of the dumped process, address to bytes. The
// bytes come from the core's segments; where the core leaves memory out
// (the kernel does not write unmodified file-backed mappings: the
// executable's text beyond its first page, its read-only data), from the
// executable's read-only PT_LOAD segments, moved by the load bias. Its
// writable segments are not used: the process changed them, and bytes the
// core lacks there are unknown, not the file's.
//
// Nothing is copied: reads return views into the core's or the
// executable's mapping, which must outlive the image.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bin/container.h"
#include "core/core_file.h"
#include "util/error.h"
#include "util/word_reader.h"

namespace goheap::core {

enum class MemorySource : uint8_t { Core, Executable };

class MemoryImage {
 public:
  // The core's memory alone.
  explicit MemoryImage(const CoreFile& core);
  // The core's memory, and where it has none, `exe`'s read-only segments at
  // their link-time address plus `bias`.
  MemoryImage(const CoreFile& core, const bin::Container& exe, uint64_t bias);

  // The `n` bytes at `addr`, from one segment of the core or else one of the
  // executable; an Error saying why not ("0x1000 (8 bytes) is not in the
  // core: ...") when neither holds them all.
  Expected<std::span<const uint8_t>> read(uint64_t addr, uint64_t n) const;
  // A word of the process (its pointer size and byte order) at `addr`.
  Expected<uint64_t> readWord(uint64_t addr) const;
  // A 4- or 8-byte unsigned integer in the process's byte order.
  Expected<uint64_t> readUint(uint64_t addr, uint32_t width) const;
  // Where the byte at `addr` is read from, if anywhere.
  std::optional<MemorySource> sourceOf(uint64_t addr) const;
  bool contains(uint64_t addr, uint64_t n) const { return find(addr, n) != nullptr; }

  const WordReader& words() const { return words_; }
  uint64_t bias() const { return bias_; }

 private:
  struct Range {
    uint64_t start = 0, end = 0;  // [start, end)
    const uint8_t* data = nullptr;
    MemorySource source = MemorySource::Core;
  };
  // The range holding all of [addr, addr + n), core first, or null.
  const Range* find(uint64_t addr, uint64_t n) const;
  static const Range* findIn(const std::vector<Range>& ranges, uint64_t addr, uint64_t n);
  std::string whyMissing(uint64_t addr, uint64_t n) const;

  const CoreFile* core_;
  WordReader words_;
  uint64_t bias_ = 0;
  std::vector<Range> core_ranges_;  // by start, disjoint
  std::vector<Range> exe_ranges_;   // by start, disjoint
};

}  // namespace goheap::core
