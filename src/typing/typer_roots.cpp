// Typer's seeds from what the runtime records: malloc headers and large
// objects' types, globals, stack frames, finalizers and panics, interface
// words (typer.h).
#include "typing/typer.h"

namespace goheap::typing {

void Typer::seedMallocHeaders() {
  // A small object of more than 8 words per pointer bit (512 bytes on
  // 64-bit, 128 on 32-bit) that holds pointers starts with a pointer to its
  // type; pointers to it point past that header. Large objects (more than
  // 32 KiB) keep their type in the span instead. The header is there
  // whether or not DWARF knows its type (Go 1.27 leaves out types only the
  // runtime's allocations name, such as runtime.mPadded).
  const uint8_t header = runtime_.malloc_header_size;
  if (header == 0) return;
  const uint64_t threshold = uint64_t{ptr()} * ptr() * 8;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (size <= threshold || size > 32768 || !holdsPointers(o)) continue;
    TypeAssignment with_header = of(o);
    with_header.data_offset = header;
    reassign(o, with_header);
    const TypeId t = typeAtRuntimeAddress(words_.read(d_.objectData(o)));
    if (t == kNoType) continue;
    const uint64_t esize = sizeOf(t);
    if (esize == 0) continue;
    assignFromHeader(d_.objects.addr[o] + header, t, (size - header) / esize);
  }
  // Large objects keep their type in the span: a core gives it.
  for (const model::LargeObjectType& large : d_.large_object_types) {
    const TypeId t = typeAtRuntimeAddress(large.type_addr);
    const NodeId o = objectAt(large.addr);
    const uint64_t esize = t == kNoType ? 0 : sizeOf(t);
    if (esize == 0 || o == kNoNode || d_.objects.addr[o] != large.addr) continue;
    assignFromHeader(large.addr, t, d_.objects.size[o] / esize);
  }
}

