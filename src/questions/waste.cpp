// goheap waste HEAP [EXE]: memory paid for and not used.
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "waste",
    .summary = "size-class rounding, arrays kept by small slices, sparse maps, garbage",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = true,
    .description =
        "Lists memory the program pays for and does not use, in four sections:\n"
        "  rounding: typed objects whose Go type is smaller than the size class the "
        "allocator gave them (slot - type size; the 8-byte malloc header Go 1.22+ puts "
        "before values over 512 bytes with pointers is shown apart, not counted as wasted);\n"
        "  slices: backing arrays reached only through slice headers, with the bytes no "
        "slice can see (s[:16] of a 32 KiB array keeps 32 KiB alive); rows hiding 4 KiB or "
        "more, or more than half of an array (and at least 512 bytes), are flagged with !;\n"
        "  maps: each map's len against its capacity in slots and the storage its buckets, "
        "tables and groups keep (Go maps never shrink); sparse ones (len under a quarter of "
        "64 slots or more) first, flagged with !;\n"
        "  garbage: unreachable objects still in the dump, by group.\n"
        "The first three need EXE, the program's executable with DWARF; garbage works "
        "without.",
    .examples =
        {
            {"goheap waste heap.dump ./server", "all four sections, 20 rows each"},
            {"goheap waste heap.dump", "garbage only: the others need the executable"},
            {"goheap waste heap.dump ./server --json -n 0", "every row, as JSON"},
        },
};

const char* flag(bool on) {
  return on ? "!" : "";
}

std::string roundingText(const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumns({"wasted", "count", "type size", "slot", "header"}, Align::Right);
  t.setElastic(t.addColumn("type"), Elide::Middle, 20);
  for (const analysis::RoundingRow& r : w.rounding) {
    t.addRow({formatBytes(r.wasted), formatCount(r.count), std::to_string(r.type_size),
              std::to_string(r.slot_size), std::to_string(r.header), r.type});
  }
  return "Size-class rounding: " + formatBytes(w.rounding_wasted) + " wasted in " +
         formatCount(w.rounding_objects) +
         " typed objects (malloc headers, not counted: " + formatBytes(w.rounding_header) + ")\n" +
         t.renderText(width) + "\n";
}

// The slices' and the maps' table: a flag, three measures, then the object's
// address, its type and what holds it.
TextTable flaggedObjectsTable(std::initializer_list<std::string_view> measures) {
  TextTable t;
  t.addColumn("");
  t.addColumns(measures, Align::Right);
  t.addColumns({"address", "type"});
  t.setElastic(t.addColumn("held by"), Elide::Middle, 20);
  return t;
}

std::string slicesText(const analysis::Snapshot& snap, const analysis::Waste& w, size_t width) {
  TextTable t = flaggedObjectsTable({"hidden", "size", "slices"});
  for (const analysis::HiddenArrayRow& r : w.hidden) {
    t.addRow({flag(r.flagged), formatBytes(r.hidden), formatBytes(r.size), formatCount(r.slices),
              formatHex(snap.address(r.object)), r.type, r.holder});
  }
  return "Slices keeping arrays alive: " + formatBytes(w.hidden_bytes) + " no slice sees, in " +
         formatCount(w.hidden_arrays) + " arrays (" + formatCount(w.hidden_flagged) +
         " flagged !)\n" + t.renderText(width) + "\n";
}

std::string mapsText(const analysis::Snapshot& snap, const analysis::Waste& w, size_t width) {
  TextTable t = flaggedObjectsTable({"storage", "len", "capacity"});
  for (const analysis::MapRow& r : w.maps) {
    t.addRow({flag(r.sparse), formatBytes(r.storage), formatCount(r.len), formatCount(r.capacity),
              formatHex(snap.address(r.map)), r.type, r.holder});
  }
  return "Maps: " + formatCount(w.map_count) + " maps, " + formatCount(w.sparse_maps) +
         " sparse (!) keeping " + formatBytes(w.sparse_storage) + "\n" + t.renderText(width) + "\n";
}

