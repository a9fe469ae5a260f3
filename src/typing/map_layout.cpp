#include "typing/map_layout.h"

#include "typing/heap_types.h"

namespace goheap::typing {

namespace {

using bin::kNoType;
using bin::TypeId;
using goruntime::MapImplementation;

constexpr MapImplementation kEveryImplementation[] = {
    MapImplementation::Buckets, MapImplementation::SwissTables, MapImplementation::SplitGroups};

// A field the layout names; nullptr where it names none (an empty name
// must not match a DWARF field without one).
const bin::Field* field(const bin::DebugInfo& dwarf, TypeId t, std::string_view name) {
  return name.empty() || t == kNoType ? nullptr : dwarf.fieldNamed(t, name);
}

TypeId arrayElem(const bin::DebugInfo& dwarf, const bin::Field* f) {
  const TypeId a = f == nullptr ? kNoType : dwarf.resolve(f->type);
  return a == kNoType ? kNoType : dwarf.type(a).elem;
}

// Keys and values in two arrays (a bucket, or a split group).
std::optional<MapSlots> splitSlots(const bin::DebugInfo& dwarf, TypeId t,
                                   const goruntime::MapFieldNames& names, uint32_t ptr) {
  const bin::Field* keys = field(dwarf, t, names.keys);
  const bin::Field* elems = field(dwarf, t, names.values);
  MapSlots m;
  m.key_type = arrayElem(dwarf, keys);
  m.elem_type = arrayElem(dwarf, elems);
  if (m.key_type == kNoType || m.elem_type == kNoType) return std::nullopt;
  m.key_size = m.key_stride = typeSize(dwarf, m.key_type, ptr);
  m.elem_size = m.elem_stride = typeSize(dwarf, m.elem_type, ptr);
  m.keys_off = keys->offset;
  m.elems_off = elems->offset;
  return m;
}

// Keys and values interleaved in an array of slots.
std::optional<MapSlots> interleavedSlots(const bin::DebugInfo& dwarf, TypeId t,
                                         const goruntime::MapFieldNames& names, uint32_t ptr) {
  const bin::Field* slots = field(dwarf, t, names.slots);
  const TypeId slot = arrayElem(dwarf, slots);
  const bin::Field* k = field(dwarf, slot, names.slot_key);
  const bin::Field* v = field(dwarf, slot, names.slot_elem);
  if (k == nullptr || v == nullptr) return std::nullopt;
  MapSlots m;
  m.key_stride = m.elem_stride = typeSize(dwarf, slot, ptr);
  m.keys_off = slots->offset + k->offset;
  m.elems_off = slots->offset + v->offset;
  m.key_type = k->type;
  m.elem_type = v->type;
  m.key_size = typeSize(dwarf, k->type, ptr);
  m.elem_size = typeSize(dwarf, v->type, ptr);
  return m;
}

}  // namespace

bool isMapHeader(const bin::DebugInfo& dwarf, TypeId t) {
  return t != kNoType && goruntime::mapImplementationOfHeader(dwarf.type(t).name).has_value();
}

std::optional<MapHeaderFields> mapHeaderFields(const bin::DebugInfo& dwarf, TypeId t) {
  if (t == kNoType) return std::nullopt;
  const std::optional<MapImplementation> i =
      goruntime::mapImplementationOfHeader(dwarf.type(t).name);
  if (!i) return std::nullopt;
  const goruntime::MapFieldNames& names = goruntime::mapLayout(*i).fields;
  MapHeaderFields f;
  f.implementation = *i;
  f.instantiated = dwarf.type(t).name.starts_with(goruntime::mapLayout(*i).header_prefix);
  f.length = field(dwarf, t, names.length);
  f.log2_buckets = field(dwarf, t, names.log2_buckets);
  f.buckets = field(dwarf, t, names.buckets);
  f.old_buckets = field(dwarf, t, names.old_buckets);
  f.directory = field(dwarf, t, names.directory);
  f.directory_length = field(dwarf, t, names.directory_length);
  const bool found =
      f.buckets != nullptr || (f.directory != nullptr && f.directory_length != nullptr);
  if (!found) return std::nullopt;
  return f;
}

bool isInstantiatedMapStruct(const bin::DebugInfo& dwarf, TypeId t) {
  if (t == kNoType) return false;
  const std::string_view name = dwarf.type(t).name;
  const std::optional<MapImplementation> i = goruntime::mapImplementationOfHeader(name);
  return (i && name.starts_with(goruntime::mapLayout(*i).header_prefix)) || isMapTable(dwarf, t);
}

TypeId pointedElem(const bin::DebugInfo& dwarf, const bin::Field* pointer) {
  const TypeId p = pointer == nullptr ? kNoType : dwarf.resolve(pointer->type);
  if (p == kNoType || dwarf.type(p).tag != bin::DwarfTag::Pointer) return kNoType;
  return dwarf.type(p).elem;
}

bool isMapTable(const bin::DebugInfo& dwarf, TypeId t) {
  const std::string_view prefix = goruntime::mapLayout(MapImplementation::SwissTables).table_prefix;
  return t != kNoType && dwarf.type(t).name.starts_with(prefix);
}

std::optional<TableFields> tableFields(const bin::DebugInfo& dwarf, TypeId table) {
  const goruntime::MapFieldNames& names =
      goruntime::mapLayout(MapImplementation::SwissTables).fields;
  const bin::Field* groups = field(dwarf, table, names.table_groups);
  const bin::Field* data =
      groups == nullptr ? nullptr : field(dwarf, groups->type, names.groups_data);
  if (data == nullptr) return std::nullopt;
  TableFields f;
  f.capacity = field(dwarf, table, names.table_capacity);
  f.groups = groups;
  f.groups_data_offset = groups->offset + data->offset;
  if (const bin::Field* mask = field(dwarf, groups->type, names.groups_length_mask)) {
    f.groups_length_mask_offset = groups->offset + mask->offset;
    f.groups_length_mask_type = mask->type;
  }
  f.group = pointedElem(dwarf, data);
  return f;
}

TypeId tableOfMapHeader(const bin::DebugInfo& dwarf, TypeId header) {
  const goruntime::MapLayout& l = goruntime::mapLayout(MapImplementation::SwissTables);
  const std::string_view name = header == kNoType ? "" : dwarf.type(header).name;
  if (!name.starts_with(l.header_prefix)) return kNoType;
  return dwarf.typeByName(std::string(l.table_prefix) +
                          std::string(name.substr(l.header_prefix.size())));
}

std::optional<MapSlots> mapSlots(const bin::DebugInfo& dwarf, TypeId t, uint32_t ptr_size) {
  std::string_view name = dwarf.type(t).name;
  if (name.starts_with("noalg.")) name.remove_prefix(6);
  for (MapImplementation i : kEveryImplementation) {
    const goruntime::MapLayout& l = goruntime::mapLayout(i);
    if (!name.starts_with(l.dwarf_group_prefix)) continue;
    const std::optional<MapSlots> m = l.fields.slots.empty()
                                          ? splitSlots(dwarf, t, l.fields, ptr_size)
                                          : interleavedSlots(dwarf, t, l.fields, ptr_size);
    if (!m) continue;  // a group of the other kind
    if (m->key_stride == 0 && m->elem_stride == 0) return std::nullopt;
    return m;
  }
  return std::nullopt;
}

}  // namespace goheap::typing
