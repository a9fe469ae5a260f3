#include "util/assembled_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace goheap {

std::unique_ptr<AssembledMemory> AssembledMemory::reserve(uint64_t size) {
  if (size == 0 || size > SIZE_MAX) return nullptr;
  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<AssembledMemory>(new AssembledMemory(static_cast<uint8_t*>(p), size));
}

AssembledMemory::~AssembledMemory() {
  ::munmap(data_, static_cast<size_t>(size_));
}

bool AssembledMemory::placeFile(uint64_t at, int fd, uint64_t offset, uint64_t n) {
  if (at > size_ || n > size_ - at || n == 0) return false;
  void* p = ::mmap(data_ + at, static_cast<size_t>(n), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
                   static_cast<off_t>(offset));
  return p != MAP_FAILED;
}

bool AssembledMemory::placeCopy(uint64_t at, std::span<const uint8_t> bytes) {
  if (at > size_ || bytes.size() > size_ - at || bytes.empty()) return false;
  if (::mprotect(data_ + at, bytes.size(), PROT_READ | PROT_WRITE) != 0) return false;
  std::memcpy(data_ + at, bytes.data(), bytes.size());
  ::mprotect(data_ + at, bytes.size(), PROT_READ);
  return true;
}

bool AssembledMemory::placeCopies(std::span<const Piece> pieces, int fd) {
  if (::mprotect(data_, static_cast<size_t>(size_), PROT_READ | PROT_WRITE) != 0) return false;
  bool all = true;
  for (const Piece& p : pieces) {
    if (p.at > size_ || p.bytes.size() > size_ - p.at) {
      all = false;
      continue;
    }
    const bool read =
        fd >= 0 && ::pread(fd, data_ + p.at, p.bytes.size(), static_cast<off_t>(p.offset)) ==
                       static_cast<ssize_t>(p.bytes.size());
    if (!read) std::memcpy(data_ + p.at, p.bytes.data(), p.bytes.size());
  }
  ::mprotect(data_, static_cast<size_t>(size_), PROT_READ);
  return all;
}

}  // namespace goheap
