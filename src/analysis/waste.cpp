#include "analysis/waste.h"

#include <algorithm>
#include <atomic>
#include <unordered_map>

#include "analysis/headers.h"
#include "analysis/slots.h"
#include "typing/heap_types.h"
#include "typing/map_layout.h"
#include "util/large_vector.h"
#include "util/parallel.h"

namespace goheap::analysis {

namespace {

using bin::kNoType;
using bin::TypeId;

constexpr uint64_t kSparseMinCapacity = 64;

template <class Row, class Less>
void sortAndCut(std::vector<Row>& rows, size_t limit, Less less) {
  if (limit != 0 && rows.size() > limit) {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(limit), rows.end(),
                      less);
    rows.resize(limit);
    return;
  }
  std::sort(rows.begin(), rows.end(), less);
}

void sizeClassRounding(const Snapshot& s, const WasteOptions& options, Waste& w) {
  const typing::HeapTypes& t = *s.types;
  const bin::DebugInfo& dw = *s.exe->typeTable();
  const uint32_t ptr = s.model.params.ptr_size;
  struct Key {
    TypeId layout;
    uint32_t count;
    uint64_t size;
    bool array;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(uint64_t{k.layout} * 0x9e3779b97f4a7c15ULL ^ k.size * 31 ^
                                   uint64_t{k.count} << 1 ^ (k.array ? 1 : 0));
    }
  };
  struct Acc {
    NodeId first;
    RoundingRow row;
  };
  std::unordered_map<Key, Acc, KeyHash> rows;
  std::unordered_map<TypeId, uint64_t> sizes;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    const typing::TypeForm form = t.form(o);
    if (form != typing::TypeForm::Value && form != typing::TypeForm::Array) continue;
    if (!s.reachable(o)) continue;
    const bool array = form == typing::TypeForm::Array;
    const Key key{t.layout(o), array ? t.count(o) : 1, s.model.objects.size[o], array};
    auto [it, inserted] = rows.try_emplace(key, Acc{o, {}});
    RoundingRow& r = it->second.row;
    if (inserted) {
      auto [sz, fresh] = sizes.try_emplace(key.layout, 0);
      if (fresh) sz->second = typing::typeSize(dw, key.layout, ptr);
      r.type_size = sz->second * key.count;
      r.slot_size = key.size;
      r.header = t.dataOffset(o);
    }
    r.count++;
  }
  for (auto& [key, acc] : rows) {
    RoundingRow& r = acc.row;
    const uint64_t used = r.header + r.type_size;
    r.wasted = r.slot_size > used ? r.count * (r.slot_size - used) : 0;
    w.rounding_objects += r.count;
    w.rounding_header += r.count * r.header;
    w.rounding_wasted += r.wasted;
    if (r.wasted == 0) continue;
    r.type = s.namer().typeName(acc.first);
    w.rounding.push_back(std::move(r));
  }
  w.rounding_rows = w.rounding.size();
  sortAndCut(w.rounding, options.limit, [](const RoundingRow& a, const RoundingRow& b) {
    if (a.wasted != b.wasted) return a.wasted > b.wasted;
    return a.type < b.type;
  });
}