std::string garbageText(const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumns({"bytes", "count"}, Align::Right);
  t.addColumn("from");
  t.setElastic(t.addColumn("group"), Elide::Middle, 24);
  for (const analysis::GarbageRow& r : w.garbage) {
    t.addRow({formatBytes(r.bytes), formatCount(r.count), r.source, r.name});
  }
  return "Garbage: " + formatCount(w.garbage_objects) + " unreachable objects, " +
         formatBytes(w.garbage_bytes) + " in " + formatCount(w.garbage_groups) + " groups\n" +
         t.renderText(width);
}

std::string wasteText(const Heaps& heaps, const WasteQuery& /*q*/, const analysis::Waste& w,
                      const TextStyle& style) {
  const analysis::Snapshot& snap = heaps.current.snapshot();
  const size_t width = style.width;
  std::string out;
  if (w.typed) {
    out += roundingText(w, width) + slicesText(snap, w, width) + mapsText(snap, w, width);
  } else {
    for (const char* section : {"Size-class rounding", "Slices keeping arrays alive", "Maps"}) {
      out += std::string(section) +
             ": needs the program's executable with DWARF types (goheap waste HEAP EXE)\n\n";
    }
  }
  return out + garbageText(w, width);
}

const Parts<WasteQuery, analysis::Waste> kParts{
    .fields =
        {
            field<&WasteQuery::limit>(limitParam("20", "rows per section (0 = all)")),
        },
    .run = [](const Heaps& h, const WasteQuery& q) -> Expected<analysis::Waste> {
      return queryWaste(h.current, q);
    },
    .json = [](const Heaps& h, const WasteQuery& q,
               const analysis::Waste& w) { return wasteJson(h.current.snapshot(), q, w); },
    .text = wasteText,
};

}  // namespace

const Question& wasteQuestion() {
  return questionOf<kInfo, kParts>();
}

namespace {

// A JSON value, kept as it was when the CLI said DUMP (the JSON is an API).
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
  return jsonDocument([&](JsonWriter& j) {
    j.field("typed", w.typed).field("limit", q.limit);

    beginSection(j, "rounding", w.typed);
    j.field("objects", w.rounding_objects).field("wasted", w.rounding_wasted);
    j.field("malloc_header_bytes", w.rounding_header).field("rows_total", w.rounding_rows);
    j.arrayOfObjects("rows", w.rounding, [&](const analysis::RoundingRow& r) {
      j.field("type", r.type).field("count", r.count).field("type_size", r.type_size);
      j.field("slot_size", r.slot_size).field("malloc_header", r.header).field("wasted", r.wasted);
    });
    j.endObject();

    beginSection(j, "slices", w.typed);
    j.field("arrays", w.hidden_arrays).field("hidden_bytes", w.hidden_bytes);
    j.field("flagged", w.hidden_flagged);
    j.arrayOfObjects("rows", w.hidden, [&](const analysis::HiddenArrayRow& r) {
      j.field("address", formatHex(snap.address(r.object))).field("node", r.object);
      j.field("type", r.type).field("size", r.size).field("visible", r.visible);
      j.field("hidden", r.hidden).field("slices", r.slices).field("holder", r.holder);
      j.field("flagged", r.flagged);
    });
    j.endObject();

    beginSection(j, "maps", w.typed);
    j.field("maps", w.map_count).field("sparse", w.sparse_maps);
    j.field("sparse_storage", w.sparse_storage);
    j.arrayOfObjects("rows", w.maps, [&](const analysis::MapRow& r) {
      j.field("address", formatHex(snap.address(r.map))).field("node", r.map);
      j.field("type", r.type).field("len", r.len).field("capacity", r.capacity);
      j.field("storage", r.storage).field("holder", r.holder).field("sparse", r.sparse);
    });
    j.endObject();

    j.key("garbage").beginObject();
    j.field("objects", w.garbage_objects).field("bytes", w.garbage_bytes);
    j.field("groups", w.garbage_groups);
    j.arrayOfObjects("rows", w.garbage,
                     [&](const analysis::GarbageRow& r) { writeObjectGroup(j, r); });
    j.endObject();
  });
}

}  // namespace goheap::questions
