// Typer's inference for objects nothing typed: by size class and pointer
// words, closures, arrays of interfaces (typer.h).
#include "typing/typer.h"

#include "typing/typing_rounds.h"

namespace goheap::typing {

void Typer::inferByShape() {
  // Candidates: the table's real Go types (those with a descriptor) that
  // hold pointers, by (size class, pointer words).
  std::map<std::pair<uint64_t, std::vector<uint64_t>>, std::vector<TypeId>> by_shape;
  std::vector<uint64_t> words;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.runtime_type == 0 || ty.tag == DwarfTag::Typedef || ty.size == 0) continue;
    if (ty.kind != GoKind::Struct && ty.kind != GoKind::Array) continue;
    const bool runtime =
        ty.name.starts_with("runtime.") || ty.name.starts_with("internal/runtime/");
    if (neverAllocatedAlone(ty.name) || isShapeType(ty.name)) continue;
    const uint64_t slot = sizeClassOf(ty.size);
    if (slot == 0) continue;
    words.clear();
    pointerWords(t, 0, 0, words);
    // The runtime's own structs (its g, m and p on Go 1.21 and before,
    // which have no malloc header) only by a mask of their own: one of a
    // few words could be many a program's.
    if (words.empty() || words.size() > kMaxMaskWords || (runtime && words.size() < 4)) continue;
    by_shape[{slot, words}].push_back(t);
  }
  if (by_shape.empty()) return;
  // Element shapes: any object might be the backing array of a slice of
  // some element type, whose descriptor the table need not have as an
  // array ([]*T's [cap]*T): a mask such an array explains is ambiguous.
  // The element types by their size and pointer mask.
  std::map<uint64_t, std::map<std::vector<uint64_t>, std::vector<TypeId>>> elements;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    // Named types are typedefs in DWARF: the structs are not, the named
    // interfaces are, and an array of them is as plausible as of any.
    if (ty.runtime_type == 0 || (ty.tag == DwarfTag::Typedef && ty.kind != GoKind::Interface)) {
      continue;
    }
    const uint64_t size = sizeOf(t);
    if (size == 0 || size > 16384) continue;
    words.clear();
    pointerWords(t, 0, 0, words);
    if (!words.empty() && words.size() <= kMaxMaskWords) elements[size][words].push_back(t);
  }
  // The element types E and sizes of the arrays [k]E (k >= 2, the last
  // element holding the last pointer word) whose mask is `mask`: the first
  // element's mask repeated k times. Adds them to `out`.
  using Candidate = std::pair<TypeId, uint64_t>;  // a type, and its size if an element type
  auto explainedByArray = [&](uint64_t object_size, const std::vector<uint64_t>& mask,
                              std::vector<uint64_t>& first, std::vector<Candidate>& out) {
    for (const auto& [esize, masks] : elements) {
      const uint64_t k = mask.back() / esize + 1;
      if (k < 2 || k * esize > object_size || mask.size() % k != 0) continue;
      const size_t per = mask.size() / k;
      first.assign(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(per));
      auto it = masks.find(first);
      if (it == masks.end()) continue;
      bool same = true;
      for (size_t i = per; i < mask.size() && same; i++) {
        same = mask[i] == mask[i - per] + esize;
      }
      if (!same) continue;
      for (TypeId e : it->second) out.emplace_back(e, esize);
    }
  };
  const uint64_t header_threshold =
      runtime_.malloc_header_size != 0 ? uint64_t{ptr()} * ptr() * 8 : UINT64_MAX;
  // First the candidates of every untyped object: they depend on its own
  // bytes and the table alone (and this loop types nothing), so they are
  // found on every thread, in parts of the heap put back in order.
  struct Shaped {
    NodeId object;
    uint32_t first, count;  // its candidates in the part's list
  };
  struct Part {
    std::vector<Shaped> objects;
    std::vector<Candidate> candidates;
  };
  const size_t n = heap_.objectCount();
  std::vector<Part> parts(std::min<size_t>(64, n / 4096 + 1));
  rounds_->forEachPart(parts.size(), [&](Typer& self, size_t p) {
    std::vector<uint64_t> mask, first;
    Part& part = parts[p];
    for (NodeId o = static_cast<NodeId>(n * p / parts.size()); o < n * (p + 1) / parts.size();
         o++) {
      if (self.of(o).form != TypeForm::None || !holdsPointers(o)) continue;
      const uint64_t size = d_.objects.size[o];
      if (size > header_threshold || size > 32768) continue;  // headers name those
      mask.clear();
      d_.forEachObjectSlot(o, [&](uint64_t off) { mask.push_back(off); });
      std::sort(mask.begin(), mask.end());
      // Candidates: the structs of this shape, and the element types of
      // the arrays whose mask it is (a slice's backing array).
      const size_t before = part.candidates.size();
      if (auto it = by_shape.find({size, mask}); it != by_shape.end()) {
        for (TypeId t : it->second) part.candidates.emplace_back(t, 0);
      }
      explainedByArray(size, mask, first, part.candidates);
      const size_t count = part.candidates.size() - before;
      // A closure's context starts with its function's entry: no Go type.
      if (count == 0 || exe_.functionEntry(words_.read(d_.objectData(o))) != nullptr) {
        part.candidates.resize(before);
        continue;
      }
      part.objects.push_back({o, static_cast<uint32_t>(before), static_cast<uint32_t>(count)});
    }
  });
  // Then, in id order, the one whose pointer fields agree with what they
  // point at: the types of those objects, some typed by this loop.
  evidence_ = TypeEvidence::Inferred;
  std::vector<Candidate> candidates;
  for (const Part& part : parts) {
    for (const Shaped& shaped : part.objects) {
      const NodeId o = shaped.object;
      const uint64_t size = d_.objects.size[o];
      candidates.assign(part.candidates.begin() + shaped.first,
                        part.candidates.begin() + shaped.first + shaped.count);
      // Several fit: keep the one whose pointer fields (the first
      // element's, for an array) agree with the objects they point at
      // (their types, or their shapes), when exactly one does.
      if (candidates.size() > 1) {
        std::erase_if(candidates,
                      [&](const auto& c) { return targetsAgree(o, c.first) != Agreement::Agrees; });
      } else if (targetsAgree(o, candidates.front().first) == Agreement::Contradicts) {
        continue;  // one fits, but what it points at says otherwise
      }
      if (candidates.size() != 1) continue;
      const auto [chosen, esize] = candidates.front();
      if (esize == 0) {
        assign(d_.objects.addr[o] + of(o).data_offset, chosen, chosen, 0, TypeForm::Value);
      } else {
        // Only arrays of structs: a mask of pointers or strings repeated
        // is any slice's of them.
        if (kindOf(chosen) != GoKind::Struct || neverAllocatedAlone(dw_.type(chosen).name)) {
          continue;
        }
        assign(d_.objects.addr[o], chosen, chosen, size / esize, TypeForm::Array,
               /*approximate=*/true);
      }
      if (of(o).form != TypeForm::None) counts_.inferred_objects++;
    }
  }
  evidence_ = TypeEvidence::Table;
}

