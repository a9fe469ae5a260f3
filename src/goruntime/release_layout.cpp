#include "goruntime/release_layout.h"

namespace goheap::goruntime {

namespace {

constexpr uint8_t kDirectIfaceBit = 1 << 5;  // the same bit in Kind_ and in TFlag
constexpr uint8_t kMallocHeaderSize = 8;

}  // namespace

ReleaseLayout releaseLayout(const GoVersion& version, uint32_t ptr_size) {
  ReleaseLayout l;
  const uint32_t tflag = 2 * ptr_size + 4;
  const uint32_t kind = 2 * ptr_size + 7;
  l.direct_iface_offset = version.atLeast(26) ? tflag : kind;
  l.direct_iface_mask = kDirectIfaceBit;
  if (version.atLeast(22) && !version.hasExperiment("noallocheaders")) {
    l.malloc_header_size = kMallocHeaderSize;
  }
  return l;
}

}  // namespace goheap::goruntime
