#include "goruntime/map_layout.h"

namespace goheap::goruntime {

namespace {

constexpr std::string_view kNoalg = "noalg.";

uint32_t roundUp(uint32_t n, uint32_t to) {
  return (n + to - 1) / to * to;
}

}  // namespace

MapImplementation mapImplementation(const GoVersion& version) {
  // GOEXPERIMENT=noswissmap kept the old maps through Go 1.25.
  if (!version.atLeast(24) || version.hasExperiment("noswissmap")) {
    return MapImplementation::Buckets;
  }
  if (version.hasExperiment("mapsplitgroup")) return MapImplementation::SplitGroups;
  return MapImplementation::SwissTables;
}

MapDescriptorLayout mapDescriptorLayout(MapImplementation implementation, const GoVersion& version,
                                        uint32_t ptr_size) {
  const uint32_t p = ptr_size;
  MapDescriptorLayout l;
  // Key, Elem, Bucket or Group, then Hasher: four pointers in every release.
  l.key = 0;
  l.elem = p;
  l.group = 2 * p;
  if (implementation == MapImplementation::Buckets) {
    // KeySize, ValueSize uint8, BucketSize uint16, Flags uint32.
    l.tail_size = 4 * p + 8;
  } else if (version.atLeast(27)) {
    // GroupSize, KeysOff, KeyStride, ElemsOff, ElemStride, ElemOff uintptr,
    // Flags uint32: Go 1.27 describes both group layouts by offsets and
    // strides (internal/abi/map.go).
    l.tail_size = roundUp(10 * p + 4, p);
  } else {
    // GroupSize, SlotSize, ElemOff uintptr, Flags uint32
    // (internal/abi/map_swiss.go).
    l.tail_size = roundUp(7 * p + 4, p);
  }
  return l;
}

// Each layout's field names in MapFieldNames' order: the header's
// (length, log2_buckets, buckets, old_buckets, directory,
// directory_length), a table's (capacity, groups, data, length mask), a
// bucket's or group's (keys, values, slots, slot key, slot elem).
// runtime.hmap and bmap (runtime/map.go), as the linker's hash<K,V> and
// bucket<K,V> name them.
constexpr MapFieldNames kBucketFields{"count", "B", "buckets", "oldbuckets", "", "", "", "",
                                      "",      "",  "keys",    "values",     "", "", ""};
// internal/runtime/maps.Map, table and groupsReference; the group
// (cmd/compile's reflectdata.MapGroupType) holds slots, or keys and elems.
constexpr MapFieldNames kSwissFields{"used",   "",         "",       "",     "dirPtr",
                                     "dirLen", "capacity", "groups", "data", "lengthMask",
                                     "",       "",         "slots",  "key",  "elem"};
constexpr MapFieldNames kSplitGroupFields{"used",   "",         "",       "",     "dirPtr",
                                          "dirLen", "capacity", "groups", "data", "lengthMask",
                                          "keys",   "elems",    "",       "",     ""};

// Each layout's type names in MapLayout's order: runtime_header,
// header_prefix, bucket_prefix, table_prefix, group_prefix,
// dwarf_group_prefix.
namespace {

constexpr MapLayout kBucketLayout{MapImplementation::Buckets,
                                  "runtime.hmap",
                                  "hash<",
                                  "bucket<",
                                  "",
                                  "map.bucket[",
                                  "bucket<",
                                  kBucketFields};
// Both kinds of Swiss groups hang off the same header and tables.
constexpr MapLayout swissTablesWith(MapImplementation implementation, const MapFieldNames& fields) {
  return {
      implementation, "internal/runtime/maps.Map", "map<", "", "table<", "map.group[", "map.group[",
      fields};
}
constexpr MapLayout kSwissLayout = swissTablesWith(MapImplementation::SwissTables, kSwissFields);
constexpr MapLayout kSplitGroupLayout =
    swissTablesWith(MapImplementation::SplitGroups, kSplitGroupFields);

}  // namespace

// A reference to a constant: the waste and typing passes ask once per
// object, and a copy of the names costs more than the question.
const MapLayout& mapLayout(MapImplementation implementation) {
  switch (implementation) {
    case MapImplementation::Buckets:
      return kBucketLayout;
    case MapImplementation::SplitGroups:
      return kSplitGroupLayout;
    case MapImplementation::SwissTables:
      break;
  }
  return kSwissLayout;
}

std::optional<MapImplementation> mapImplementationOfHeader(std::string_view name) {
  for (MapImplementation i : {MapImplementation::Buckets, MapImplementation::SwissTables}) {
    const MapLayout& l = mapLayout(i);
    if (name.starts_with(l.header_prefix) || name == l.runtime_header) return i;
  }
  return std::nullopt;
}

bool isMapGroupName(std::string_view name) {
  if (name.starts_with(kNoalg)) name.remove_prefix(kNoalg.size());
  return name.starts_with("bucket<") || name.starts_with("map.bucket[") ||
         name.starts_with("map.group[");
}

std::string compilerGroupName(MapImplementation implementation, std::string_view key,
                              std::string_view value) {
  std::string out(kNoalg);
  out += mapLayout(implementation).group_prefix;
  out += key;
  out += ']';
  out += value;
  return out;
}

MapStructs mapStructs(MapImplementation implementation, uint32_t ptr_size) {
  using enum MapFieldType;
  const uint32_t p = ptr_size;
  MapStructs s;
  if (implementation == MapImplementation::Buckets) {
    // runtime.hmap (runtime/map.go).
    s.header = {mapLayout(implementation).header_prefix,
                5 * p + 8,
                {{"count", 0, Int},
                 {"flags", p, Uint8},
                 {"B", p + 1, Uint8},
                 {"noverflow", p + 2, Uint16},
                 {"hash0", p + 4, Uint32},
                 {"buckets", p + 8, BucketArray},
                 {"oldbuckets", 2 * p + 8, BucketArray},
                 {"nevacuate", 3 * p + 8, Uintptr},
                 {"extra", 4 * p + 8, UnsafePointer}}};
    return s;
  }
  // internal/runtime/maps.Map (map.go): used uint64 first, so the seed and
  // what follows start at 8 on every target.
  const uint32_t dir = 8 + p;
  s.header = {mapLayout(implementation).header_prefix,
              p == 8 ? 48u : 32u,
              {{"used", 0, Uint64},
               {"seed", 8, Uintptr},
               {"dirPtr", dir, TableDirectory},
               {"dirLen", dir + p, Int},
               {"globalDepth", dir + 2 * p, Uint8},
               {"globalShift", dir + 2 * p + 1, Uint8},
               {"writing", dir + 2 * p + 2, Uint8}}};
  // groupsReference (group.go): data unsafe.Pointer, lengthMask uint64.
  s.group_reference = {
      "groupReference<", p + 8, {{"data", 0, GroupArray}, {"lengthMask", p, Uint64}}};
  // table (table.go): used, capacity, growthLeft uint16, localDepth uint8,
  // index int, groups; the groups reference's uint64 aligns it to 8 on
  // 64-bit targets, to 4 on 32-bit ones.
  const uint32_t groups = p == 8 ? 16 : 12;
  s.table = {mapLayout(implementation).table_prefix,
             groups + p + 8,
             {{"used", 0, Uint16},
              {"capacity", 2, Uint16},
              {"growthLeft", 4, Uint16},
              {"localDepth", 6, Uint8},
              {"index", 8, Int},
              {"groups", groups, GroupReference}}};
  return s;
}

std::string_view bucketFieldDwarfName(std::string_view descriptor_field) {
  if (descriptor_field == "topbits") return "tophash";
  if (descriptor_field == "elems") return "values";
  return descriptor_field;
}

bool isGroupArrayField(std::string_view descriptor_field) {
  return descriptor_field == "keys" || descriptor_field == "elems" || descriptor_field == "slots";
}

std::span<const MapStructName> mapStructNames() {
  static constexpr MapStructName kNames[] = {
      {"runtime.hmap", "hash<", "map["},
      {"runtime.bmap", "bucket<", "map.bucket["},
      {"internal/runtime/maps.Map", "map<", "map["},
      {"internal/runtime/maps.table", "table<", "map.table["},
      {"internal/runtime/maps.groupReference", "groupReference<", ""},
  };
  return kNames;
}

bool isGenericMapStruct(std::string_view name) {
  return name == "runtime.hmap" || name == "runtime.bmap";
}

}  // namespace goheap::goruntime
