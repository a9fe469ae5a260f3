// goheap suspects DUMP [EXE]: a leak suspects report in the spirit of
// Eclipse MAT: what keeps a large share of the heap alive, where inside it
// the memory piles up, what holds it, and what kinds of objects it is.
#include "analysis/suspects.h"
#include "cli/command.h"
#include "cli/path_text.h"
#include "cli/text_table.h"
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec suspectsSpec() {
  return queryCommandSpec(
      "suspects",
      "Lists leak suspects: single objects that retain at least PERCENT of the reachable heap "
      "(the top-most ones: a map, not its bucket array), and groups of objects of one type (with "
      "EXE's DWARF) or allocation site that together retain that much though no member does "
      "(goroutines each holding a buffer). Biggest first.\n\n"
      "For each suspect: the shortest path from a GC root, and the accumulation point: from the "
      "object, down the dominator tree to the child retaining the most, as long as that child "
      "keeps at least 80% of its parent's bytes (for a group: the deepest node holding 80% of "
      "the group's bytes). The objects below it are listed by type or site: that is what "
      "accumulates. A group piling up inside a single suspect is reported with it.",
      /*csv=*/false, query::suspectsParams(),
      {{"goheap suspects heap.dump", "what retains 10% of the heap or more"},
       {"goheap suspects heap.dump ./server",
        "the same, grouped by Go type, with global variables and frames named"},
       {"goheap suspects heap.dump --threshold 2.5 -n 20",
        "smaller suspects too, up to 20 of them"},
       {"goheap suspects heap.dump ./server --json", "the report as JSON"}});
}

std::string suspectText(size_t rank, const analysis::Suspect& s, const std::string& by) {
  std::string out = "Suspect " + std::to_string(rank) + (s.is_group ? " (group)" : "") + "\n  " +
                    s.description + "\n\n";
  if (s.is_group) {
    out += "  Group: " + s.group.name + " (" + s.group.source + "), " + formatCount(s.group.count) +
           " objects; biggest " + query::labelText(s.object) + "\n";
    for (const analysis::HolderCount& h : s.holders) {
      out += "  Held by " + h.holder + ": " + formatCount(h.members) + " of them\n";
    }
    out += "\n";
  }
  out += "  Shortest path from a GC root" +
         std::string(s.is_group ? " to the biggest member" : "") + ":\n";
  out += s.path.steps.empty() ? "    none found\n" : pathStepsText(s.path, "    ", false);
  out += "\n  Accumulation point: " + query::labelText(s.accumulation_point) + ", holds " +
         formatBytes(s.accumulation_retained) + " (" +
         formatPercent(s.accumulation_retained, s.retained) + " of the suspect), " +
         formatCount(s.accumulation_children) + " children in the dominator tree\n";
  out += "  It accumulates " + formatCount(s.accumulated_count) + " objects, " +
         formatBytes(s.accumulated_bytes) + ", in " + formatCount(s.accumulated_types) + " " +
         (by == "type" ? "type" : "group") + (s.accumulated_types == 1 ? "" : "s") + ":\n";
  TextTable t;
  t.addColumn("count", Align::Right);
  t.addColumn("bytes", Align::Right);
  t.addColumn("share", Align::Right);
  const size_t name_col = t.addColumn(by == "type" ? "type" : "group");
  t.setElastic(name_col, Elide::Middle, 24);
  for (const analysis::AccumulatedType& a : s.accumulated) {
    t.addRow({formatCount(a.count), formatBytes(a.bytes),
              formatPercent(a.bytes, s.accumulated_bytes), a.name});
  }
  std::string table = t.renderText(outputWidth() > 4 ? outputWidth() - 4 : outputWidth());
  for (size_t start = 0; start < table.size();) {
    const size_t end = table.find('\n', start);
    const size_t stop = end == std::string::npos ? table.size() : end + 1;
    out += "    " + table.substr(start, stop - start);
    start = stop;
  }
  for (const analysis::SuspectGroupRef& g : s.merged_groups) {
    out += "  Also a group suspect found here: " + formatCount(g.count) + " objects of " + g.name +
           ", retaining " + formatBytes(g.retained) + "\n";
  }
  return out + "\n";
}

}  // namespace

int runSuspects(int argc, const char* const* argv) {
  return runQueryCommand(
      suspectsSpec(), argc, argv, query::suspectsParams(), query::readSuspects,
      [](const ParsedArgs& /*args*/, const query::Session& session, const query::SuspectsQuery& q,
         OutputFormat format) {
        const analysis::SuspectReport r = query::querySuspects(session, q);
        if (format == OutputFormat::Json) {
          print(query::suspectsJson(r));
          return kExitOk;
        }
        std::string out = "Leak suspects: objects and groups retaining at least " +
                          formatFraction(r.threshold_percent / 100) + " of the reachable heap (" +
                          formatBytes(r.threshold_bytes) + " of " + formatBytes(r.reachable_bytes) +
                          ")\n\n";
        if (r.suspects.empty()) {
          out += "No suspects: nothing retains that much. Try a lower --threshold.\n";
        }
        for (size_t i = 0; i < r.suspects.size(); i++)
          out += suspectText(i + 1, r.suspects[i], r.by);
        if (r.suspects.size() < r.total) {
          out += formatCount(r.suspects.size()) + " of " + formatCount(r.total) +
                 " suspects shown; -n 0 shows all\n";
        }
        print(out);
        return kExitOk;
      });
}

}  // namespace goheap::cli
