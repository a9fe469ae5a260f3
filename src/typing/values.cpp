#include "typing/values.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include "typing/map_layout.h"
#include "util/format.h"

namespace goheap::typing {

namespace {

using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

constexpr size_t kMaxArrayElementsShown = 16;
constexpr uint64_t kMaxStringShown = 200;
constexpr int kMaxDepth = 16;

class Decoder {
 public:
  Decoder(const model::HeapModel& d, const graph::Heap& h, const HeapTypes& types,
          const bin::DebugInfo& dw, const binding::BoundExecutable& exe, NodeId o, size_t limit)
      : d_(d), heap_(h), types_(types), dw_(dw), exe_(exe), limit_(limit) {
    bytes_ = d.objectData(o);
    size_ = d.objects.size[o];
    object_ = o;
  }

  void value(uint64_t off, TypeId t, const std::string& path, int depth);
  std::vector<FieldValue> take() { return std::move(out_); }

 private:
  bool full() const { return out_.size() >= limit_; }
  bool has(uint64_t off, uint64_t n) const { return off <= size_ && n <= size_ - off; }
  uint64_t uintAt(uint64_t off, uint64_t n) const {
    uint64_t v = 0;
    for (uint64_t i = 0; i < n; i++) {
      v = (v << 8) | bytes_[off + (d_.params.big_endian ? i : n - 1 - i)];
    }
    return v;
  }
  uint64_t wordAt(uint64_t off) const { return uintAt(off, d_.params.ptr_size); }
  std::string stringAt(uint64_t ptr, uint64_t len) const;
  std::string pointerText(uint64_t v) const;
  void emit(uint64_t off, TypeId t, const std::string& path, std::string value,
            bool is_string = false, uint64_t points_to = 0) {
    out_.push_back({path, off, goTypeName(t == kNoType ? "?" : dw_.type(t).name), std::move(value),
                    is_string, points_to});
  }

