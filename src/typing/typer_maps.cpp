// Typer and maps: a map header's groups (Swiss tables) or buckets, and map
// headers no typed value reaches (typer.h).
#include "typing/typer.h"

#include "typing/map_layout.h"

namespace goheap::typing {

// A Swiss map header points at a single group when it is small (dirLen
// 0): the group type is the one its table type's groups point at.
TypeId Typer::groupTypeOfMap(TypeId map_struct) {
  auto [it, inserted] = group_of_map_.try_emplace(map_struct, kNoType);
  if (!inserted) return it->second;
  const std::optional<TableFields> table = tableFields(dw_, tableOfMapHeader(dw_, map_struct));
  if (table) it->second = table->group;
  return it->second;
}

NodeId Typer::groupsOfMap(const Memory& m, TypeId header) {
  auto target = [&](uint64_t p) {
    const NodeId o = objectAt(p);
    return o != kNoNode && d_.objects.addr[o] + of(o).data_offset == p ? o : kNoNode;
  };
  const std::optional<MapHeaderFields> fields = mapHeaderFields(dw_, header);
  if (!fields) return kNoNode;
  if (fields->buckets != nullptr) return target(pointerAt(m, m.base + fields->buckets->offset));
  const bin::Field* dir = fields->directory;
  const bin::Field* len = fields->directory_length;
  const uint64_t p = pointerAt(m, m.base + dir->offset);
  if (uintAt(m, m.base + len->offset, sizeOf(len->type)) == 0) return target(p);
  // A directory of tables: the first table's groups.
  const NodeId directory = target(p);
  if (directory == kNoNode) return kNoNode;
  const NodeId table = target(words_.read(d_.objectData(directory) + of(directory).data_offset));
  const std::optional<TableFields> table_fields = tableFields(dw_, tableOfMapHeader(dw_, header));
  if (table == kNoNode || !table_fields) return kNoNode;
  const Memory t{d_.objectData(table), d_.objects.addr[table], d_.objects.size[table], nullptr, {}};
  return target(pointerAt(t, t.base + of(table).data_offset + table_fields->groups_data_offset));
}

void Typer::inferMaps() {
  // The map types the table has, by their group (bucket) type; the header
  // types' pointer words (the same for every map of a release).
  struct MapType {
    TypeId map, header, group;
  };
  std::vector<MapType> maps;
  std::unordered_map<TypeId, std::vector<size_t>> by_group;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.kind != GoKind::Map || !ty.name.starts_with("map[")) continue;
    const TypeId r = dw_.resolve(t);
    if (r == kNoType || dw_.type(r).tag != DwarfTag::Pointer) continue;
    const TypeId header = dw_.type(r).elem;
    if (header == kNoType) continue;
    const std::optional<MapHeaderFields> fields = mapHeaderFields(dw_, header);
    if (!fields) continue;
    const TypeId group =
        fields->buckets != nullptr ? pointedElem(dw_, fields->buckets) : groupTypeOfMap(header);
    if (group == kNoType || sizeOf(group) == 0) continue;
    by_group[dw_.resolve(group)].push_back(maps.size());
    maps.push_back({t, header, group});
  }
  if (maps.empty()) return;
  const TypeId header = maps.front().header;
  const uint64_t header_size = sizeClassOf(sizeOf(header));
  std::vector<uint64_t> header_words, words, group_words;
  pointerWords(header, 0, 0, header_words);
  std::sort(header_words.begin(), header_words.end());
  // Group shapes: (group size, pointer words of one group) -> map types.
  std::map<std::pair<uint64_t, std::vector<uint64_t>>, std::vector<size_t>> by_shape;
  for (size_t i = 0; i < maps.size(); i++) {
    group_words.clear();
    pointerWords(maps[i].group, 0, 0, group_words);
    std::sort(group_words.begin(), group_words.end());
    by_shape[{sizeOf(maps[i].group), group_words}].push_back(i);
  }
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None || d_.objects.size[o] != header_size) continue;
    words.clear();
    d_.forEachObjectSlot(o, [&](uint64_t off) { words.push_back(off); });
    std::sort(words.begin(), words.end());
    if (words != header_words) continue;
    const Memory m{d_.objectData(o), d_.objects.addr[o], d_.objects.size[o], nullptr, {}};
    const NodeId g = groupsOfMap(m, header);
    if (g == kNoNode) continue;
    size_t chosen = SIZE_MAX;
    if (of(g).form != TypeForm::None) {
      // Typed already (a malloc header names large group arrays).
      auto it = by_group.find(dw_.resolve(of(g).layout));
      if (it == by_group.end() || it->second.size() != 1) continue;
      chosen = it->second.front();
      evidence_ =
          of(g).evidence == TypeEvidence::Inferred ? TypeEvidence::Inferred : TypeEvidence::Header;
    } else {
      // By the first group's pointer words, and a size that holds whole
      // groups; among several map types, the one whose keys and values
      // agree with what they point at.
      const uint64_t gsize = d_.objects.size[g];
      std::vector<size_t> fits;
      for (const auto& [shape, candidates] : by_shape) {
        // Small objects are rounded up to their size class, large ones
        // (Go 1.19-1.21's bucket arrays have no header) to a page.
        const uint64_t group_size = shape.first;
        const uint64_t n = group_size == 0 ? 0 : gsize / group_size;
        const bool whole =
            n != 0 && (n * group_size == gsize || sizeClassOf(n * group_size) == gsize ||
                       (gsize > 32768 && gsize - n * group_size < 8192));
        if (!whole) continue;
        group_words.clear();
        d_.forEachObjectSlot(g, [&](uint64_t off) {
          if (off < group_size) group_words.push_back(off);
        });
        std::sort(group_words.begin(), group_words.end());
        if (group_words == shape.second)
          fits.insert(fits.end(), candidates.begin(), candidates.end());
      }
      if (fits.size() > 1) {
        std::erase_if(
            fits, [&](size_t i) { return targetsAgree(g, maps[i].group) != Agreement::Agrees; });
      } else if (fits.size() == 1 &&
                 targetsAgree(g, maps[fits.front()].group) == Agreement::Contradicts) {
        continue;
      }
      if (fits.size() != 1) continue;
      chosen = fits.front();
      evidence_ = TypeEvidence::Inferred;
    }
    assign(d_.objects.addr[o], maps[chosen].header, maps[chosen].map, 0, TypeForm::Value);
    if (of(o).form != TypeForm::None && evidence_ == TypeEvidence::Inferred) {
      counts_.inferred_objects++;
    }
    evidence_ = TypeEvidence::Table;
  }
}

}  // namespace goheap::typing
