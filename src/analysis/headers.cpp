#include "analysis/headers.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "analysis/labels.h"
#include "analysis/slots.h"
#include "typing/heap_types.h"
#include "util/large_vector.h"
#include "util/parallel.h"

namespace goheap::analysis {

namespace {

using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

constexpr int kMaxDepth = 32;
constexpr uint64_t kUnrolled = 8;                     // arrays flattened up to this long
constexpr uint64_t kMaxElements = uint64_t{1} << 24;  // a corrupt count stays a short loop

// One header-holding part of a type, or a loop over a long array's elements.
struct Leaf {
  uint64_t offset = 0;
  HeaderKind kind = HeaderKind::String;
  bool loop = false;
  TypeId type = kNoType;   // loop: the element type; map: the map type
  TypeId elem = kNoType;   // slice element
  uint64_t elem_size = 0;  // slice element size; loop: stride
  uint64_t count = 0;      // loop
  bool byte_elems = false;
};

class Finder {
 public:
  Finder(const Snapshot& s, std::vector<Header>& out)
      : dw_(*s.exe->typeTable()), words_(s.model.words()), out_(out) {}

  // Scans `count` values of type t at `offset` in the holder's bytes.
  void scan(NodeId holder, const uint8_t* bytes, uint64_t size, uint64_t base, uint64_t offset,
            TypeId t, uint64_t count) {
    const uint64_t tsize = typing::typeSize(dw_, t, ptr());
    if (tsize == 0) return;
    count = std::min(count, kMaxElements);
    const std::vector<Leaf>& leaves = layoutOf(t);
    if (leaves.empty()) return;
    for (uint64_t i = 0; i < count; i++) {
      const uint64_t at = offset + i * tsize;
      if (at + tsize > size) return;
      scanLeaves(holder, bytes, size, base, at, leaves, 0);
    }
  }

 private:
  uint32_t ptr() const { return words_.ptrSize(); }

  void scanLeaves(NodeId holder, const uint8_t* bytes, uint64_t size, uint64_t base, uint64_t at,
                  const std::vector<Leaf>& leaves, int depth) {
    for (const Leaf& l : leaves) {
      const uint64_t off = at + l.offset;
      if (l.loop) {
        if (depth >= kMaxDepth) continue;
        const std::vector<Leaf>& inner = layoutOf(l.type);
        for (uint64_t i = 0; i < l.count; i++) {
          if (off + (i + 1) * l.elem_size > size) break;
          scanLeaves(holder, bytes, size, base, off + i * l.elem_size, inner, depth + 1);
        }
        continue;
      }
      const uint64_t words = l.kind == HeaderKind::Slice ? 3 : l.kind == HeaderKind::String ? 2 : 1;
      if (off + words * ptr() > size) continue;
      const uint8_t* p = bytes + off;
      Header h;
      h.holder = holder;
      h.offset = off;
      h.slot_address = base + off;
      h.kind = l.kind;
      h.data = words_.read(p);
      if (h.data == 0) continue;
      if (l.kind != HeaderKind::Map) h.len = words_.read(p + ptr());
      if (l.kind == HeaderKind::Slice) h.cap = words_.read(p + 2 * ptr());
      h.elem = l.kind == HeaderKind::Map ? l.type : l.elem;
      h.elem_size = l.kind == HeaderKind::String ? 1 : l.elem_size;
      h.byte_elems = l.byte_elems || l.kind == HeaderKind::String;
      pushBackLarge(out_, h);
    }
  }

  const std::vector<Leaf>& layoutOf(TypeId t) {
    auto [it, inserted] = layouts_.try_emplace(t);
    if (inserted) {
      std::vector<Leaf> leaves;
      build(t, 0, 0, leaves);
      layouts_[t] = std::move(leaves);
      return layouts_[t];
    }
    return it->second;
  }

  void build(TypeId t, uint64_t base, int depth, std::vector<Leaf>& out) {
    if (t == kNoType || depth > kMaxDepth) return;
    const TypeId r = dw_.resolve(t);
    if (r == kNoType) return;
    const bin::Type& rt = dw_.type(r);
    switch (typing::goKind(dw_, t)) {
      case GoKind::String:
        out.push_back({base, HeaderKind::String, false, t, kNoType, 1, 0, true});
        return;
      case GoKind::Map:
        out.push_back({base, HeaderKind::Map, false, t, kNoType, 0, 0, false});
        return;
      case GoKind::Slice: {
        TypeId elem = dw_.type(t).elem != kNoType ? dw_.type(t).elem : rt.elem;
        if (elem == kNoType) {
          for (const bin::Field& f : dw_.fields(rt)) {
            if (f.name != "array") continue;
            const TypeId p = dw_.resolve(f.type);
            if (p != kNoType) elem = dw_.type(p).elem;
          }
        }
        const uint64_t esize = typing::typeSize(dw_, elem, ptr());
        const TypeId er = dw_.resolve(elem);
        const bool bytes = esize == 1 && er != kNoType && dw_.type(er).name == "uint8";
        out.push_back({base, HeaderKind::Slice, false, t, elem, esize, 0, bytes});
        return;
      }
      case GoKind::Array: {
        const uint64_t esize = typing::typeSize(dw_, rt.elem, ptr());
        const uint64_t n = std::min(rt.count, kMaxElements);
        if (esize == 0 || n == 0) return;
        if (n <= kUnrolled) {
          for (uint64_t i = 0; i < n; i++) build(rt.elem, base + i * esize, depth + 1, out);
        } else {
          std::vector<Leaf> probe;
          build(rt.elem, 0, depth + 1, probe);
          if (!probe.empty())
            out.push_back({base, HeaderKind::String, true, rt.elem, kNoType, esize, n, false});
        }
        return;
      }
      case GoKind::Struct:
        for (const bin::Field& f : dw_.fields(rt)) build(f.type, base + f.offset, depth + 1, out);
        return;
      default:
        return;
    }
  }

