// Bounds-checked fixed-width reads from an executable's bytes, in the byte
// order of the file. The byte order is decided once, when the container is
// recognised, so callers read fields by offset and never swap by hand.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace goheap::bin {

class ByteView {
 public:
  ByteView() = default;
  ByteView(std::span<const uint8_t> bytes, bool big_endian)
      : bytes_(bytes), big_endian_(big_endian) {}

  std::span<const uint8_t> bytes() const { return bytes_; }
  uint64_t size() const { return bytes_.size(); }
  bool bigEndian() const { return big_endian_; }

  // True when [offset, offset + n) lies inside the bytes; no overflow.
  bool has(uint64_t offset, uint64_t n) const {
    return offset <= bytes_.size() && n <= bytes_.size() - offset;
  }
  // True when a table of `count` entries of `entry_size` (> 0) bytes each
  // starting at `offset` lies inside the bytes; no overflow, whatever count a
  // corrupt header claims.
  bool hasTable(uint64_t offset, uint64_t count, uint64_t entry_size) const {
    return count <= bytes_.size() / entry_size && has(offset, count * entry_size);
  }

  // The reads below require has(offset, width) to hold.
  uint8_t u8(uint64_t offset) const { return bytes_[offset]; }
  uint16_t u16(uint64_t offset) const {
    uint16_t v;
    std::memcpy(&v, bytes_.data() + offset, 2);
    return big_endian_ ? __builtin_bswap16(v) : v;
  }
  uint32_t u32(uint64_t offset) const {
    uint32_t v;
    std::memcpy(&v, bytes_.data() + offset, 4);
    return big_endian_ ? __builtin_bswap32(v) : v;
  }
  uint64_t u64(uint64_t offset) const {
    uint64_t v;
    std::memcpy(&v, bytes_.data() + offset, 8);
    return big_endian_ ? __builtin_bswap64(v) : v;
  }
  // A word of the target: 4 or 8 bytes.
  uint64_t word(uint64_t offset, uint32_t width) const {
    return width == 8 ? u64(offset) : u32(offset);
  }

  // The n bytes at `offset` as characters; requires has(offset, n).
  std::string_view chars(uint64_t offset, uint64_t n) const {
    return {reinterpret_cast<const char*>(bytes_.data() + offset), static_cast<size_t>(n)};
  }
  // A name in a fixed field of `width` bytes, NUL-padded but not always
  // NUL-terminated (Mach-O's 16, PE's 8); requires has(offset, width).
  std::string_view paddedName(uint64_t offset, uint64_t width) const {
    const std::string_view field = chars(offset, width);
    return field.substr(0, field.find('\0'));
  }

  // A Go uvarint (encoding/binary: at most ten bytes) at `offset`, which it
  // moves past it; false when the bytes end first or it runs longer.
  bool uvarint(uint64_t& offset, uint64_t& out) const {
    out = 0;
    for (uint32_t shift = 0; shift < 64; shift += 7) {
      if (offset >= bytes_.size()) return false;
      const uint8_t b = bytes_[offset++];
      out |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }

  // The NUL-terminated string at `offset`; empty when offset is out of range
  // or no NUL follows (a truncated table must not read past the end).
  std::string_view cstring(uint64_t offset) const {
    if (offset >= bytes_.size()) return {};
    const auto* start = reinterpret_cast<const char*>(bytes_.data() + offset);
    const void* nul = std::memchr(start, 0, bytes_.size() - offset);
    if (nul == nullptr) return {};
    return {start, static_cast<size_t>(static_cast<const char*>(nul) - start)};
  }

  ByteView sub(uint64_t offset, uint64_t n) const {
    return ByteView(bytes_.subspan(offset, n), big_endian_);  // requires has(offset, n)
  }

 private:
  std::span<const uint8_t> bytes_;
  bool big_endian_ = false;
};

}  // namespace goheap::bin
