// Reads pointer-sized words of the traced program: 4 or 8 bytes, either byte
// order. Decided once at the boundary (the dump's params record), so the rest
// of goheap sees plain 64-bit addresses.
#pragma once

#include <cstdint>
#include <cstring>

namespace goheap {

class WordReader {
 public:
  WordReader() = default;
  WordReader(uint32_t ptr_size, bool big_endian) : ptr_size_(ptr_size), big_endian_(big_endian) {}

  uint32_t ptrSize() const { return ptr_size_; }
  bool bigEndian() const { return big_endian_; }

  // `p` must have ptrSize() readable bytes.
  uint64_t read(const uint8_t* p) const {
    if (ptr_size_ == 8) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return big_endian_ ? __builtin_bswap64(v) : v;
    }
    uint32_t v;
    std::memcpy(&v, p, 4);
    return big_endian_ ? __builtin_bswap32(v) : v;
  }

 private:
  uint32_t ptr_size_ = 8;
  bool big_endian_ = false;
};

}  // namespace goheap
