#include "export/formats.h"

namespace goheap::exporting {

std::span<const Format> allFormats() {
  static const Format kFormats[] = {
      {"jsonl", ".jsonl", "the whole graph as JSON Lines (docs/jsonl-format.md)", writeJsonLines},
      {"dot", ".dot",
       "Graphviz: one object's paths to roots and what it dominates (needs --object)", writeDot,
       true},
      {"hprof", ".hprof", "Java heap dump for VisualVM and Eclipse MAT (docs/export-formats.md)",
       writeHprof},
      {"pprof", ".pb.gz",
       "for go tool pprof: reachable objects by type and allocation stack, with in-use and "
       "retained bytes",
       writePprof},
      {"pprof-retention", ".pb.gz",
       "for go tool pprof: reachable objects by chain of dominators (flame graph widths are "
       "retained bytes)",
       writePprofRetention},
      {"heapsnapshot", ".heapsnapshot",
       "Chrome DevTools' Memory tab and memlab (V8 heap snapshot JSON)", writeHeapSnapshot},
      {"dartheap", ".dartheap", "Dart DevTools' memory view (the Dart VM's binary heap snapshot)",
       writeDartHeap},
  };
  return kFormats;
}

const Format* findFormat(std::string_view name) {
  for (const Format& f : allFormats()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace goheap::exporting
