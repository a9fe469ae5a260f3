// The formats `goheap convert` writes, one writer per file in src/export/,
// all taking the same arguments: the analysed snapshot (with the executable's
// types and names when it was given) and where to write.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "analysis/snapshot.h"
#include "export/output.h"
#include "util/error.h"

namespace goheap::exporting {

struct ConvertOptions {
  // The object a neighbourhood format (dot) is about.
  NodeId focus = kNoNode;
  uint32_t depth = 2;         // dot: levels of the dominator tree below the focus
  uint32_t max_children = 8;  // dot: children shown per node
  uint32_t max_paths = 3;     // dot: paths to roots
  // Called now and then with (done, total) units of the writer's choosing.
  std::function<void(uint64_t, uint64_t)> progress;
};

using WriteFn = Status (*)(const analysis::Snapshot& snap, const ConvertOptions& options,
                           Output& out);

struct Format {
  const char* name;       // --to NAME
  const char* extension;  // suggested file name suffix
  const char* description;
  WriteFn write;
  bool needs_focus = false;  // needs --object ADDR
};

std::span<const Format> allFormats();
const Format* findFormat(std::string_view name);

// The writers (src/export/<format>.cpp).
Status writeJsonLines(const analysis::Snapshot& snap, const ConvertOptions& options, Output& out);
Status writeDot(const analysis::Snapshot& snap, const ConvertOptions& options, Output& out);
Status writeHprof(const analysis::Snapshot& snap, const ConvertOptions& options, Output& out);
Status writePprof(const analysis::Snapshot& snap, const ConvertOptions& options, Output& out);
Status writePprofRetention(const analysis::Snapshot& snap, const ConvertOptions& options,
                           Output& out);
Status writeHeapSnapshot(const analysis::Snapshot& snap, const ConvertOptions& options,
                         Output& out);
Status writeDartHeap(const analysis::Snapshot& snap, const ConvertOptions& options, Output& out);

}  // namespace goheap::exporting
