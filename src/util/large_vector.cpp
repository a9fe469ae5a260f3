#include "util/large_vector.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace goheap {

void keepLargeAllocationsMapped() {
#if defined(__GLIBC__)
  // Setting the threshold also turns off its adjustment.
  constexpr int kOwnMapping = 1 << 20;
  mallopt(M_MMAP_THRESHOLD, kOwnMapping);
#endif
}

void adviseHugePages(const void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
  // Below a few huge pages the faults saved do not pay for the system call.
  constexpr size_t kWorthIt = size_t{8} << 20;
  if (data == nullptr || bytes < kWorthIt) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = (begin + bytes) & ~(page - 1);
  if (last <= first) return;
  // Failure (no THP support, or memory that is not anonymous) leaves the
  // pages as they were, which is correct, only slower.
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace goheap