bool Typer::fitsObject(NodeId o, TypeId t, uint64_t n) {
  const uint64_t size = d_.objects.size[o];
  const uint64_t esize = sizeOf(t);
  if (esize == 0 || n == 0 || n > size / esize) return false;
  const uint64_t need = esize * n;
  // A small object takes the smallest size class that holds it; a large
  // one, whole pages.
  constexpr uint64_t kPage = 8192;
  if (need <= kSizeClasses[std::size(kSizeClasses) - 1] ? sizeClassOf(need) != size
                                                        : size - need >= kPage) {
    return false;
  }
  std::vector<uint64_t> want, got;
  uint64_t covered = 0;  // the bytes `want` describes
  for (uint64_t i = 0; i < n && want.size() <= kMaxMaskWords; i++, covered += esize) {
    pointerWords(t, i * esize, 0, want);
  }
  d_.forEachObjectSlot(o, [&](uint64_t off) {
    if (off < covered) got.push_back(off);
  });
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  std::erase_if(want, [&](uint64_t off) { return off >= covered; });
  return want == got;
}

Typer::Agreement Typer::targetsAgree(NodeId o, TypeId t) {
  const uint8_t* bytes = d_.objectData(o) + of(o).data_offset;
  const uint64_t size = d_.objects.size[o] - of(o).data_offset;
  std::vector<uint64_t> want, got;
  size_t checked = 0;
  for (const ScanOp& op : layoutOf(t)) {
    if (op.kind != ScanOp::Leaf || op.offset + ptr() > size) continue;
    const GoKind kind = kindOf(op.type);
    if (kind == GoKind::Interface && op.offset + 2 * ptr() <= size) {
      // The type or itab word: nil with a nil data word, else one the
      // table or the heap's itabs know (when the itabs could be read).
      const uint64_t word = words_.read(bytes + op.offset);
      const uint64_t data = words_.read(bytes + op.offset + ptr());
      const bool known = itab_type_.contains(word) || typeAtRuntimeAddress(word) != kNoType;
      if (word == 0 ? data != 0 : !known && !itab_type_.empty()) return Agreement::Contradicts;
      checked += word != 0;
      continue;
    }
    if (kind == GoKind::Map || kind == GoKind::Chan) {
      // A typed map or chan object must be of this header (map<K,V>,
      // hchan<T>).
      const NodeId to = objectAt(words_.read(bytes + op.offset));
      const TypeId r = dw_.resolve(op.type);
      if (to == kNoNode || of(to).form != TypeForm::Value || r == kNoType) continue;
      checked++;
      if (dw_.type(r).tag != DwarfTag::Pointer ||
          dw_.resolve(dw_.type(r).elem) != dw_.resolve(of(to).layout)) {
        return Agreement::Contradicts;
      }
      continue;
    }
    if (kind != GoKind::Pointer && kind != GoKind::String) continue;
    const NodeId to = objectAt(words_.read(bytes + op.offset));
    if (to == kNoNode) continue;
    checked++;
    if (kind == GoKind::String) {  // a string's bytes hold no pointers
      if (holdsPointers(to)) return Agreement::Contradicts;
      continue;
    }
    const TypeId r = dw_.resolve(op.type);
    const TypeId elem = r == kNoType ? kNoType : dw_.type(r).elem;
    if (elem == kNoType) return Agreement::Contradicts;
    if (of(to).form == TypeForm::Value) {
      if (dw_.resolve(of(to).layout) != dw_.resolve(elem) && !startsWith(of(to).layout, elem)) {
        return Agreement::Contradicts;
      }
      continue;
    }
    if (sizeClassOf(sizeOf(elem)) != d_.objects.size[to]) return Agreement::Contradicts;
    want.clear();
    pointerWords(elem, 0, 0, want);
    std::sort(want.begin(), want.end());
    got.clear();
    d_.forEachObjectSlot(to, [&](uint64_t off) { got.push_back(off); });
    std::sort(got.begin(), got.end());
    if (want != got) return Agreement::Contradicts;
  }
  return checked > 0 ? Agreement::Agrees : Agreement::Unchecked;
}