void Typer::assignFromHeader(uint64_t start, TypeId t, uint64_t n) {
  counts_.typed_from_headers++;
  // The header names the element type of an array: the slot size only
  // bounds its length, which a slice's capacity may tell exactly later.
  evidence_ = TypeEvidence::Header;
  if (n > 1) {
    assign(start, t, t, n, TypeForm::Array, /*approximate=*/true);
  } else {
    assign(start, t, t, 0, TypeForm::Value);
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedGlobals() {
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const Memory m{d_.bytes(seg->contents).data(), seg->addr, seg->contents.size, nullptr, {}};
    for (const bin::GlobalVariable& g : dw_.globals()) {
      const uint64_t addr = g.address + exe_.loadBias();
      if (addr < m.base || addr - m.base >= m.size) continue;
      scanValue(m, addr, g.type, g.type, 0);
    }
  }
}

void Typer::seedFrames() {
  std::vector<uint64_t> live;
  for (const model::StackFrame& fr : d_.frames) {
    const uint64_t pc = fr.pc - exe_.loadBias();
    const bin::Function* fn = dw_.functionAt(fr.pc == fr.entry_pc ? pc : pc - 1);
    if (fn == nullptr) continue;
    live.clear();
    d_.forEachSlot(fr.layout, [&](uint64_t off) { live.push_back(off); });
    std::sort(live.begin(), live.end());
    const auto frame_index = static_cast<uint32_t>(&fr - d_.frames.data());
    const Memory m{d_.bytes(fr.contents).data(), fr.sp, fr.contents.size, &live,
                   heap_.successors.neighbors(heap_.frameNode(frame_index))};
    const uint64_t cfa = fr.sp + fr.contents.size;
    const uint64_t at_pc = fr.pc == fr.entry_pc ? pc : pc - 1;
    for (const bin::FrameVariable& v : dw_.variables(*fn)) {
      if (v.cfa_offset) {
        const uint64_t addr = cfa + static_cast<uint64_t>(*v.cfa_offset);
        // Parameters passed on the stack lie in the caller's frame; the
        // registers' spill slots and locals in this one.
        if (readable(m, addr, sizeOf(v.type))) scanValue(m, addr, v.type, v.type, 0);
        continue;
      }
      // Optimized code: where the variable is at this PC, if on the stack.
      for (const bin::LocationRange& r : dw_.locations(v)) {
        if (at_pc < r.lo || at_pc >= r.hi) continue;
        const uint64_t addr = cfa + static_cast<uint64_t>(r.cfa_offset);
        if (r.piece_size == 0) {
          if (readable(m, addr, sizeOf(v.type))) scanValue(m, addr, v.type, v.type, 0);
        } else {
          scanPiece(m, addr, v.type, r.piece_offset, r.piece_size);
        }
      }
    }
  }
}

// One piece of a variable optimized code keeps partly in registers: the
// part of its type the piece holds, when it is a whole field, or a slice's or
// string's data pointer.
void Typer::scanPiece(const Memory& m, uint64_t addr, TypeId t, uint64_t offset, uint64_t size) {
  for (int depth = 0; t != kNoType && depth < kMaxDepth; depth++) {
    if (offset == 0 && sizeOf(t) == size) {
      if (readable(m, addr, size)) scanValue(m, addr, t, t, 0);
      return;
    }
    const bin::Type* rt = resolvedType(t);
    if (rt == nullptr) return;
    switch (kindOf(t)) {
      case GoKind::Slice:
        if (offset == 0 && size == ptr()) {
          // The capacity is elsewhere: the object's size bounds the count.
          const TypeId elem = dw_.type(t).elem != kNoType ? dw_.type(t).elem : rt->elem;
          assign(pointerAt(m, addr), elem, elem, 0, TypeForm::Array, /*approximate=*/true);
        }
        return;
      case GoKind::String:
        if (offset == 0 && size == ptr()) assignWeak(pointerAt(m, addr), TypeForm::StringBytes);
        return;
      case GoKind::Struct: {
        const bin::Field* inside = nullptr;
        for (const bin::Field& f : dw_.fields(*rt)) {
          if (offset >= f.offset && offset < f.offset + std::max<uint64_t>(sizeOf(f.type), 1)) {
            inside = &f;
          }
        }
        if (inside == nullptr) return;
        offset -= inside->offset;
        t = inside->type;
        continue;
      }
      case GoKind::Array: {
        const uint64_t esize = sizeOf(rt->elem);
        if (esize == 0) return;
        offset %= esize;
        t = rt->elem;
        continue;
      }
      default:
        return;
    }
  }
}

void Typer::seedFinalizersAndPanics() {
  for (const model::Finalizer& f : d_.finalizers) {
    // ot is the *T the finalizer was set on.
    const TypeId ot = typeAtRuntimeAddress(f.obj_type);
    const TypeId r = dw_.resolve(ot);
    if (r != kNoType && dw_.type(r).tag == DwarfTag::Pointer) {
      assign(f.obj, dw_.type(r).elem, dw_.type(r).elem, 0, TypeForm::Value);
    }
    assignWeak(f.fn_val, TypeForm::Closure);
  }
  for (const model::Panic& p : d_.panics) {
    const TypeId t = typeAtRuntimeAddress(p.eface_type);
    if (t == kNoType) continue;
    if (!directIface(p.eface_type, t)) {
      assign(p.eface_data, t, t, 0, TypeForm::Value);
    } else if (kindOf(t) == GoKind::Pointer) {
      const TypeId r = dw_.resolve(t);
      assign(p.eface_data, dw_.type(r).elem, dw_.type(r).elem, 0, TypeForm::Value);
    }
  }
}

void Typer::seedInterfaceWords() {
  // Itabs and descriptors lie in the executable's read-only data: a range
  // check spares the lookups for almost every word.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [itab, type] : itab_type_) {
    lo = std::min(lo, itab);
    hi = std::max(hi, itab);
  }
  if (const auto& m = exe_.binary().moduleLayout(); m && m->etypes > m->types) {
    lo = std::min(lo, m->types + exe_.loadBias());
    hi = std::max(hi, m->etypes + exe_.loadBias());
  }
  if (lo > hi) return;
  auto check = [&](const uint8_t* contents, uint64_t off) {
    if (off < ptr()) return;
    uint64_t type_word = words_.read(contents + off - ptr());
    if (type_word < lo || type_word > hi) return;
    const uint64_t data = words_.read(contents + off);
    const NodeId target = objectAt(data);
    if (target == kNoNode || of(target).form != TypeForm::None) return;  // typed already
    if (auto it = itab_type_.find(type_word); it != itab_type_.end()) type_word = it->second;
    evidence_ = TypeEvidence::Interface;
    typeInterfaceData(type_word, data);
    evidence_ = TypeEvidence::Table;
  };
  auto scanRange = [&](model::ByteRange contents, uint32_t layout) {
    const uint8_t* bytes = d_.bytes(contents).data();
    d_.forEachSlot(layout, [&](uint64_t off) { check(bytes, off); });
  };
  if (d_.data.present) scanRange(d_.data.contents, d_.data.layout);
  if (d_.bss.present) scanRange(d_.bss.contents, d_.bss.layout);
  for (const model::StackFrame& f : d_.frames) scanRange(f.contents, f.layout);
  // Typed objects' interfaces were read with their types.
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None) continue;
    const uint8_t* bytes = d_.objectData(o);
    d_.forEachObjectSlot(o, [&](uint64_t off) { check(bytes, off); });
  }
}

}  // namespace goheap::typing
