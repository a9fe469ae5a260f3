// Out-of-line template bodies for dump.h. Field lists were validated by the
// reader, so decoding here is unchecked and fast.
#pragma once

#include <algorithm>

#include "dump/dump.h"
#include "dump/varint.h"

namespace goheap::dump {

template <class Fn>
void Dump::forEachFieldListSlot(uint64_t fieldlist_offset, uint64_t limit, Fn&& fn) const {
  const uint8_t* p = file_.data() + fieldlist_offset;
  const uint32_t ptr = params.ptr_size;
  if (limit < ptr) return;
  const uint64_t last = limit - ptr;  // highest offset whose word fits
  for (;;) {
    uint64_t kind = decodeUvarintUnchecked(p);
    if (kind == 0) return;
    uint64_t off = decodeUvarintUnchecked(p);
    switch (normalizeFieldKind(version, kind)) {
      case FieldKind::Ptr:
      case FieldKind::String:
      case FieldKind::Slice:
        if (off <= last) fn(off);
        break;
      case FieldKind::Iface:
      case FieldKind::Eface:
        if (off <= last) fn(off);
        if (off < last && off + ptr <= last) fn(off + ptr);
        break;
    }
  }
}

template <class Fn>
void Dump::forEachObjectSlot(size_t i, Fn&& fn) const {
  if (version != FormatVersion::Go13) {
    forEachFieldListSlot(objects.offset[i] + objects.size[i], objects.size[i], fn);
    return;
  }
  forEachGo13ObjectSlot(i, fn);
}

}  // namespace goheap::dump

namespace goheap::dump {

// go1.3 objects carry a type and a kind instead of a field list: the type's
// field list applies once (plain), to each element (array), to each element
// after the channel header (channel), or every word may be a pointer
// (conservative, or no type record for it). Type 0 with kind 0 is an object
// the runtime knew to hold no pointers.
template <class Fn>
void Dump::forEachGo13ObjectSlot(size_t i, Fn&& fn) const {
  const uint64_t size = objects.size[i];
  const uint32_t ptr = params.ptr_size;
  const uint8_t kind = objects.kind[i];
  const uint32_t ti = objects.type_index[i];
  if (ti == kNoPointerType) return;
  if (kind == 127 || ti == kUnknownType) {
    for (uint64_t off = 0; off + ptr <= size; off += ptr) fn(off);
    return;
  }
  const TypeRecord& type = types[ti];
  if (kind == 0) {
    forEachFieldListSlot(type.fieldlist_offset, std::min(type.size, size), fn);
    return;
  }
  const uint64_t stride = type.size;
  if (stride == 0) return;
  for (uint64_t base = kind == 2 ? params.hchan_size : 0; base + stride <= size; base += stride) {
    forEachFieldListSlot(type.fieldlist_offset, stride, [&](uint64_t off) { fn(base + off); });
  }
}

}  // namespace goheap::dump
