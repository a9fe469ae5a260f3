// core::RuntimeLayout: where the Go runtime keeps what the heap walk reads,
// the address of the global runtime.mheap_ and the offsets and widths of the
// runtime.mheap and runtime.mspan fields. These change between releases
// (freeindex and nelems are uintptr in Go 1.19 and uint16 by 1.24; the span
// state, a uint8 in 1.19, is an atomic.Uint8 by 1.27), so they are read from
// the executable's DWARF rather than assumed. The struct is a plain table so
// that a stripped executable's can later be filled from per-version data.
#pragma once

#include <cstdint>

#include "bin/debug_info.h"
#include "util/error.h"

namespace goheap::core {

// A field of a runtime struct: its offset and its width in bytes.
struct FieldSlot {
  uint64_t offset = 0;
  uint32_t size = 0;
};

struct RuntimeLayout {
  uint32_t ptr_size = 8;
  uint64_t mheap_addr = 0;  // runtime.mheap_, link-time (add the load bias)
  // runtime.mheap.allspans, a []*mspan of every span ever created.
  uint64_t mheap_allspans = 0;
  uint64_t mspan_size = 0;  // the whole runtime.mspan struct
  FieldSlot span_start_addr, span_npages, span_freeindex, span_nelems, span_alloc_bits,
      span_elemsize, span_state;
  // runtime._PageSize: 8 KiB on every platform and release.
  uint64_t page_size = 8192;
  // mSpanInUse in the runtime's mSpanState enum (mheap.go: mSpanDead = iota,
  // mSpanInUse, mSpanManual) in the releases read here, Go 1.19 to 1.27.
  uint8_t span_in_use = 1;
};

// Reads the layout from `dwarf`: an Error naming what is missing ("runtime.mspan
// has no field allocBits", "no global runtime.mheap_") or has an unexpected width.
Expected<RuntimeLayout> readRuntimeLayout(const bin::DebugInfo& dwarf, uint32_t ptr_size);

}  // namespace goheap::core
