// The dump's primitives: uvarint (as Go's encoding/binary), strings as
// length + bytes, bools as uvarint 0/1.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/heap_model.h"

namespace goheap::dump {

// For bytes the reader has already validated.
inline uint64_t decodeUvarintUnchecked(const uint8_t*& p) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

// Field kinds of go1.4 and later are 1 Ptr, 2 Iface, 3 Eface; go1.3 numbers
// them 1 Ptr, 2 String, 3 Slice, 4 Iface, 5 Eface. `raw` is known valid.
inline FieldKind normalizeFieldKind(FormatVersion version, uint64_t raw) {
  if (version == FormatVersion::Go13) return static_cast<FieldKind>(raw);
  switch (raw) {
    case 2:
      return FieldKind::Iface;
    case 3:
      return FieldKind::Eface;
    default:
      return FieldKind::Ptr;
  }
}

// Highest valid raw field kind for a version.
inline uint64_t maxFieldKind(FormatVersion version) {
  switch (version) {
    case FormatVersion::Go13:
      return 5;
    default:
      return 3;  // go1.5+ write only 1, but the kinds 2 and 3 still mean Iface and Eface
  }
}

}  // namespace goheap::dump