void Typer::inferClosures() {
  evidence_ = TypeEvidence::Inferred;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None || d_.objects.size[o] < ptr()) continue;
    if (d_.objects.isSpanMetadata(o)) continue;
    const bin::Func* f = exe_.functionEntry(words_.read(d_.objectData(o)));
    if (f == nullptr || !bin::isClosureName(f->name)) continue;
    assignWeak(d_.objects.addr[o], TypeForm::Closure);
    if (of(o).form != TypeForm::None) counts_.inferred_objects++;
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::inferInterfaceArrays() {
  const TypeId eface = dw_.typeByName("interface {}");
  if (types_base_ == 0) return;
  const auto& layout = exe_.binary().moduleLayout();
  if (!layout || layout->etypes <= layout->types) return;
  const uint64_t lo = layout->types + exe_.loadBias(), hi = layout->etypes + exe_.loadBias();
  const uint64_t pair = 2 * uint64_t{ptr()};
  // An itab's interface (itab.inter, its first word), for the itabs the
  // executable's file holds.
  auto interfaceOf = [&](uint64_t itab) {
    if (!itab_type_.contains(itab)) return kNoType;
    const auto inter = exe_.binary().container().pointerAt(itab - exe_.loadBias());
    return inter ? typeAtRuntimeAddress(*inter + exe_.loadBias()) : kNoType;
  };
  std::vector<uint64_t> slots;
  evidence_ = TypeEvidence::Inferred;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (of(o).form != TypeForm::None || size < 2 * pair || !holdsPointers(o)) continue;
    slots.clear();
    d_.forEachObjectSlot(o, [&](uint64_t off) { slots.push_back(off); });
    std::sort(slots.begin(), slots.end());
    // The collector skips an interface's type or itab word (neither is in
    // the heap): the data word of every element is a pointer slot, and
    // nothing else is.
    const uint64_t n = slots.back() / pair + 1;
    if (slots.size() != n || n * pair > size) continue;
    TypeId elem = kNoType;
    bool all = true;
    uint64_t used = 0;
    for (uint64_t i = 0; i < n && all; i++) {
      all = slots[i] == i * pair + ptr();
      const uint64_t word = words_.read(d_.objectData(o) + i * pair);
      if (!all || word == 0) continue;
      // Every element an eface (a type descriptor), or every one an iface
      // of the same interface (an itab).
      TypeId t = word >= lo && word < hi && typeAtRuntimeAddress(word) != kNoType ? eface : kNoType;
      if (t == kNoType) t = interfaceOf(word);
      all = t != kNoType && (elem == kNoType || elem == t);
      elem = t;
      used++;
    }
    if (!all || used < 2 || elem == kNoType) continue;
    assign(d_.objects.addr[o], elem, elem, n, TypeForm::Array, /*approximate=*/true);
    if (of(o).form != TypeForm::None) counts_.inferred_objects++;
  }
  evidence_ = TypeEvidence::Table;
}

}  // namespace goheap::typing
