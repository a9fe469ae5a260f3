// goheap paths HEAP ADDR: why an object is alive. The shortest chains of
// references from GC roots to it, each step with the offset of the pointer.
#include "questions/path_text.h"
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "paths",
    .summary = "shortest paths from GC roots to an object",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = false,
    .description =
        "Shows the shortest paths from the GC roots to the object containing ADDR: the "
        "chains of references that keep it alive, one per root, shortest first. Each step "
        "names the holder and the offset (and address) of the word that points to the next "
        "step. A root is the data or bss segment (a global variable), a goroutine and its "
        "stack frame, a finalizer, a defer or a panic.",
    .examples =
        {
            {"goheap paths heap.dump 0xc000123450", "who holds the object at that address"},
            {"goheap paths heap.dump ./server 0xc000123450",
             "the same, roots named as global variables and frames with file:line"},
            {"goheap paths heap.dump 0xc000123450 -n 1 --json",
             "the single shortest path, as JSON"},
        },
};

std::string pathsText(const Heaps& heaps, const PathsQuery& /*q*/, const PathsResult& found,
                      const TextStyle& /*style*/) {
  const analysis::Snapshot& snap = heaps.current.snapshot();
  const NodeId* target = &found.target;
  const std::vector<analysis::Path>& paths = found.paths;
  std::string out =
      "Paths from GC roots to " + labelText(analysis::labelNode(snap, *target)) + "\n";
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
  return out;
}

const Parts<PathsQuery, PathsResult> kParts{
    .fields =
        {
            field<&PathsQuery::addr>(addrParam()),
            field<&PathsQuery::limit>(limitParam("5", "at most this many paths")),
        },
    .run = [](const Heaps& h, const PathsQuery& q) { return queryPaths(h.current, q); },
    .json = [](const Heaps& h, const PathsQuery& /*q*/,
               const PathsResult& r) { return pathsJson(h.current.snapshot(), r); },
    .text = pathsText,
};

}  // namespace

const Question& pathsQuestion() {
  return questionOf<kInfo, kParts>();
}

Expected<PathsResult> queryPaths(const Session& session, const PathsQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  GOHEAP_TRY(const NodeId target, findObject(snap, q.addr, "addr"));
  return PathsResult{target, analysis::pathsToRoots(snap, target, q.limit)};
}

std::string pathsJson(const analysis::Snapshot& snap, const PathsResult& r) {
  const NodeId target = r.target;
  const std::vector<analysis::Path>& paths = r.paths;
  return jsonDocument([&](JsonWriter& w) {
    w.key("target");
    writeLabel(w, analysis::labelNode(snap, target));
    w.field("reachable", snap.reachable(target));
    w.key("paths").beginArray();
    for (const analysis::Path& p : paths) writePathSteps(w, p);
    w.endArray();
  });
}

}  // namespace goheap::questions
