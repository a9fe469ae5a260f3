// What the typing pass reads from the runtime's own memory layouts beyond
// DWARF, by Go release: decided once from the version the dump (or the
// executable) names, so the pass itself never tests versions.
#pragma once

#include <cstdint>

#include "util/go_version.h"

namespace goheap::goruntime {

struct ReleaseLayout {
  // internal/abi.Type is {Size_, PtrBytes uintptr; Hash uint32; TFlag,
  // Align_, FieldAlign_, Kind_ uint8; ...}. Whether an interface holds a
  // value of the type in its data word (pointer-shaped types) or a pointer
  // to a boxed copy is one bit of one of those bytes: Kind_'s
  // KindDirectIface (1<<5) until Go 1.25, TFlag's TFlagDirectIface (1<<5)
  // since Go 1.26 (internal/abi/type.go).
  uint32_t direct_iface_offset = 0;  // from the start of the descriptor
  uint8_t direct_iface_mask = 0;
  // Go 1.22+ (unless GOEXPERIMENT=noallocheaders, Go 1.22-1.23): a small
  // object of more than 8 words per pointer bit that holds pointers starts
  // with a pointer to its type (runtime.mallocHeaderSize, 8 bytes on every
  // target); 0 before.
  uint8_t malloc_header_size = 0;
};

ReleaseLayout releaseLayout(const GoVersion& version, uint32_t ptr_size);

}  // namespace goheap::goruntime
