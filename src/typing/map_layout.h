// A map's runtime structs found in DWARF (the executable's, or the types
// bin synthesizes from descriptors in the same shape), by the names
// goruntime/map_layout.h gives each release's layout: the one place above
// goruntime that looks map fields up, for the typing pass, value decoding
// and the waste report.
#pragma once

#include <cstdint>
#include <optional>

#include "bin/debug_info.h"
#include "goruntime/map_layout.h"

namespace goheap::typing {

// A map header's fields: count, B, buckets and oldbuckets (Buckets), or
// used, dirPtr and dirLen (Swiss tables); nullptr where the implementation
// has none.
struct MapHeaderFields {
  goruntime::MapImplementation implementation = goruntime::MapImplementation::Buckets;
  // The linker's instantiation for K and V (hash<K,V>, map<K,V>), whose
  // fields point at typed buckets or tables, rather than the runtime's own
  // declaration (runtime.hmap, internal/runtime/maps.Map).
  bool instantiated = false;
  const bin::Field* length = nullptr;
  const bin::Field* log2_buckets = nullptr;
  const bin::Field* buckets = nullptr;
  const bin::Field* old_buckets = nullptr;
  const bin::Field* directory = nullptr;  // one group while directory_length is 0
  const bin::Field* directory_length = nullptr;
};

// Whether `t` (resolved) is a map header, instantiated (hash<K,V>,
// map<K,V>) or the runtime's own (runtime.hmap, internal/runtime/maps.Map).
bool isMapHeader(const bin::DebugInfo& dwarf, bin::TypeId t);
// Whether `t` is the linker's instantiation of a map header or table for
// some K and V (hash<K,V>, map<K,V>, table<K,V>).
bool isInstantiatedMapStruct(const bin::DebugInfo& dwarf, bin::TypeId t);

// The fields of map header `t`: nullopt when it is no map header or lacks
// the fields that find its buckets or groups (buckets; dirPtr and dirLen).
std::optional<MapHeaderFields> mapHeaderFields(const bin::DebugInfo& dwarf, bin::TypeId t);

// The element type a pointer field points at (a bucket of `buckets`, a
// table pointer of `dirPtr`); kNoType if it is no typed pointer.
bin::TypeId pointedElem(const bin::DebugInfo& dwarf, const bin::Field* pointer);

// A Swiss table's fields: its capacity, and where its groups' array and
// their number less one are (offsets from the table's start).
struct TableFields {
  const bin::Field* capacity = nullptr;  // may be nullptr
  const bin::Field* groups = nullptr;
  uint64_t groups_data_offset = 0;
  uint64_t groups_length_mask_offset = 0;
  bin::TypeId groups_length_mask_type = bin::kNoType;
  bin::TypeId group = bin::kNoType;  // what groups' data points at
};

bool isMapTable(const bin::DebugInfo& dwarf, bin::TypeId t);
std::optional<TableFields> tableFields(const bin::DebugInfo& dwarf, bin::TypeId table);

// The table type of Swiss map header map<K,V>, table<K,V>; kNoType if
// none (a bucket map's header).
bin::TypeId tableOfMapHeader(const bin::DebugInfo& dwarf, bin::TypeId header);

// Where the i-th key and value of a map's bucket or group are: key(i) =
// keys_off + i * key_stride, elem(i) = elems_off + i * elem_stride, the
// formulas of Go 1.27's abi.MapType (KeysOff, KeyStride, ElemsOff,
// ElemStride), which fit each layout (a bucket, a group of slots, a split
// group), told apart by their DWARF fields.
struct MapSlots {
  uint64_t keys_off = 0, key_stride = 0, elems_off = 0, elem_stride = 0;
  bin::TypeId key_type = bin::kNoType, elem_type = bin::kNoType;
  uint64_t key_size = 0, elem_size = 0;
};

// The slots of bucket or group type `t`; nullopt if `t` is none.
std::optional<MapSlots> mapSlots(const bin::DebugInfo& dwarf, bin::TypeId t, uint32_t ptr_size);

}  // namespace goheap::typing