  const model::HeapModel& d_;
  const graph::Heap& heap_;
  const HeapTypes& types_;
  const bin::DebugInfo& dw_;
  const binding::BoundExecutable& exe_;
  size_t limit_;
  const uint8_t* bytes_ = nullptr;
  uint64_t size_ = 0;
  NodeId object_ = kNoNode;
  std::vector<FieldValue> out_;
};

std::string Decoder::stringAt(uint64_t ptr, uint64_t len) const {
  const uint64_t n = std::min(len, kMaxStringShown);
  std::string s;
  const NodeId o = heap_.addresses().find(ptr);
  if (o != kNoNode) {
    const uint64_t off = ptr - d_.objects.addr[o];
    if (off > d_.objects.size[o] || n > d_.objects.size[o] - off) return "?";
    s.assign(reinterpret_cast<const char*>(d_.objectData(o) + off), n);
  } else if (std::optional<bin::ByteView> b =
                 exe_.binary().container().readAt(ptr - exe_.loadBias(), n)) {
    // A string literal: in the executable's read-only data.
    s.assign(reinterpret_cast<const char*>(b->bytes().data()), n);
  } else {
    return "?";
  }
  if (n < len) s += "...";
  return s;
}

std::string Decoder::pointerText(uint64_t v) const {
  if (v == 0) return "nil";
  std::string s = formatHex(v);
  const NodeId o = heap_.addresses().find(v);
  if (o != kNoNode) {
    std::string t = typeName(types_, o, dw_, exe_, d_);
    if (!t.empty()) s += " (" + t + ")";
  }
  return s;
}

void Decoder::value(uint64_t off, TypeId t, const std::string& path, int depth) {
  if (full() || t == kNoType || depth > kMaxDepth) return;
  const TypeId r = dw_.resolve(t);
  if (r == kNoType) return;
  const bin::Type& rt = dw_.type(r);
  const uint32_t ptr = d_.params.ptr_size;
  if (!has(off, typeSize(dw_, t, ptr))) return;
  const GoKind kind = goKind(dw_, t);
  if (bin::isPointerShaped(kind)) {
    const uint64_t p = wordAt(off);
    emit(off, t, path, pointerText(p), false, p);
    return;
  }
  switch (kind) {
    case GoKind::Bool:
      emit(off, t, path, uintAt(off, 1) != 0 ? "true" : "false");
      return;
    case GoKind::Int:
    case GoKind::Int8:
    case GoKind::Int16:
    case GoKind::Int32:
    case GoKind::Int64: {
      uint64_t v = uintAt(off, rt.size);
      if (rt.size < 8 && (v >> (rt.size * 8 - 1)) != 0) v |= ~uint64_t{0} << (rt.size * 8);
      emit(off, t, path, std::to_string(static_cast<int64_t>(v)));
      return;
    }
    case GoKind::Uint:
    case GoKind::Uint8:
    case GoKind::Uint16:
    case GoKind::Uint32:
    case GoKind::Uint64:
      emit(off, t, path, std::to_string(uintAt(off, rt.size)));
      return;
    case GoKind::Uintptr:
      emit(off, t, path, formatHex(uintAt(off, rt.size)));
      return;
    case GoKind::Float32:
    case GoKind::Float64: {
      char buf[40];
      std::to_chars_result res{};
      if (rt.size == 4) {
        const auto bits = static_cast<uint32_t>(uintAt(off, 4));
        float f;
        std::memcpy(&f, &bits, 4);
        res = std::to_chars(buf, buf + sizeof buf, f);
      } else {
        const uint64_t bits = uintAt(off, 8);
        double f;
        std::memcpy(&f, &bits, 8);
        res = std::to_chars(buf, buf + sizeof buf, f);
      }
      emit(off, t, path, std::string(buf, res.ptr));
      return;
    }
    case GoKind::String: {
      const uint64_t p = wordAt(off);
      const uint64_t len = uintAt(off + ptr, ptr);
      emit(off, t, path, len == 0 ? "" : stringAt(p, len), /*is_string=*/true, p);
      return;
    }
    case GoKind::Slice: {
      const uint64_t p = wordAt(off);
      emit(off, t, path,
           "len " + std::to_string(uintAt(off + ptr, ptr)) + ", cap " +
               std::to_string(uintAt(off + 2 * ptr, ptr)) + ", " + pointerText(p),
           false, p);
      return;
    }
    case GoKind::Interface: {
      const uint64_t w = wordAt(off);
      const uint64_t data = wordAt(off + ptr);
      if (w == 0) {
        emit(off, t, path, "nil");
        return;
      }
      emit(off, t, path, pointerText(data), false, data);
      return;
    }
    case GoKind::Array: {
      const uint64_t esize = typeSize(dw_, rt.elem, ptr);
      for (uint64_t i = 0; i < rt.count && i < kMaxArrayElementsShown && esize > 0; i++) {
        value(off + i * esize, rt.elem, path + "[" + std::to_string(i) + "]", depth + 1);
      }
      return;
    }
    case GoKind::Struct:
      for (const bin::Field& f : dw_.fields(rt)) {
        if (f.name == "_") continue;  // padding
        value(off + f.offset, f.type,
              path.empty() ? std::string(f.name) : path + "." + std::string(f.name), depth + 1);
      }
      return;
    default:
      return;
  }
}

}  // namespace

std::vector<FieldValue> decodeFields(const model::HeapModel& model, const graph::Heap& heap,
                                     const HeapTypes& types, const bin::DebugInfo& dwarf,
                                     const binding::BoundExecutable& exe, NodeId object,
                                     size_t limit) {
  Decoder dec(model, heap, types, dwarf, exe, object, limit);
  const uint64_t start = types.dataOffset(object);
  const TypeId t = types.layout(object);
  if (types.form(object) == TypeForm::Value) {
    dec.value(start, t, "", 0);
  } else if (types.form(object) == TypeForm::Array) {
    const uint64_t esize = typeSize(dwarf, t, model.params.ptr_size);
    for (uint64_t i = 0; i < types.count(object) && i < kMaxArrayElementsShown && esize > 0; i++) {
      dec.value(start + i * esize, t, formatIndex(i), 0);
    }
  }
  return dec.take();
}

namespace {

// Walks from a value of type `t` down to the innermost field or array
// element holding `offset`, calling step(index_or_field_name) on the way;
// returns where it stopped.
template <class Step>
InnermostValue walkToInnermost(const bin::DebugInfo& dwarf, TypeId t, uint64_t offset,
                               uint32_t ptr_size, Step&& step) {
  for (int depth = 0; t != kNoType && depth < kMaxDepth; depth++) {
    const TypeId r = dwarf.resolve(t);
    if (r == kNoType) break;
    const bin::Type& rt = dwarf.type(r);
    const GoKind k = goKind(dwarf, t);
    if (k == GoKind::Array && rt.elem != kNoType) {
      const uint64_t esize = typeSize(dwarf, rt.elem, ptr_size);
      if (esize == 0) break;
      step(formatIndex(offset / esize));
      offset %= esize;
      t = rt.elem;
      continue;
    }
    if (k != GoKind::Struct) break;  // a slice, string or interface header: its own field
    const bin::Field* inside = nullptr;
    for (const bin::Field& f : dwarf.fields(rt)) {
      const uint64_t fsize = typeSize(dwarf, f.type, ptr_size);
      if (offset >= f.offset && offset < f.offset + std::max<uint64_t>(fsize, 1)) inside = &f;
    }
    if (inside == nullptr) break;
    // Appended rather than "." + name: GCC 12 at -O3 warns (-Wrestrict)
    // about a memcpy it cannot prove apart inside operator+.
    std::string field_step(1, '.');
    field_step.append(inside->name);
    step(field_step);
    offset -= inside->offset;
    t = inside->type;
  }
  return {t, offset};
}

}  // namespace

std::string fieldPathAt(const bin::DebugInfo& dwarf, TypeId t, uint64_t offset, uint32_t ptr_size) {
  std::string path;
  walkToInnermost(dwarf, t, offset, ptr_size, [&](const std::string& step) { path += step; });
  return path;
}

InnermostValue innermostAt(const bin::DebugInfo& dwarf, TypeId t, uint64_t offset,
                           uint32_t ptr_size) {
  return walkToInnermost(dwarf, t, offset, ptr_size, [](const std::string&) {});
}

std::optional<InnermostValue> objectValueAt(const HeapTypes& types, const bin::DebugInfo& dwarf,
                                            NodeId object, uint64_t offset, uint32_t ptr_size) {
  if (types.form(object) != TypeForm::Value && types.form(object) != TypeForm::Array) return {};
  if (offset < types.dataOffset(object)) return {};
  offset -= types.dataOffset(object);
  const TypeId t = types.layout(object);
  if (types.form(object) == TypeForm::Array) {
    const uint64_t esize = typeSize(dwarf, t, ptr_size);
    if (esize == 0 || offset / esize >= types.count(object)) return {};
    offset %= esize;
  } else if (offset >= std::max<uint64_t>(typeSize(dwarf, t, ptr_size), 1)) {
    return {};
  }
  return InnermostValue{t, offset};
}

std::string objectFieldPath(const HeapTypes& types, const bin::DebugInfo& dwarf, NodeId object,
                            uint64_t offset, uint32_t ptr_size) {
  if (types.form(object) != TypeForm::Value && types.form(object) != TypeForm::Array) return {};
  if (offset < types.dataOffset(object)) return {};
  offset -= types.dataOffset(object);
  const TypeId t = types.layout(object);
  if (types.form(object) == TypeForm::Value) return fieldPathAt(dwarf, t, offset, ptr_size);
  const uint64_t esize = typeSize(dwarf, t, ptr_size);
  if (esize == 0) return {};
  return formatIndex(offset / esize) + fieldPathAt(dwarf, t, offset % esize, ptr_size);
}

namespace {

bool within(uint64_t x, uint64_t start, uint64_t size) {
  return x >= start && x - start < std::max<uint64_t>(size, 1);
}

}  // namespace

std::string slotPath(const model::HeapModel& model, const graph::Heap& heap, const HeapTypes& types,
                     const bin::DebugInfo& dwarf, const binding::BoundExecutable& exe,
                     NodeId object, uint64_t offset) {
  std::string path = objectFieldPath(types, dwarf, object, offset, model.params.ptr_size);
  if (types.form(object) != TypeForm::Value && types.form(object) != TypeForm::Array) return path;
  const uint32_t ptr = model.params.ptr_size;
  const TypeId t = types.layout(object);
  const std::optional<MapSlots> m = mapSlots(dwarf, t, ptr);
  // The element of the bucket/group array holding `offset`, and where it is.
  const uint64_t esize = typeSize(dwarf, t, ptr);
  if (!m || esize == 0 || offset < types.dataOffset(object)) return path;
  const uint64_t in_object = offset - types.dataOffset(object);
  const uint64_t elem_start = types.dataOffset(object) + in_object / esize * esize;
  const uint64_t rel = in_object % esize;
  for (uint64_t i = 0; i < goruntime::kMapSlotsPerGroup; i++) {
    const uint64_t key_off = m->keys_off + i * m->key_stride;
    const uint64_t value_off = m->elems_off + i * m->elem_stride;
    const bool in_key = within(rel, key_off, m->key_size);
    const bool in_value = within(rel, value_off, m->elem_size);
    if (!in_key && !in_value) continue;
    Decoder dec(model, heap, types, dwarf, exe, object, 1);
    dec.value(elem_start + key_off, m->key_type, "", 0);
    std::vector<FieldValue> key = dec.take();
    if (key.empty()) return path;
    std::string text = key[0].is_string ? "[\"" + key[0].value + "\"]" : "[" + key[0].value + "]";
    if (in_value) return text + fieldPathAt(dwarf, m->elem_type, rel - value_off, ptr);
    return text + " (key)";
  }
  return path;  // tophash, ctrl or overflow
}

}  // namespace goheap::typing