  const bin::DebugInfo& dw_;
  WordReader words_;
  std::vector<Header>& out_;
  std::unordered_map<TypeId, std::vector<Leaf>> layouts_;
};

}  // namespace

std::vector<Header> findHeaders(const Snapshot& s, unsigned threads) {
  std::vector<Header> out;
  if (!s.types || !s.exe || s.exe->typeTable() == nullptr) return out;
  const typing::HeapTypes& t = *s.types;
  const model::HeapModel& d = s.model;
  // The objects in contiguous ranges, one per thread, each with its own
  // finder (its layouts are a cache); the ranges' headers in order.
  std::vector<std::vector<Header>> found(std::max(1u, threads));
  forEachRange(s.heap.objectCount(), threads, [&](unsigned part, size_t first, size_t last) {
    Finder finder(s, found[part]);
    for (auto o = static_cast<NodeId>(first); o < last; o++) {
      const typing::TypeForm form = t.form(o);
      if (form != typing::TypeForm::Value && form != typing::TypeForm::Array) continue;
      const uint64_t count = form == typing::TypeForm::Array ? t.count(o) : 1;
      finder.scan(o, d.objectData(o), d.objects.size[o], d.objects.addr[o], t.dataOffset(o),
                  t.layout(o), count);
    }
  });
  out = joinLarge(found);
  Finder finder(s, out);
  const bin::DebugInfo& dw = *s.exe->typeTable();
  const uint64_t bias = s.exe->loadBias();
  for (NodeId n = s.heap.objectCount(); n < s.heap.nodeCount(); n++) {
    const graph::RootKind kind = s.heap.rootKind(n);
    if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) continue;
    const model::Segment& seg = kind == graph::RootKind::DataSegment ? d.data : d.bss;
    if (!seg.present) continue;
    for (const bin::GlobalVariable& g : dw.globals()) {
      const uint64_t addr = g.address + bias;
      if (addr < seg.addr || addr - seg.addr >= seg.contents.size) continue;
      finder.scan(n, d.bytes(seg.contents).data(), seg.contents.size, seg.addr, addr - seg.addr,
                  g.type, 1);
    }
  }
  return out;
}

uint64_t slotPointingInto(const Snapshot& s, NodeId from, NodeId target) {
  if (from == kNoNode || !s.heap.isObject(target)) return 0;
  const uint64_t lo = s.model.objects.addr[target];
  const uint64_t hi = lo + std::max<uint64_t>(s.model.objects.size[target], 1);
  uint64_t found = 0;
  forEachNodeSlot(s, from, [&](uint64_t, uint64_t word, uint64_t slot) {
    if (found == 0 && word >= lo && word < hi) found = slot;
  });
  return found;
}

std::string describeHolder(const Snapshot& s, NodeId holder, uint64_t slot_address) {
  if (holder == kNoNode) return "?";
  if (!s.heap.isObject(holder)) return labelHolder(s, holder, slot_address).name;
  std::string name = labelNode(s, holder).name;
  if (slot_address != 0 && s.types) {
    const std::string field =
        slotField(s, holder, slot_address - s.model.objects.addr[holder], slot_address);
    if (!field.empty() && field.front() != '[') name += field;
  }
  // One step up: what holds the holder (its first referrer).
  const auto preds = s.heap.predecessors().neighbors(holder);
  if (preds.empty()) return name;
  const NodeId up = preds[0];
  if (up == s.heap.superRoot()) return name;
  std::string above;
  if (s.heap.isObject(up)) {
    above = labelNode(s, up).name;
  } else {
    // A global without a symbol is named by what it points at: the holder.
    const NodeLabel l = labelHolder(s, up, slotPointingInto(s, up, holder));
    const bool named_by_target =
        l.global.empty() && (l.kind == "data segment" || l.kind == "bss segment");
    above = named_by_target ? l.short_name : l.name;
  }
  return above + " \u2192 " + name +
         (preds.size() > 1 ? " (+" + std::to_string(preds.size() - 1) + " more)" : "");
}

uint64_t hashBytes(const uint8_t* p, uint64_t n) {
  // Multiply-xorshift over 8-byte words: fast, and good enough to split
  // contents into candidate groups that are then compared byte by byte.
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = n * kMul ^ 0x2545f4914f6cdd1dULL;
  auto mix = [&](uint64_t w) {
    h ^= w * kMul;
    h = (h << 29 | h >> 35) * 0xbf58476d1ce4e5b9ULL;
  };
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    mix(w);
  }
  if (i < n) {
    uint64_t w = 0;
    std::memcpy(&w, p + i, n - i);
    mix(w);
  }
  h ^= h >> 31;
  return h * 0x94d049bb133111ebULL;
}

}  // namespace goheap::analysis
