// goheap top DUMP: a histogram of the reachable objects, grouped by
// allocation site or by shape.
#include "analysis/queries.h"
#include "cli/command.h"
#include "cli/table.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::cli {

namespace {

CommandSpec topSpec() {
  CommandSpec spec("top",
                   "Groups the reachable objects and lists the groups that use the most memory. "
                   "--by type (the default when EXE, the program's executable, has DWARF) groups "
                   "by Go type: main.Session, map[string]int, [64]main.Point, string; objects "
                   "no typed pointer reaches are grouped as with --by site. "
                   "--by site names each object by where it was allocated (the dump's allocation "
                   "sample: the first frame outside the runtime), else by the type an interface "
                   "pointing at it gives, else by its shape; --by shape groups by slot size and "
                   "pointer offsets only.\n\n"
                   "A group's retained size counts each member's retained bytes once: members "
                   "dominated by another member of the same group are not added again. Allocation "
                   "sites are recorded for every object only when the program set "
                   "runtime.MemProfileRate = 1; by default Go samples one allocation per 512 KiB.");
  addDumpAndCommonFlags(spec, /*csv=*/true);
  spec.choice("by", {"auto", "type", "site", "shape"}, "auto",
              "how to group objects; auto: by type when the executable has DWARF, else by site");
  spec.choice("sort", {"retained", "shallow", "count"}, "retained", "order of the rows");
  spec.flag("limit", "N", "how many rows to show (0 = all)")
      .alias('n')
      .kind(ValueKind::Uint)
      .defaultValue("20");
  spec.example("goheap top heap.dump", "the 20 allocation sites that keep the most memory alive");
  spec.example("goheap top heap.dump --by shape --sort count -n 50",
               "the 50 most numerous object shapes");
  spec.example("goheap top heap.dump --csv -n 0 > sites.csv", "every group, for a spreadsheet");
  spec.example("goheap top heap.dump ./server", "the 20 Go types that keep the most memory alive");
  return spec;
}

}  // namespace

int runTop(int argc, const char* const* argv) {
  return runWithSnapshot(
      topSpec(), argc, argv,
      [](const ParsedArgs& args, const analysis::Snapshot& snap, OutputFormat format) {
        std::string by_name(args.getString("by"));
        if (by_name == "auto") by_name = snap.types ? "type" : "site";
        const auto by = by_name == "shape"  ? typing::GroupKind::Shape
                        : by_name == "type" ? typing::GroupKind::Type
                                            : typing::GroupKind::Name;
        analysis::SortKey sort = analysis::SortKey::Retained;
        if (args.getString("sort") == "shallow") sort = analysis::SortKey::Shallow;
        if (args.getString("sort") == "count") sort = analysis::SortKey::Count;
        uint64_t limit = args.getUint("limit");
        if (limit == 0) limit = UINT64_MAX;
        analysis::Histogram h = analysis::histogram(snap, by, sort, limit);

        if (format == OutputFormat::Json) {
          std::string out;
          JsonWriter w(out, JsonWriter::Style::Pretty);
          w.beginObject();
          w.field("schema_version", 1);
          w.field("by", by_name);
          w.field("sort", std::string(args.getString("sort")));
          w.field("groups", h.groups).field("total_count", h.total_count);
          w.field("total_shallow", h.total_shallow);
          w.key("rows").beginArray();
          for (const analysis::HistogramRow& r : h.rows) {
            w.beginObject();
            w.field("name", r.name).field("source", r.source).field("count", r.count);
            w.field("shallow", r.shallow).field("retained", r.retained);
            w.endObject();
          }
          w.endArray();
          w.endObject();
          print(out);
          return kExitOk;
        }
        Table t;
        t.addColumn("retained", Align::Right);
        t.addColumn("shallow", Align::Right);
        t.addColumn("count", Align::Right);
        t.addColumn("from");
        size_t name_col = t.addColumn(by_name == "shape" ? "shape" : "group");
        t.setElastic(name_col, Elide::Middle, 24);
        for (const analysis::HistogramRow& r : h.rows) {
          if (format == OutputFormat::Csv) {
            t.addRow({std::to_string(r.retained), std::to_string(r.shallow),
                      std::to_string(r.count), r.source, r.name});
          } else {
            t.addRow({formatBytes(r.retained), formatBytes(r.shallow), formatCount(r.count),
                      r.source, r.name});
          }
        }
        if (format == OutputFormat::Csv) {
          print(t.renderCsv());
        } else {
          print(t.renderText(outputWidth()));
          print(formatCount(h.rows.size()) + " of " + formatCount(h.groups) + " groups; " +
                formatCount(h.total_count) + " reachable objects, " + formatBytes(h.total_shallow) +
                " (garbage not counted)\n");
        }
        return kExitOk;
      });
}

}  // namespace goheap::cli
