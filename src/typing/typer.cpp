// Typer: assigning a type to an object, and scanning a typed value for the
// types of the objects it points at (typer.h).
#include "typing/typer.h"

#include "typing/map_layout.h"
#include "typing/typing_rounds.h"

namespace goheap::typing {

GoKind Typer::kindOf(TypeId t) const {
  return goKind(dw_, t);
}

bool Typer::hasPointers(TypeId t) {
  if (t == kNoType) return false;
  if (has_pointers_[t] >= 0) return has_pointers_[t] != 0;
  has_pointers_[t] = 0;  // a cycle can only pass through a pointer, which answers first
  bool result = false;
  const TypeId r = dw_.resolve(t);
  const GoKind kind = kindOf(t);
  // Strings, slices and interfaces hold a data pointer beside their other word(s).
  if (bin::isPointerShaped(kind) || kind == GoKind::Interface || kind == GoKind::String ||
      kind == GoKind::Slice) {
    result = true;
  } else if (kind == GoKind::Array) {
    result = r != kNoType && dw_.type(r).count > 0 && hasPointers(dw_.type(r).elem);
  } else if (kind == GoKind::Struct && r != kNoType) {
    for (const bin::Field& f : dw_.fields(dw_.type(r))) result = result || hasPointers(f.type);
  }
  has_pointers_[t] = result ? 1 : 0;
  return result;
}

// The linker's synthesized instantiation of a runtime type (hchan<int>,
// sudog<int>, bucket<string,int>, table<K,V>) and the runtime's own
// declaration of it (runtime.hchan, runtime.bmap, maps.table): the same
// memory, the first knowing the element types (and, for a bucket, the keys
// and values after the tophash the generic one declares).
bool Typer::instantiates(TypeId specific, TypeId generic) const {
  static constexpr std::pair<std::string_view, std::string_view> kPairs[] = {
      {"runtime.hchan", "hchan<"},
      {"runtime.sudog", "sudog<"},
      {"runtime.waitq", "waitq<"},
  };
  const std::string_view s = dw_.type(dw_.resolve(specific)).name;
  const std::string_view g = dw_.type(dw_.resolve(generic)).name;
  for (const auto& [gen, spec] : kPairs) {
    if (g == gen && s.starts_with(spec)) return sizeOf(specific) >= sizeOf(generic);
  }
  for (const goruntime::MapStructName& m : goruntime::mapStructNames()) {
    if (g == m.runtime && s.starts_with(m.linker_prefix))
      return sizeOf(specific) >= sizeOf(generic);
  }
  return false;
}

bool Typer::startsWith(TypeId big, TypeId small) const {
  small = dw_.resolve(small);
  for (int hops = 0; big != kNoType && hops < kMaxDepth; hops++) {
    big = dw_.resolve(big);
    if (big == small) return true;
    const bin::Type& b = dw_.type(big);
    if (b.tag == DwarfTag::Array && b.count > 0) {
      big = b.elem;
    } else if (b.tag == DwarfTag::Struct && b.field_count > 0 && dw_.fields(b)[0].offset == 0) {
      big = dw_.fields(b)[0].type;
    } else {
      return false;
    }
  }
  return false;
}

bool Typer::directIface(uint64_t runtime_type_addr, TypeId t) const {
  const uint64_t at = runtime_type_addr - exe_.loadBias() + runtime_.direct_iface_offset;
  if (std::optional<bin::ByteView> b = exe_.binary().container().readAt(at, 1)) {
    return (b->u8(0) & runtime_.direct_iface_mask) != 0;
  }
  // The descriptor is not in the file: judge by the kind.
  return bin::isPointerShaped(kindOf(t));
}

void Typer::reassign(NodeId o, const TypeAssignment& a) {
  // Objects are mostly typed in runs of one type (a slice's elements, a
  // list's nodes), so the last assignment is worth trying before the table.
  if (known_assignments_[last_assignment_] != a) {
    const auto [it, added] = numbers_.try_emplace(a, 0);
    if (added) it->second = shared_.table.intern(a);
    last_assignment_ = it->second;
    if (last_assignment_ >= known_assignments_.size()) learnAssignments();
  }
  shared_.assignments.set(o, last_assignment_);
}

void Typer::set(NodeId o, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
                bool count_guessed) {
  TypeAssignment a = of(o);
  if (a.form == TypeForm::None) counts_.typed_objects++;
  a.layout = layout;
  a.shown = shown;
  a.count = static_cast<uint32_t>(std::min<uint64_t>(count, UINT32_MAX));
  a.form = form;
  a.count_guessed = count_guessed ? 1 : 0;
  a.evidence = evidence_;
  reassign(o, a);
  // Only what scanObject would read further waits for it: a third of a
  // heap is often strings' bytes and arrays of numbers.
  if (form != TypeForm::Value && form != TypeForm::Array) return;
  bool scanned = hasPointers(layout);
  if (!scanned && form == TypeForm::Value) {
    const TypeId r = dw_.resolve(layout);
    scanned = r != kNoType && special(r);
  }
  if (scanned) {
    const size_t c = shared_.chunkOf(o);
    shared_.pending[c].add(o - shared_.chunkFirst(c));
  }
}

void Typer::assign(uint64_t ptr, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
                   bool approximate) {
  if (ptr == 0 || layout == kNoType) return;
  const NodeId o = objectAt(ptr);
  if (o == kNoNode) return;
  if (deferred(o)) {
    deferred_->push_back({o, static_cast<uint32_t>(ptr - d_.objects.addr[o]),
                          static_cast<uint32_t>(std::min<uint64_t>(count, UINT32_MAX)), layout,
                          shown, form, evidence_, approximate, false});
    return;
  }
  assignObject(o, ptr, layout, shown, count, form, approximate);
}

void Typer::assignObject(NodeId o, uint64_t ptr, TypeId layout, TypeId shown, uint64_t count,
                         TypeForm form, bool approximate) {
  const TypeAssignment had = of(o);
  const uint64_t start = d_.objects.addr[o] + had.data_offset;
  if (ptr != start) return;  // a pointer into the object: it says nothing of the whole
  const uint64_t room = d_.objects.size[o] - had.data_offset;
  const uint64_t elem = sizeOf(layout);
  if (form == TypeForm::Array) {
    if (elem == 0) return;
    if (count * elem > room || count == 0) count = room / elem;
    if (count == 0) return;
  } else if (elem > room) {
    counts_.conflicts++;  // cannot be: the type does not fit the object
    return;
  }
  const uint64_t cover = form == TypeForm::Array ? count * elem : elem;
  switch (had.form) {
    case TypeForm::None:
    case TypeForm::StringBytes:
    case TypeForm::Closure:
      break;  // weaker typings give way
    case TypeForm::Value:
    case TypeForm::Array: {
      const TypeId old = had.layout;
      const uint64_t old_elem = sizeOf(old);
      const uint64_t old_cover =
          had.form == TypeForm::Array ? uint64_t{had.count} * old_elem : old_elem;
      if (old == layout || dw_.resolve(old) == dw_.resolve(layout)) {
        // The same type: a count from a slice's capacity beats one guessed
        // from the slot size; otherwise keep the larger.
        const bool exact_now = had.count_guessed != 0 && !approximate && form == TypeForm::Array;
        if (!exact_now && cover <= old_cover && had.form == form) return;
        if (!exact_now && cover < old_cover) return;
        // The type was known before this count: its evidence stays.
        const TypeEvidence now = evidence_;
        if (evidence_ == TypeEvidence::Inferred) evidence_ = had.evidence;
        set(o, layout, shown, count, form, approximate);
        evidence_ = now;
        return;
      }
      // One Go type under two spellings: a map bucket a malloc header names
      // ("noalg.map.bucket[string]int") and the one synthesized from its map
      // ("bucket<string,int>").
      if (sizeOf(old) == sizeOf(layout) &&
          goTypeName(dw_.type(old).name) == goTypeName(dw_.type(layout).name)) {
        return;
      }
      if (startsWith(layout, old) && cover >= old_cover) break;  // a bigger view of the same
      if (startsWith(old, layout)) return;                       // we know more already
      if (instantiates(layout, old)) break;  // hchan<int> says more than runtime.hchan
      if (instantiates(old, layout)) return;
      counts_.conflicts++;
      return;
    }
  }
  set(o, layout, shown, count, form, approximate);
}

void Typer::assignWeak(uint64_t ptr, TypeForm form) {
  if (ptr == 0) return;
  const NodeId o = objectAt(ptr);
  if (o == kNoNode) return;
  if (deferred(o)) {
    deferred_->push_back({o, static_cast<uint32_t>(ptr - d_.objects.addr[o]), 0, kNoType, kNoType,
                          form, evidence_, false, true});
    return;
  }
  assignObjectWeak(o, ptr, form);
}

void Typer::assignObjectWeak(NodeId o, uint64_t ptr, TypeForm form) {
  if (of(o).form != TypeForm::None) return;
  // A string may point into the middle of its bytes (a substring); a closure
  // pointer is always to the start.
  if (form == TypeForm::Closure && ptr != d_.objects.addr[o]) return;
  counts_.typed_objects++;
  TypeAssignment a = of(o);
  a.form = form;
  a.evidence = evidence_;
  reassign(o, a);
}

// One pointer-holding leaf of a value: a pointer, slice, string, interface,
// map, chan or func at `addr`.
void Typer::scanLeaf(const Memory& m, uint64_t addr, TypeId t) {
  const bin::Type* rt = resolvedType(t);
  if (rt == nullptr) return;
  switch (kindOf(t)) {
    case GoKind::Map:
    case GoKind::Chan:
      // A pointer to the runtime's header (hash<K,V>, map<K,V>, hchan<T>),
      // shown as the map or chan type.
      if (rt->tag == DwarfTag::Pointer) assign(pointerAt(m, addr), rt->elem, t, 0, TypeForm::Value);
      return;
    case GoKind::Func:
      assignWeak(pointerAt(m, addr), TypeForm::Closure);
      return;
    case GoKind::Interface:
      scanInterface(m, addr, dw_.resolve(t));
      return;
    case GoKind::String:
      if (uintAt(m, addr + ptr(), ptr()) > 0) assignWeak(pointerAt(m, addr), TypeForm::StringBytes);
      return;
    case GoKind::Slice: {
      TypeId elem = dw_.type(t).elem != kNoType ? dw_.type(t).elem : rt->elem;
      if (elem == kNoType) {
        // The element type is the pointee of the slice's array field.
        if (const bin::Field* a = dw_.fieldNamed(dw_.resolve(t), "array")) {
          const TypeId p = dw_.resolve(a->type);
          if (p != kNoType) elem = dw_.type(p).elem;
        }
      }
      // Optimized code may keep only the data pointer of a slice on the
      // stack (len and cap stale): then the object's size bounds the count.
      const uint64_t cap = uintAt(m, addr + 2 * ptr(), ptr());
      assign(pointerAt(m, addr), elem, elem, cap, TypeForm::Array, /*approximate=*/cap == 0);
      return;
    }
    case GoKind::Pointer:
      if (rt->tag == DwarfTag::Pointer && rt->elem != kNoType) {
        const uint64_t target = pointerAt(m, addr);
        if (dw_.globals().empty() && target != 0 && objectAt(target) == kNoNode &&
            globalMemory(target) != nullptr) {
          std::lock_guard<std::mutex> lock(shared_.global_targets_lock);
          shared_.global_targets.push_back({target, rt->elem, evidence_});
          return;
        }
        assign(target, rt->elem, rt->elem, 0, TypeForm::Value);
      }
      return;
    default:
      return;
  }
}

void Typer::scanValue(const Memory& m, uint64_t addr, TypeId t, TypeId shown, int depth) {
  if (t == kNoType || depth > kMaxDepth) return;
  const TypeId r = dw_.resolve(t);
  if (r != kNoType && special(r)) {
    scanStruct(m, addr, r, shown, depth);
    return;
  }
  for (const ScanOp& op : layoutOf(t)) {
    const uint64_t at = addr + op.offset;
    switch (op.kind) {
      case ScanOp::Leaf:
        scanLeaf(m, at, op.type);
        break;
      case ScanOp::Special:
        scanStruct(m, at, dw_.resolve(op.type), op.type, depth + 1);
        break;
      case ScanOp::Loop:
        for (uint64_t i = 0; i < op.count; i++) {
          scanValue(m, at + i * op.stride, op.type, op.type, depth + 1);
        }
        break;
    }
  }
}

bool Typer::special(TypeId r) {
  if (special_[r] < 0) {
    const std::string_view n = dw_.type(r).name;
    const bool yes =
        dw_.type(r).tag == DwarfTag::Struct &&
        (isInstantiatedMapStruct(dw_, r) || n.starts_with("hchan<") || n == "sync.eface" ||
         n == "sync.Pool" || n.starts_with("sync/atomic.Pointer[") ||
         n.starts_with("internal/sync.HashTrieMap[") || n.starts_with("internal/sync.indirect["));
    special_[r] = yes ? 1 : 0;
  }
  return special_[r] != 0;
}

// A type's pointer-holding parts, flattened through structs and short
// arrays, computed once per type: scanning a value is then a loop, not a
// walk of its DWARF.
const std::vector<ScanOp>& Typer::layoutOf(TypeId t) {
  auto [it, inserted] = layouts_.try_emplace(t);
  if (inserted) buildLayout(t, 0, 0, it->second);
  return it->second;
}

void Typer::buildLayout(TypeId t, uint64_t base, int depth, std::vector<ScanOp>& out) {
  if (t == kNoType || depth > kMaxDepth || !hasPointers(t)) return;
  const bin::Type* rt = resolvedType(t);
  if (rt == nullptr) return;
  switch (kindOf(t)) {
    case GoKind::Map:
    case GoKind::Chan:
    case GoKind::Func:
    case GoKind::Interface:
    case GoKind::String:
    case GoKind::Slice:
    case GoKind::Pointer:
      out.push_back({base, t, ScanOp::Leaf, 0, 0});
      return;
    case GoKind::Array: {
      const uint64_t esize = sizeOf(rt->elem);
      const uint64_t n = std::min(rt->count, kMaxScannedElements);
      if (esize == 0 || n == 0) return;
      if (n <= kUnrolledElements) {
        for (uint64_t i = 0; i < n; i++) buildLayout(rt->elem, base + i * esize, depth + 1, out);
      } else {
        out.push_back({base, rt->elem, ScanOp::Loop, n, esize});
      }
      return;
    }
    case GoKind::Struct:
      if (special(dw_.resolve(t))) {
        out.push_back({base, t, ScanOp::Special, 0, 0});
        return;
      }
      for (const bin::Field& f : dw_.fields(*rt))
        buildLayout(f.type, base + f.offset, depth + 1, out);
      return;
    default:
      return;
  }
}

void Typer::scanStruct(const Memory& m, uint64_t addr, TypeId r, TypeId shown, int depth) {
  const bin::Type& st = dw_.type(r);
  const std::string_view name = st.name;
  std::string_view skip;  // a field typed here, not by the generic walk
  if (name == "sync.eface") {
    scanInterface(m, addr, r);  // sync.Pool's own empty interface: {typ, val}
    return;
  }
  if (name.starts_with("sync/atomic.Pointer[")) {
    // atomic.Pointer[T] keeps its T only in a zero-length `_ [0]*T` field.
    const bin::Field* v = dw_.fieldNamed(r, "v");
    for (const bin::Field& f : dw_.fields(st)) {
      const TypeId a = dw_.resolve(f.type);
      if (f.name != "_" || a == kNoType || dw_.type(a).tag != DwarfTag::Array || v == nullptr) {
        continue;
      }
      const TypeId p = dw_.resolve(dw_.type(a).elem);
      if (p != kNoType && dw_.type(p).tag == DwarfTag::Pointer) {
        assign(pointerAt(m, addr + v->offset), dw_.type(p).elem, dw_.type(p).elem, 0,
               TypeForm::Value);
      }
    }
    return;
  }
  if (name == "sync.Pool") {
    // local and victim point at arrays of localSize / victimSize poolLocals.
    const TypeId local = dw_.typeByName("sync.poolLocal");
    for (auto [ptr_name, size_name] : {std::pair{"local", "localSize"}, {"victim", "victimSize"}}) {
      const bin::Field* p = dw_.fieldNamed(r, ptr_name);
      const bin::Field* n = dw_.fieldNamed(r, size_name);
      if (p == nullptr || n == nullptr || local == kNoType) continue;
      assign(pointerAt(m, addr + p->offset), local, local,
             uintAt(m, addr + n->offset, sizeOf(n->type)), TypeForm::Array);
    }
  }
  const bool trie_root = name.starts_with("internal/sync.HashTrieMap[");
  if (trie_root || name.starts_with("internal/sync.indirect[")) {
    // sync.Map since Go 1.24: a trie of indirect nodes whose children are
    // entries or indirect nodes, told apart by node.isEntry; the DWARF
    // types of the pointers name only the shared node shape.
    const std::string params(name.substr(name.find('[')));
    const TypeId entry = dw_.typeByName("internal/sync.entry" + params);
    const TypeId indirect = dw_.typeByName("internal/sync.indirect" + params);
    auto node = [&](uint64_t p) {
      const NodeId o = objectAt(p);
      if (o == kNoNode || p != d_.objects.addr[o] || d_.objects.size[o] == 0) return;
      const uint8_t is_entry = d_.objectData(o)[0];
      const TypeId t = is_entry != 0 ? entry : indirect;
      assign(p, t, t, 0, TypeForm::Value);
    };
    if (const bin::Field* root = dw_.fieldNamed(r, "root"); root != nullptr && trie_root) {
      skip = "root";
      node(pointerAt(m, addr + root->offset));
    }
    if (const bin::Field* children = dw_.fieldNamed(r, "children"); children != nullptr) {
      skip = "children";
      const TypeId a = dw_.resolve(children->type);
      const uint64_t n = a == kNoType ? 0 : dw_.type(a).count;
      for (uint64_t i = 0; i < n && i < 64; i++)
        node(pointerAt(m, addr + children->offset + i * ptr()));
    }
  } else if (const std::optional<MapHeaderFields> map = mapHeaderFields(dw_, r);
             map && map->instantiated && map->buckets != nullptr) {
    // Buckets: buckets is an array of 2^B buckets, oldbuckets (while
    // growing) of 2^(B-1).
    const bin::Field* b = map->log2_buckets;
    if (b != nullptr) {
      const uint64_t B = std::min<uint64_t>(uintAt(m, addr + b->offset, 1), 40);
      const TypeId bucket = pointedElem(dw_, map->buckets);
      // For B >= 4 the runtime's makeBucketArray allocates 2^(B-4) spare
      // overflow buckets after the 2^B, and then fills the rest of the
      // size-class slot with more: every bucket of such an array is typed
      // only when its count comes from the object's size. Since Go 1.22
      // such an array over 512 bytes starts after a malloc header.
      const uint64_t bucket_size = bucket == kNoType ? 0 : sizeOf(bucket);
      auto count = [&](uint64_t ptr, uint64_t log2) {
        const uint64_t n = uint64_t{1} << log2;
        const NodeId o = objectAt(ptr);
        if (log2 < 4 || bucket_size == 0 || o == kNoNode) return n;
        const uint64_t header = ptr - d_.objects.addr[o];
        if (header != 0 && header != runtime_.malloc_header_size) return n;
        return std::max(n, (d_.objects.size[o] - header) / bucket_size);
      };
      const uint64_t now = pointerAt(m, addr + map->buckets->offset);
      assign(now, bucket, bucket, count(now, B), TypeForm::Array);
      if (map->old_buckets != nullptr && B > 0) {
        const uint64_t before = pointerAt(m, addr + map->old_buckets->offset);
        assign(before, bucket, bucket, count(before, B - 1), TypeForm::Array);
      }
    }
  } else if (map && map->instantiated) {
    // Swiss tables: dirPtr is one group while dirLen is 0, else a directory
    // of dirLen tables.
    const bin::Field* dir = map->directory;
    const bin::Field* len = map->directory_length;
    skip = dir->name;
    const uint64_t n = uintAt(m, addr + len->offset, sizeOf(len->type));
    const uint64_t p = pointerAt(m, addr + dir->offset);
    if (n == 0) {
      const TypeId group = groupTypeOfMap(r);
      assign(p, group, group, 0, TypeForm::Value);
    } else {
      const TypeId table_ptr = pointedElem(dw_, dir);  // *table<K,V>
      assign(p, table_ptr, table_ptr, n, TypeForm::Array);
    }
  } else if (const std::optional<TableFields> table =
                 isMapTable(dw_, r) ? tableFields(dw_, r) : std::nullopt;
             table && table->groups_length_mask_type != kNoType) {
    skip = table->groups->name;
    const uint64_t n =
        uintAt(m, addr + table->groups_length_mask_offset, sizeOf(table->groups_length_mask_type)) +
        1;
    assign(pointerAt(m, addr + table->groups_data_offset), table->group, table->group, n,
           TypeForm::Array);
  } else if (name.starts_with("hchan<")) {
    // The buffer is a separate object when the elements hold pointers.
    const bin::Field* buf = dw_.fieldNamed(r, "buf");
    const bin::Field* size = dw_.fieldNamed(r, "dataqsiz");
    const TypeId elem = shown != kNoType ? dw_.type(shown).elem : kNoType;
    if (buf != nullptr && size != nullptr && elem != kNoType) {
      skip = "buf";
      const uint64_t n = uintAt(m, addr + size->offset, sizeOf(size->type));
      if (n > 0) assign(pointerAt(m, addr + buf->offset), elem, elem, n, TypeForm::Array);
    }
  }
  for (const bin::Field& f : dw_.fields(st)) {
    if (!skip.empty() && f.name == skip) continue;
    scanValue(m, addr + f.offset, f.type, f.type, depth + 1);
  }
}

void Typer::scanInterface(const Memory& m, uint64_t addr, TypeId r) {
  const auto fields = dw_.fields(dw_.type(r));
  if (fields.empty()) return;
  const uint64_t word = pointerAt(m, addr);
  const uint64_t data = pointerAt(m, addr + ptr());
  if (word == 0 || data == 0) return;
  uint64_t type_addr = word;
  if (fields[0].name == "tab") {  // runtime.iface: an itab, not a type
    auto it = itab_type_.find(word);
    if (it == itab_type_.end()) return;
    type_addr = it->second;
  }
  typeInterfaceData(type_addr, data);
}

void Typer::typeInterfaceData(uint64_t type_addr, uint64_t data) {
  const TypeId dyn = typeAtRuntimeAddress(type_addr);
  if (dyn == kNoType) return;
  if (!directIface(type_addr, dyn)) {
    // A boxed copy of the value, allocated at its size (with room for a
    // malloc header): a bigger object is not one, whatever the word before
    // its pointer says.
    const NodeId o = objectAt(data);
    const uint64_t boxed = sizeClassOf(sizeOf(dyn) + ptr());
    if (o != kNoNode && boxed != 0 && d_.objects.size[o] > boxed) return;
    assign(data, dyn, dyn, 0, TypeForm::Value);
    return;
  }
  // The data word is the value: a pointer, map, chan or func.
  const TypeId dr = dw_.resolve(dyn);
  switch (kindOf(dyn)) {
    case GoKind::Pointer:
      if (dr != kNoType && dw_.type(dr).elem != kNoType) {
        assign(data, dw_.type(dr).elem, dw_.type(dr).elem, 0, TypeForm::Value);
      }
      break;
    case GoKind::Map:
    case GoKind::Chan:
      if (dr != kNoType) assign(data, dw_.type(dr).elem, dyn, 0, TypeForm::Value);
      break;
    case GoKind::Func:
      assignWeak(data, TypeForm::Closure);
      break;
    default:
      break;
  }
}

void Typer::scanObject(NodeId o) {
  const TypeAssignment a = of(o);
  if (a.form != TypeForm::Value && a.form != TypeForm::Array) return;
  // What a guess points at is a guess too.
  evidence_ = a.evidence == TypeEvidence::Inferred ? TypeEvidence::Inferred : TypeEvidence::Table;
  Memory m{d_.objectData(o), d_.objects.addr[o], d_.objects.size[o], nullptr, {}};
  const uint64_t start = m.base + a.data_offset;
  const TypeId t = a.layout;
  if (a.form == TypeForm::Value) {
    scanValue(m, start, t, a.shown, 0);
    return;
  }
  const uint64_t esize = sizeOf(t);
  if (esize == 0 || !hasPointers(t)) return;
  const uint64_t n = std::min<uint64_t>(a.count, kMaxScannedElements);
  for (uint64_t i = 0; i < n; i++) scanValue(m, start + i * esize, t, t, 0);
}

void Typer::run() {
  const uint64_t before = counts_.typed_objects;
  seedGlobals();
  seedFrames();
  seedFinalizersAndPanics();
  counts_.typed_from_roots = counts_.typed_objects - before;
  drain();
  seedInterfaceWords();
  drain();
  seedChannels();
  drain();
  seedGlobalsFromCode();
  drain();
  while (seedPointedGlobals()) drain();
  seedGlobalStrings();
  seedAllocationSites();
  seedFramesFromCode();
  drain();
  inferMaps();
  drain();
  // What its contents tell first: a closure's code pointer, the types and
  // itabs of interfaces; then the masks.
  inferClosures();
  inferInterfaceArrays();
  drain();
  inferByShape();
  drain();
  while (seedPointedGlobals()) drain();
}

void Typer::scanChunk(size_t c) {
  first_ = shared_.chunkFirst(c);
  last_ = static_cast<NodeId>(std::min<size_t>(first_ + shared_.chunk_size, kNoNode));
  deferred_ = &shared_.deferred[c];
  PendingObjects& pending = shared_.pending[c];
  while (!pending.empty()) scanObject(first_ + pending.take());
  deferred_ = nullptr;
  evidence_ = TypeEvidence::Table;
}

void Typer::applyDeferred(const DeferredAssigns& list, size_t part, size_t parts) {
  for (const DeferredAssign& a : list) {
    if (shared_.chunkOf(a.target) % parts != part) continue;
    evidence_ = a.evidence;
    const uint64_t ptr = d_.objects.addr[a.target] + a.offset;
    if (a.weak) {
      assignObjectWeak(a.target, ptr, a.form);
    } else {
      assignObject(a.target, ptr, a.layout, a.shown, a.count, a.form, a.approximate);
    }
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::drain() {
  rounds_->drain();
  evidence_ = TypeEvidence::Table;
}

void Typer::pointerWords(TypeId t, uint64_t base, int depth, std::vector<uint64_t>& out) {
  if (t == kNoType || depth > kMaxDepth || !hasPointers(t) || out.size() > kMaxMaskWords) return;
  const TypeId r = dw_.resolve(t);
  switch (kindOf(t)) {
    case GoKind::Interface:
      // The compiler's mask leaves out the type or itab word, which points
      // at no heap object (cmd/compile's typebits.Set).
      out.push_back(base + ptr());
      return;
    case GoKind::Map:
    case GoKind::Chan:
    case GoKind::Func:
    case GoKind::Pointer:
    case GoKind::UnsafePointer:
    case GoKind::String:
    case GoKind::Slice:
      out.push_back(base);
      return;
    case GoKind::Array: {
      if (r == kNoType) return;
      const uint64_t esize = sizeOf(dw_.type(r).elem);
      for (uint64_t i = 0; i < dw_.type(r).count && i < kMaxMaskWords && esize > 0; i++) {
        pointerWords(dw_.type(r).elem, base + i * esize, depth + 1, out);
      }
      return;
    }
    case GoKind::Struct:
      if (r == kNoType) return;
      for (const bin::Field& f : dw_.fields(dw_.type(r))) {
        pointerWords(f.type, base + f.offset, depth + 1, out);
      }
      return;
    default:
      return;
  }
}

}  // namespace goheap::typing
