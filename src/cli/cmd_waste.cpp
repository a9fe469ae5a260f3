// goheap waste DUMP [EXE]: memory paid for and not used.
#include "analysis/waste.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec wasteSpec() {
  return queryCommandSpec(
      "waste",
      "Lists memory the program pays for and does not use, in four sections:\n"
      "  rounding: typed objects whose Go type is smaller than the size class the allocator "
      "gave them (slot - type size; the 8-byte malloc header Go 1.22+ puts before values "
      "over 512 bytes with pointers is shown apart, not counted as wasted);\n"
      "  slices: backing arrays reached only through slice headers, with the bytes no slice "
      "can see (s[:16] of a 32 KiB array keeps 32 KiB alive); rows hiding 4 KiB or more, or "
      "more than half of an array (and at least 512 bytes), are flagged with !;\n"
      "  maps: each map's len against its capacity in slots and the storage its buckets, "
      "tables and groups keep (Go maps never shrink); sparse ones (len under a quarter of 64 "
      "slots or more) first, flagged with !;\n"
      "  garbage: unreachable objects still in the dump, by group.\n"
      "The first three need EXE, the program's executable with DWARF; garbage works without.",
      /*csv=*/false, query::wasteParams(),
      {{"goheap waste heap.dump ./server", "all four sections, 20 rows each"},
       {"goheap waste heap.dump", "garbage only: the others need the executable"},
       {"goheap waste heap.dump ./server --json -n 0", "every row, as JSON"}});
}

const char* flag(bool on) {
  return on ? "!" : "";
}

std::string roundingText(const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumn("wasted", Align::Right);
  t.addColumn("count", Align::Right);
  t.addColumn("type size", Align::Right);
  t.addColumn("slot", Align::Right);
  t.addColumn("header", Align::Right);
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

std::string slicesText(const analysis::Snapshot& snap, const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumn("");
  t.addColumn("hidden", Align::Right);
  t.addColumn("size", Align::Right);
  t.addColumn("slices", Align::Right);
  t.addColumn("address");
  t.addColumn("type");
  t.setElastic(t.addColumn("held by"), Elide::Middle, 20);
  for (const analysis::HiddenArrayRow& r : w.hidden) {
    t.addRow({flag(r.flagged), formatBytes(r.hidden), formatBytes(r.size), formatCount(r.slices),
              formatHex(snap.address(r.object)), r.type, r.holder});
  }
  return "Slices keeping arrays alive: " + formatBytes(w.hidden_bytes) + " no slice sees, in " +
         formatCount(w.hidden_arrays) + " arrays (" + formatCount(w.hidden_flagged) +
         " flagged !)\n" + t.renderText(width) + "\n";
}

std::string mapsText(const analysis::Snapshot& snap, const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumn("");
  t.addColumn("storage", Align::Right);
  t.addColumn("len", Align::Right);
  t.addColumn("capacity", Align::Right);
  t.addColumn("address");
  t.addColumn("type");
  t.setElastic(t.addColumn("held by"), Elide::Middle, 20);
  for (const analysis::MapRow& r : w.maps) {
    t.addRow({flag(r.sparse), formatBytes(r.storage), formatCount(r.len), formatCount(r.capacity),
              formatHex(snap.address(r.map)), r.type, r.holder});
  }
  return "Maps: " + formatCount(w.map_count) + " maps, " + formatCount(w.sparse_maps) +
         " sparse (!) keeping " + formatBytes(w.sparse_storage) + "\n" + t.renderText(width) + "\n";
}

std::string garbageText(const analysis::Waste& w, size_t width) {
  TextTable t;
  t.addColumn("bytes", Align::Right);
  t.addColumn("count", Align::Right);
  t.addColumn("from");
  t.setElastic(t.addColumn("group"), Elide::Middle, 24);
  for (const analysis::GarbageRow& r : w.garbage) {
    t.addRow({formatBytes(r.bytes), formatCount(r.count), r.source, r.name});
  }
  return "Garbage: " + formatCount(w.garbage_objects) + " unreachable objects, " +
         formatBytes(w.garbage_bytes) + " in " + formatCount(w.garbage_groups) + " groups\n" +
         t.renderText(width);
}

}  // namespace

int runWaste(int argc, const char* const* argv) {
  return runQueryCommand(
      wasteSpec(), argc, argv, query::wasteParams(), query::readWaste,
      [](const ParsedArgs& /*args*/, const query::Session& session, const query::WasteQuery& q,
         OutputFormat format) {
        const analysis::Snapshot& snap = session.snapshot();
        const analysis::Waste w = query::queryWaste(session, q);
        if (format == OutputFormat::Json) {
          print(query::wasteJson(snap, q, w));
          return kExitOk;
        }
        const size_t width = outputWidth();
        if (w.typed) {
          print(roundingText(w, width) + slicesText(snap, w, width) + mapsText(snap, w, width));
        } else {
          for (const char* section :
               {"Size-class rounding", "Slices keeping arrays alive", "Maps"}) {
            print(std::string(section) +
                  ": needs the program's executable with DWARF types (goheap waste DUMP EXE)\n\n");
          }
        }
        print(garbageText(w, width));
        return kExitOk;
      });
}

}  // namespace goheap::cli
