// goheap paths DUMP ADDR: why an object is alive. The shortest chains of
// references from GC roots to it, each step with the offset of the pointer.
#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/path_text.h"
#include "query/labels.h"
#include "query/queries.h"

namespace goheap::cli {

namespace {

CommandSpec pathsSpec() {
  return queryCommandSpec(
      "paths",
      "Shows the shortest paths from the GC roots to the object containing ADDR: the chains "
      "of references that keep it alive, one per root, shortest first. Each step names the "
      "holder and the offset (and address) of the word that points to the next step. A root "
      "is the data or bss segment (a global variable), a goroutine and its stack frame, a "
      "finalizer, a defer or a panic.",
      /*csv=*/false, query::pathsParams(),
      {{"goheap paths heap.dump 0xc000123450", "who holds the object at that address"},
       {"goheap paths heap.dump ./server 0xc000123450",
        "the same, roots named as global variables and frames with file:line"},
       {"goheap paths heap.dump 0xc000123450 -n 1 --json", "the single shortest path, as JSON"}});
}

}  // namespace

int runPaths(int argc, const char* const* argv) {
  return runQueryCommand(
      pathsSpec(), argc, argv, query::pathsParams(), query::readPaths,
      [](const ParsedArgs& args, const query::Session& session, const query::PathsQuery& q,
         OutputFormat format) {
        const analysis::Snapshot& snap = session.snapshot();
        std::optional<query::QueryError> error;
        std::optional<query::PathsResult> found = query::queryPaths(session, q, error);
        if (!found) return failQuery(args, *error);
        if (format == OutputFormat::Json) {
          print(query::pathsJson(snap, *found));
          return kExitOk;
        }
        const NodeId* target = &found->target;
        const std::vector<analysis::Path>& paths = found->paths;
        std::string out =
            "Paths from GC roots to " + query::labelText(analysis::labelNode(snap, *target)) + "\n";
        if (paths.empty() && snap.reachable(*target)) {
          out += "  no path found\n";
        } else if (paths.empty() && snap.isRuntimeMetadata(*target)) {
          out += "  none: these are the runtime's bitmaps at the end of a span, not an object\n";
        } else if (paths.empty()) {
          out += "  none: the object is garbage (unreachable, not yet collected)\n";
        }
        for (size_t i = 0; i < paths.size(); i++) {
          const analysis::Path& p = paths[i];
          out += "\npath " + std::to_string(i + 1) + " (" + std::to_string(p.steps.size() - 1) +
                 " references)\n";
          out += pathStepsText(p, "  ", true);
        }
        print(out);
        return kExitOk;
      });
}

}  // namespace goheap::cli
