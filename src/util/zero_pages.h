// Read-only memory that is all zeros, as big as asked for and costing no
// memory: an anonymous mapping the kernel backs with its one zero page. A
// snap core's untouched pages (core/snap_note.h) read from it, so that they
// are views like the rest of the core rather than copies.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace goheap {

class ZeroPages {
 public:
  // Null when the address space cannot be had (a 32-bit host asked for GiBs).
  static std::shared_ptr<const ZeroPages> map(uint64_t size);
  ~ZeroPages();
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  ZeroPages(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  uint64_t size_;
};

}  // namespace goheap
