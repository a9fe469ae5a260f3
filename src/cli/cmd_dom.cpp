// goheap dom DUMP: the dominator tree from the roots down, biggest subtrees
// first. A node's retained size is what would be freed if it were gone.
#include "analysis/queries.h"
#include "cli/command.h"
#include "cli/json_render.h"
#include "cli/render.h"
#include "cli/table.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec domSpec() {
  CommandSpec spec(
      "dom",
      "Shows the dominator tree: under each node, the objects that only it keeps alive, "
      "biggest first. The tree starts at the super-root, whose children are the GC roots "
      "(data and bss segments, goroutines and their frames, finalizers) and the objects "
      "that several roots share. --from ADDR starts at the object containing ADDR.");
  addDumpAndCommonFlags(spec, /*csv=*/true);
  spec.flag("depth", "D", "levels to show below the start")
      .alias('d')
      .kind(ValueKind::Uint)
      .defaultValue("4");
  spec.flag("min-bytes", "SIZE", "hide subtrees retaining less than this")
      .kind(ValueKind::ByteSize)
      .defaultValue("64K");
  spec.flag("max-children", "N", "at most this many children per node")
      .kind(ValueKind::Uint)
      .defaultValue("10");
  spec.flag("from", "ADDR", "start at the object containing ADDR").kind(ValueKind::Address);
  spec.flag("from-node", "N",
            "start at node N (a label's \"node\" in --json output: roots have no address)")
      .kind(ValueKind::Uint);
  spec.example("goheap dom heap.dump", "four levels, subtrees of 64 KiB and more");
  spec.example("goheap dom heap.dump --depth 8 --min-bytes 1M", "deeper, only the big subtrees");
  spec.example("goheap dom heap.dump --from 0xc000123450 -d 2", "what one object keeps alive");
  return spec;
}

}  // namespace

int runDom(int argc, const char* const* argv) {
  return runWithSnapshot(
      domSpec(), argc, argv,
      [](const ParsedArgs& args, const analysis::Snapshot& snap, OutputFormat format) {
        DomQuery q;
        if (args.has("from")) q.from = args.getUint("from");
        if (args.has("from-node")) {
          if (q.from)
            return fail(args.usageError("--from and --from-node do not go together"), kExitUsage);
          q.from_node = args.getUint("from-node");
        }
        q.depth = args.getUint("depth");
        q.min_bytes = args.getUint("min-bytes");
        q.max_children = args.getUint("max-children");
        std::optional<QueryError> error;
        auto found = queryDom(snap, q, error);
        if (!found) return fail(error->error);
        const std::vector<analysis::DomRow>& rows = *found;
        const uint64_t total = snap.retained[snap.heap.superRoot()];
        if (format == OutputFormat::Json) {
          print(domJson(snap, rows));
          return kExitOk;
        }
        Table t;
        t.addColumn("retained", Align::Right);
        t.addColumn("%", Align::Right);
        t.addColumn("shallow", Align::Right);
        size_t node_col = t.addColumn("node");
        if (format == OutputFormat::Csv) t.addColumn("depth", Align::Right);
        t.setTreeColumn(node_col);
        t.setElastic(node_col, Elide::Middle, 30);
        for (const analysis::DomRow& r : rows) {
          std::string node = labelText(r.node);
          if (r.hidden_children > 0) {
            node += "  (+" + formatCount(r.hidden_children) + " more)";
          }
          if (format == OutputFormat::Csv) {
            t.addRow({std::to_string(r.retained), formatPercent(r.retained, total),
                      std::to_string(r.shallow), node, std::to_string(r.depth)});
          } else {
            t.addRow({formatBytes(r.retained), formatPercent(r.retained, total),
                      formatBytes(r.shallow), node},
                     r.depth);
          }
        }
        print(format == OutputFormat::Csv ? t.renderCsv() : t.renderText(outputWidth()));
        return kExitOk;
      });
}

}  // namespace goheap::cli
