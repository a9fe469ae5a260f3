// `goheap waste --json` and /api/waste (docs/cli-json.md).
#include "query/queries.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::query {

namespace {

constexpr const char* kNeedsTypes =
    "needs the program's executable with DWARF types (goheap waste DUMP EXE)";

void beginSection(JsonWriter& w, const char* name, bool available) {
  w.key(name).beginObject();
  w.field("available", available);
  if (!available) w.field("why", kNeedsTypes);
}

}  // namespace

analysis::Waste queryWaste(const Session& session, const WasteQuery& q) {
  analysis::WasteOptions o;
  o.limit = static_cast<size_t>(q.limit);
  const analysis::Snapshot& snap = session.snapshot();
  return analysis::findWaste(snap, o, snap.types ? &session.typedHeaders() : nullptr);
}

std::string wasteJson(const analysis::Snapshot& snap, const WasteQuery& q,
                      const analysis::Waste& w) {
  std::string out;
  JsonWriter j(out, JsonWriter::Style::Pretty);
  j.beginObject();
  j.field("schema_version", 1);
  j.field("typed", w.typed).field("limit", q.limit);

  beginSection(j, "rounding", w.typed);
  j.field("objects", w.rounding_objects).field("wasted", w.rounding_wasted);
  j.field("malloc_header_bytes", w.rounding_header).field("rows_total", w.rounding_rows);
  j.key("rows").beginArray();
  for (const analysis::RoundingRow& r : w.rounding) {
    j.beginObject();
    j.field("type", r.type).field("count", r.count).field("type_size", r.type_size);
    j.field("slot_size", r.slot_size).field("malloc_header", r.header).field("wasted", r.wasted);
    j.endObject();
  }
  j.endArray();
  j.endObject();

  beginSection(j, "slices", w.typed);
  j.field("arrays", w.hidden_arrays).field("hidden_bytes", w.hidden_bytes);
  j.field("flagged", w.hidden_flagged);
  j.key("rows").beginArray();
  for (const analysis::HiddenArrayRow& r : w.hidden) {
    j.beginObject();
    j.field("address", formatHex(snap.address(r.object))).field("node", r.object);
    j.field("type", r.type).field("size", r.size).field("visible", r.visible);
    j.field("hidden", r.hidden).field("slices", r.slices).field("holder", r.holder);
    j.field("flagged", r.flagged);
    j.endObject();
  }
  j.endArray();
  j.endObject();

  beginSection(j, "maps", w.typed);
  j.field("maps", w.map_count).field("sparse", w.sparse_maps);
  j.field("sparse_storage", w.sparse_storage);
  j.key("rows").beginArray();
  for (const analysis::MapRow& r : w.maps) {
    j.beginObject();
    j.field("address", formatHex(snap.address(r.map))).field("node", r.map);
    j.field("type", r.type).field("len", r.len).field("capacity", r.capacity);
    j.field("storage", r.storage).field("holder", r.holder).field("sparse", r.sparse);
    j.endObject();
  }
  j.endArray();
  j.endObject();

  j.key("garbage").beginObject();
  j.field("objects", w.garbage_objects).field("bytes", w.garbage_bytes);
  j.field("groups", w.garbage_groups);
  j.key("rows").beginArray();
  for (const analysis::GarbageRow& r : w.garbage) {
    j.beginObject();
    j.field("name", r.name).field("source", r.source).field("count", r.count);
    j.field("bytes", r.bytes);
    j.endObject();
  }
  j.endArray();
  j.endObject();
  j.endObject();
  return out;
}

}  // namespace goheap::query
