// Every Go release's map layout, in one place, so that a release's map
// change is one edit here: which implementation a release has, the map type
// descriptor's layout, the runtime's map structs (field names, offsets and
// sizes, as the linker's DWARF and goheap's types for stripped executables
// name them), and the names of the compiler's bucket and group types.
// Nothing here reads DWARF: the readers look these names up in it.
//
// The facts are Go's: runtime/map.go and runtime/type.go (Go 1.19-1.20),
// internal/abi/map.go and map_noswiss.go (Go 1.21-1.25),
// internal/abi/map_swiss.go and map.go (Go 1.24+),
// internal/runtime/maps/{map,table,group}.go (Go 1.24+), and
// cmd/link/internal/ld/dwarf.go (synthesizemaptypes: the DWARF names).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/go_version.h"

namespace goheap::goruntime {

enum class MapImplementation : uint8_t {
  // Go 1.19-1.23 (and GOEXPERIMENT=noswissmap, Go 1.24-1.25): runtime.hmap
  // over 2^B buckets {tophash [8]uint8; keys [8]K; values [8]V; overflow}.
  Buckets,
  // Go 1.24+: internal/runtime/maps.Map, one group or a directory of
  // tables of groups {ctrl uint64; slots [8]struct{key K; elem V}}.
  SwissTables,
  // Go 1.27 GOEXPERIMENT=mapsplitgroup: Swiss tables whose groups keep keys
  // and values apart, {ctrl uint64; keys [8]K; elems [8]V}.
  SplitGroups,
};

MapImplementation mapImplementation(const GoVersion& version);

// Slots of a bucket (runtime/map.go's bucketCnt) and of a group
// (internal/abi's MapGroupSlots): 8 in every release.
constexpr uint64_t kMapSlotsPerGroup = 8;

// The tail abi.MapType (runtime.maptype before Go 1.21) adds after the
// common abi.Type header: offsets from the tail's start.
struct MapDescriptorLayout {
  uint32_t key = 0;
  uint32_t elem = 0;
  uint32_t group = 0;  // the bucket type up to Go 1.23, the group type since
  uint32_t tail_size = 0;
};

MapDescriptorLayout mapDescriptorLayout(MapImplementation implementation, const GoVersion& version,
                                        uint32_t ptr_size);

// What a field of one of the runtime's map structs holds, for building the
// struct without DWARF.
enum class MapFieldType : uint8_t {
  Int,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Uintptr,
  UnsafePointer,
  BucketArray,     // *bucket<K,V>
  TableDirectory,  // **table<K,V>
  GroupArray,      // *group of K and V
  GroupReference,  // groupReference<K,V>
};

struct MapField {
  std::string_view name;
  uint32_t offset = 0;
  MapFieldType type = MapFieldType::Int;
};

struct MapStruct {
  // The linker's name for it instantiated for K and V, before "K,V>":
  // "hash<", "map<", "table<", "groupReference<".
  std::string_view name_prefix;
  uint64_t size = 0;
  std::vector<MapField> fields;
};

// The field names the readers look up in DWARF, per implementation; empty
// where the implementation has no such field.
struct MapFieldNames {
  // The header (hash<K,V> or map<K,V>).
  std::string_view length;            // "count", "used"
  std::string_view log2_buckets;      // "B"
  std::string_view buckets;           // "buckets"
  std::string_view old_buckets;       // "oldbuckets" (while growing)
  std::string_view directory;         // "dirPtr": one group while dirLen is 0
  std::string_view directory_length;  // "dirLen"
  // A table (table<K,V>) and its groups' reference.
  std::string_view table_capacity;      // "capacity"
  std::string_view table_groups;        // "groups"
  std::string_view groups_data;         // "data"
  std::string_view groups_length_mask;  // "lengthMask": groups - 1
  // A bucket or group: keys and values in two arrays, or slots of both.
  std::string_view keys;       // "keys"
  std::string_view values;     // "values" (a bucket), "elems" (a split group)
  std::string_view slots;      // "slots"
  std::string_view slot_key;   // "key"
  std::string_view slot_elem;  // "elem"
};

struct MapLayout {
  MapImplementation implementation = MapImplementation::Buckets;
  // The runtime's own declaration of the header, and the linker's prefix
  // for its instantiations: "runtime.hmap" and "hash<", or
  // "internal/runtime/maps.Map" and "map<".
  std::string_view runtime_header;
  std::string_view header_prefix;
  // The linker's instantiated bucket ("bucket<") or table ("table<");
  // empty where there is none.
  std::string_view bucket_prefix;
  std::string_view table_prefix;
  // The compiler's name for the bucket or group type of map[K]V, without
  // "noalg.": "map.bucket[" or "map.group[", then "K]V".
  std::string_view group_prefix;
  // The bucket or group type the header's DWARF points at: the linker's
  // "bucket<" (Go 1.19-1.23), the compiler's "map.group[" (Go 1.24+).
  std::string_view dwarf_group_prefix;
  MapFieldNames fields;
};

const MapLayout& mapLayout(MapImplementation implementation);

// The implementation whose header DWARF names `name` ("hash<string,int>",
// "runtime.hmap", "map<K,V>", "internal/runtime/maps.Map"): SwissTables for
// both kinds of groups, whose headers are the same. nullopt for any other.
std::optional<MapImplementation> mapImplementationOfHeader(std::string_view name);

// Whether `name` (with or without "noalg.") is a bucket or group type of
// some map, as the compiler or the linker names it.
bool isMapGroupName(std::string_view name);

// "noalg.map.bucket[K]V" or "noalg.map.group[K]V": how the linker names the
// compiler's bucket or group type of map[K]V in DWARF.
std::string compilerGroupName(MapImplementation implementation, std::string_view key,
                              std::string_view value);

// The runtime's map structs for stripped executables: the header (hmap or
// Map), and for Swiss tables the table and its group reference. Offsets
// follow the Go declarations for pointers of ptr_size bytes.
struct MapStructs {
  MapStruct header;
  MapStruct table;            // empty for Buckets
  MapStruct group_reference;  // empty for Buckets
};

MapStructs mapStructs(MapImplementation implementation, uint32_t ptr_size);

// The runtime's own declaration of a map struct, the linker's name for its
// instantiation for K and V ("hash<K,V>"), and how Go would write that
// instantiation ("map[K]V"; empty where goheap shows the linker's name).
struct MapStructName {
  std::string_view runtime;
  std::string_view linker_prefix;
  std::string_view go_prefix;
};

// Every release's: hmap and bmap, Map, table and groupReference.
std::span<const MapStructName> mapStructNames();

// Whether `name` is the runtime's own declaration of a map header or
// bucket (runtime.hmap, runtime.bmap), which no object is on its own: an
// object holding one is a map's of some K and V.
bool isGenericMapStruct(std::string_view name);

// The DWARF name of a bucket field the compiler's descriptor names
// otherwise: the descriptor says "topbits" and "elems" where the linker's
// bucket<K,V> says "tophash" and "values" (Go 1.19-1.23).
std::string_view bucketFieldDwarfName(std::string_view descriptor_field);

// Whether a field of the compiler's bucket or group type is one of its
// arrays of keys, values or slots, which the linker names "noalg.[8]K".
bool isGroupArrayField(std::string_view descriptor_field);

}  // namespace goheap::goruntime
