// goheap top DUMP: a histogram of the reachable objects, grouped by
// allocation site or by shape.
#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec topSpec() {
  return queryCommandSpec(
      "top",
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
      "runtime.MemProfileRate = 1; by default Go samples one allocation per 512 KiB.",
      /*csv=*/true, query::topParams(),
      {{"goheap top heap.dump", "the 20 allocation sites that keep the most memory alive"},
       {"goheap top heap.dump --by shape --sort count -n 50", "the 50 most numerous object shapes"},
       {"goheap top heap.dump --csv -n 0 > sites.csv", "every group, for a spreadsheet"},
       {"goheap top heap.dump --filter session --offset 20",
        "the groups named like *session*, from the 21st on"},
       {"goheap top heap.dump ./server", "the 20 Go types that keep the most memory alive"}});
}

}  // namespace

int runTop(int argc, const char* const* argv) {
  return runQueryCommand(topSpec(), argc, argv, query::topParams(), query::readTop,
                         [](const ParsedArgs& /*args*/, const query::Session& session,
                            const query::TopQuery& q, OutputFormat format) {
                           const query::TopResult result = query::queryTop(session, q);
                           const std::string& by_name = result.by;
                           const analysis::Histogram& h = result.histogram;
                           if (format == OutputFormat::Json) {
                             print(query::topJson(q, result));
                             return kExitOk;
                           }
                           TextTable t;
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
                               t.addRow({formatBytes(r.retained), formatBytes(r.shallow),
                                         formatCount(r.count), r.source, r.name});
                             }
                           }
                           if (format == OutputFormat::Csv) {
                             print(t.renderCsv());
                           } else {
                             print(t.renderText(outputWidth()));
                             print(formatCount(h.rows.size()) + " of " + formatCount(h.groups) +
                                   " groups; " + formatCount(h.total_count) +
                                   " reachable objects, " + formatBytes(h.total_shallow) +
                                   " (garbage not counted)\n");
                           }
                           return kExitOk;
                         });
}

}  // namespace goheap::cli