void hiddenArrays(const Snapshot& s, const std::vector<Header>& headers,
                  const WasteOptions& options, Waste& w) {
  const model::HeapModel& d = s.model;
  struct Seen {
    NodeId object;
    uint64_t lo, hi;  // the visible part, in the object
    const Header* header;
  };
  std::vector<Seen> seen;
  std::vector<uint32_t> slice_refs(s.heap.objectCount(), 0);
  for (const Header& h : headers) {
    if (h.kind != HeaderKind::Slice || !s.reachable(h.holder)) continue;
    const NodeId o = s.heap.addresses().find(h.data);
    if (o == kNoNode || !s.reachable(o)) continue;
    const uint64_t lo = h.data - d.objects.addr[o];
    const uint64_t hi = std::min<uint64_t>(lo + h.len * h.elem_size, d.objects.size[o]);
    pushBackLarge(seen, Seen{o, lo, std::max(lo, hi), &h});
    slice_refs[o]++;
  }
  // An array some other pointer also reaches is kept whole by it: count
  // every reachable pointer slot into the arrays the slices reach.
  // The nodes in contiguous ranges, one per thread; the counts are sums, the
  // same in any order.
  std::vector<uint32_t> all_refs(s.heap.objectCount(), 0);
  std::vector<uint8_t> excluded(s.heap.objectCount(), 0);
  forEachRange(s.heap.nodeCount(), options.threads, [&](unsigned, size_t first, size_t last) {
    for (auto n = static_cast<NodeId>(first); n < last; n++) {
      if (n == s.heap.superRoot() || !s.reachable(n)) continue;
      const bool has_slots = s.heap.isObject(n) ||
                             s.heap.rootKind(n) == graph::RootKind::DataSegment ||
                             s.heap.rootKind(n) == graph::RootKind::BssSegment ||
                             s.heap.rootKind(n) == graph::RootKind::StackFrame;
      if (!has_slots) {
        // Goroutines, finalizers, defers: pointers outside any slot.
        for (NodeId o : s.heap.successors.neighbors(n)) {
          if (s.heap.isObject(o) && slice_refs[o] > 0) {
            std::atomic_ref<uint8_t>(excluded[o]).store(1, std::memory_order_relaxed);
          }
        }
        continue;
      }
      forEachNodeSlot(s, n, [&](uint64_t, uint64_t word, uint64_t) {
        if (word == 0) return;
        const NodeId o = s.heap.addresses().find(word);
        if (o != kNoNode && slice_refs[o] > 0) {
          std::atomic_ref<uint32_t>(all_refs[o]).fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
  });
  std::sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) {
    if (a.object != b.object) return a.object < b.object;
    return a.lo < b.lo;
  });
  struct Hidden {
    NodeId object;
    uint64_t visible, hidden, slices;
    const Header* header;  // the first slice's
    bool flagged;
  };
  std::vector<Hidden> hidden;
  for (size_t i = 0; i < seen.size();) {
    size_t j = i;
    uint64_t visible = 0, end = 0;
    while (j < seen.size() && seen[j].object == seen[i].object) {
      const uint64_t lo = std::max(seen[j].lo, end);
      if (seen[j].hi > lo) visible += seen[j].hi - lo;
      end = std::max(end, seen[j].hi);
      j++;
    }
    const NodeId o = seen[i].object;
    const uint64_t size = d.objects.size[o];
    if (excluded[o] == 0 && all_refs[o] == slice_refs[o] && visible < size) {
      const uint64_t hidden_bytes = size - visible;
      // Half of a small array is a few bytes no one will chase; half of
      // one of 1 KiB or more is worth a look.
      const bool flagged = hidden_bytes >= options.hidden_threshold ||
                           (hidden_bytes * 2 > size && hidden_bytes >= 512);
      const Hidden r{o, visible, hidden_bytes, j - i, seen[i].header, flagged};
      w.hidden_arrays++;
      w.hidden_bytes += r.hidden;
      if (flagged) w.hidden_flagged++;
      pushBackLarge(hidden, r);
    }
    i = j;
  }
  // Only the rows kept are named: naming every hidden array of a large
  // heap costs more than finding them.
  sortAndCut(hidden, options.limit, [&](const Hidden& a, const Hidden& b) {
    if (a.hidden != b.hidden) return a.hidden > b.hidden;
    return d.objects.addr[a.object] < d.objects.addr[b.object];
  });
  for (const Hidden& h : hidden) {
    HiddenArrayRow r;
    r.object = h.object;
    r.size = d.objects.size[h.object];
    r.visible = h.visible;
    r.hidden = h.hidden;
    r.slices = h.slices;
    r.flagged = h.flagged;
    r.holder = describeHolder(s, h.header->holder, h.header->slot_address);
    r.type = s.namer().typeName(h.object);
    // A slice into the middle of an array does not type it: its name then.
    if (r.type.empty()) r.type = s.namer().name(h.object);
    w.hidden.push_back(std::move(r));
  }
}

// Reads the runtime's map structures through typing/map_layout.h.
class MapReader {
 public:
  explicit MapReader(const Snapshot& s)
      : s_(s), dw_(*s.exe->typeTable()), words_(s.model.words()) {}

  bool isMap(TypeId layout) const { return typing::isMapHeader(dw_, dw_.resolve(layout)); }

  // Fills len, capacity and storage of the map whose header is object o.
  void read(NodeId o, MapRow& r) const {
    const typing::HeapTypes& t = *s_.types;
    const TypeId layout = dw_.resolve(t.layout(o));
    const uint64_t base = t.dataOffset(o);
    r.storage = s_.model.objects.size[o];
    const std::optional<typing::MapHeaderFields> map = typing::mapHeaderFields(dw_, layout);
    if (!map || map->length == nullptr) return;
    r.len = uintAt(o, base + map->length->offset, size(map->length->type));
    if (map->buckets != nullptr) {
      const bin::Field* b = map->log2_buckets;
      const uint64_t B = b == nullptr ? 0 : std::min<uint64_t>(uintAt(o, base + b->offset, 1), 40);
      r.capacity = goruntime::kMapSlotsPerGroup << B;
      for (const bin::Field* f : {map->buckets, map->old_buckets}) {
        if (f != nullptr) r.storage += objectSize(ptrAt(o, base + f->offset));
      }
      return;
    }
    const uint64_t dir_ptr = ptrAt(o, base + map->directory->offset);
    const bin::Field* dir_len = map->directory_length;
    const uint64_t n = uintAt(o, base + dir_len->offset, size(dir_len->type));
    if (dir_ptr == 0) return;
    r.storage += objectSize(dir_ptr);
    if (n == 0) {  // one group, no table
      r.capacity = goruntime::kMapSlotsPerGroup;
      return;
    }
    const NodeId dir_obj = s_.heap.addresses().find(dir_ptr);
    if (dir_obj == kNoNode) return;
    std::vector<uint64_t> tables;
    const uint64_t at = dir_ptr - s_.model.objects.addr[dir_obj];
    for (uint64_t i = 0; i < n && i < 4096; i++) {
      if (at + (i + 1) * words_.ptrSize() > s_.model.objects.size[dir_obj]) break;
      tables.push_back(ptrAt(dir_obj, at + i * words_.ptrSize()));
    }
    std::sort(tables.begin(), tables.end());
    tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
    for (uint64_t tp : tables) {
      const NodeId tab = s_.heap.addresses().find(tp);
      if (tab == kNoNode || t.form(tab) != typing::TypeForm::Value) continue;
      const uint64_t tb = tp - s_.model.objects.addr[tab];
      r.storage += s_.model.objects.size[tab];
      const std::optional<typing::TableFields> table =
          typing::tableFields(dw_, dw_.resolve(t.layout(tab)));
      if (!table) continue;
      if (const bin::Field* cap = table->capacity) {
        r.capacity += uintAt(tab, tb + cap->offset, size(cap->type));
      }
      r.storage += objectSize(ptrAt(tab, tb + table->groups_data_offset));
    }
  }

 private:
  uint64_t size(TypeId t) const { return typing::typeSize(dw_, t, words_.ptrSize()); }
  const uint8_t* bytes(NodeId o) const { return s_.model.objectData(o); }
  uint64_t ptrAt(NodeId o, uint64_t off) const {
    if (off + words_.ptrSize() > s_.model.objects.size[o]) return 0;
    return words_.read(bytes(o) + off);
  }
  uint64_t uintAt(NodeId o, uint64_t off, uint64_t n) const {
    if (n == 0 || n > 8 || off + n > s_.model.objects.size[o]) return 0;
    uint64_t v = 0;
    const uint8_t* p = bytes(o) + off;
    for (uint64_t i = 0; i < n; i++) v = v << 8 | p[words_.bigEndian() ? i : n - 1 - i];
    return v;
  }
  uint64_t objectSize(uint64_t ptr) const {
    const NodeId o = ptr == 0 ? kNoNode : s_.heap.addresses().find(ptr);
    return o == kNoNode ? 0 : s_.model.objects.size[o];
  }

  const Snapshot& s_;
  const bin::DebugInfo& dw_;
  WordReader words_;
};

void sparseMaps(const Snapshot& s, const std::vector<Header>& headers, const WasteOptions& options,
                Waste& w) {
  const typing::HeapTypes& t = *s.types;
  const MapReader reader(s);
  // Where each map header is held: the first map header pointing at it.
  std::unordered_map<uint64_t, const Header*> held;
  for (const Header& h : headers) {
    if (h.kind == HeaderKind::Map && s.reachable(h.holder)) held.try_emplace(h.data, &h);
  }
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (t.form(o) != typing::TypeForm::Value || !s.reachable(o) || !reader.isMap(t.layout(o))) {
      continue;
    }
    MapRow r;
    r.map = o;
    reader.read(o, r);
    r.sparse = r.capacity >= kSparseMinCapacity && r.len * 4 < r.capacity;
    w.map_count++;
    if (r.sparse) {
      w.sparse_maps++;
      w.sparse_storage += r.storage;
    }
    r.type = s.namer().typeName(o);
    const uint64_t addr = s.model.objects.addr[o] + t.dataOffset(o);
    if (auto it = held.find(addr); it != held.end()) {
      r.holder = describeHolder(s, it->second->holder, it->second->slot_address);
    } else if (const auto preds = s.heap.predecessors().neighbors(o); !preds.empty()) {
      r.holder = describeHolder(s, preds[0], slotPointingInto(s, preds[0], o));
    }
    w.maps.push_back(std::move(r));
  }
  sortAndCut(w.maps, options.limit, [&](const MapRow& a, const MapRow& b) {
    if (a.sparse != b.sparse) return a.sparse;
    if (a.storage != b.storage) return a.storage > b.storage;
    return s.model.objects.addr[a.map] < s.model.objects.addr[b.map];
  });
}

void garbage(const Snapshot& s, const WasteOptions& options, Waste& w) {
  const typing::Grouping g =
      s.namer().group(s.types ? typing::GroupKind::Type : typing::GroupKind::Site);
  std::vector<GarbageRow> rows(g.names.size());
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!s.isGarbage(o)) continue;
    GarbageRow& r = rows[g.group_of[o]];
    r.count++;
    r.bytes += s.model.objects.size[o];
    w.garbage_objects++;
    w.garbage_bytes += s.model.objects.size[o];
  }
  for (size_t i = 0; i < rows.size(); i++) {
    if (rows[i].count == 0) continue;
    rows[i].name = g.names[i];
    rows[i].source = std::string(typing::nameSourceName(g.sources[i]));
    w.garbage.push_back(std::move(rows[i]));
  }
  w.garbage_groups = w.garbage.size();
  sortAndCut(w.garbage, options.limit, [](const GarbageRow& a, const GarbageRow& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.name < b.name;
  });
}

}  // namespace

Waste findWaste(const Snapshot& s, const WasteOptions& options,
                const std::vector<Header>* known_headers) {
  Waste w;
  w.typed = s.types != nullptr;
  if (w.typed) {
    std::vector<Header> found;
    if (known_headers == nullptr) found = findHeaders(s, options.threads);
    const std::vector<Header>* headers = known_headers != nullptr ? known_headers : &found;
    sizeClassRounding(s, options, w);
    hiddenArrays(s, *headers, options, w);
    sparseMaps(s, *headers, options, w);
  }
  garbage(s, options, w);
  return w;
}

}  // namespace goheap::analysis
