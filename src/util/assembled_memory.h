// A range of memory laid out as a process had it: zero wherever nothing is
// placed (an anonymous mapping the kernel backs with its zero page, costing
// nothing), with pieces of a file mapped at their addresses (or copied, for
// bytes in no file). A snap core (core/snap_note.h) splits a mapping of the
// process into segments around its zero pages; assembled again, a read or
// an object that straddles two of them is one view, as in the process.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace goheap {

class AssembledMemory {
 public:
  // `size` bytes of zeros; null when the address space cannot be had.
  static std::unique_ptr<AssembledMemory> reserve(uint64_t size);
  ~AssembledMemory();
  AssembledMemory(const AssembledMemory&) = delete;
  AssembledMemory& operator=(const AssembledMemory&) = delete;

  // Maps `n` bytes of file `fd` from `offset` at byte `at` (both multiples
  // of the page size); false when the kernel refuses (place a copy then).
  bool placeFile(uint64_t at, int fd, uint64_t offset, uint64_t n);
  // Copies `bytes` to byte `at` (a multiple of the page size).
  bool placeCopy(uint64_t at, std::span<const uint8_t> bytes);

  // Bytes to place at `at`: `bytes`, which are also at `offset` in the file
  // placeCopies reads.
  struct Piece {
    uint64_t at;
    std::span<const uint8_t> bytes;
    uint64_t offset;
  };
  // Copies every piece, read from file `fd` (so that the file's pages are
  // not mapped as well), or from `bytes` when fd is -1 or a read fails.
  // Each placeFile and placeCopy splits the range into more of the
  // kernel's mappings, of which a process may have some 65,000
  // (vm.max_map_count); this stays one, however many pieces. False when a
  // piece does not fit (the others are placed) or the kernel refuses.
  bool placeCopies(std::span<const Piece> pieces, int fd);

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  AssembledMemory(uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint8_t* data_;
  uint64_t size_;
};

}  // namespace goheap
