// goheap dom DUMP: the dominator tree from the roots down, biggest subtrees
// first. A node's retained size is what would be freed if it were gone.
#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec domSpec() {
  return queryCommandSpec(
      "dom",
      "Shows the dominator tree: under each node, the objects that only it keeps alive, "
      "biggest first. The tree starts at the super-root, whose children are the GC roots "
      "(data and bss segments, goroutines and their frames, finalizers) and the objects "
      "that several roots share. --from ADDR starts at the object containing ADDR.",
      /*csv=*/true, query::domParams(),
      {{"goheap dom heap.dump", "four levels, subtrees of 64 KiB and more"},
       {"goheap dom heap.dump --depth 8 --min-bytes 1M", "deeper, only the big subtrees"},
       {"goheap dom heap.dump --from 0xc000123450 -d 2", "what one object keeps alive"}});
}

}  // namespace

int runDom(int argc, const char* const* argv) {
  return runQueryCommand(
      domSpec(), argc, argv, query::domParams(), query::readDom,
      [](const ParsedArgs& args, const query::Session& session, const query::DomQuery& q,
         OutputFormat format) {
        const analysis::Snapshot& snap = session.snapshot();
        std::optional<query::QueryError> error;
        auto found = query::queryDom(session, q, error);
        if (!found) return failQuery(args, *error);
        const std::vector<analysis::DomRow>& rows = *found;
        const uint64_t total = snap.retained[snap.heap.superRoot()];
        if (format == OutputFormat::Json) {
          print(query::domJson(snap, rows));
          return kExitOk;
        }
        TextTable t;
        t.addColumn("retained", Align::Right);
        t.addColumn("%", Align::Right);
        t.addColumn("shallow", Align::Right);
        size_t node_col = t.addColumn("node");
        if (format == OutputFormat::Csv) t.addColumn("depth", Align::Right);
        t.setTreeColumn(node_col);
        t.setElastic(node_col, Elide::Middle, 30);
        for (const analysis::DomRow& r : rows) {
          std::string node = query::labelText(r.node);
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
