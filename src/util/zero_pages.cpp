#include "util/zero_pages.h"

#include <sys/mman.h>

namespace goheap {

std::shared_ptr<const ZeroPages> ZeroPages::map(uint64_t size) {
  if (size == 0 || size > SIZE_MAX) return nullptr;
  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::shared_ptr<const ZeroPages>(new ZeroPages(static_cast<const uint8_t*>(p), size));
}

ZeroPages::~ZeroPages() {
  ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
}

}  // namespace goheap
