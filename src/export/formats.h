// The formats `goheap convert` writes, one writer per file in src/export/,
// all taking the same arguments: the analysed snapshot (with the executable's
// types and names when it was given) and where to write.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "analysis/snapshot.h"
#include "export/output.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::exporting {

struct ConvertOptions {
  // The object a neighbourhood format (dot) is about.
  NodeId focus = kNoNode;
  uint32_t depth = 2;         // dot: levels of the dominator tree below the focus
  uint32_t max_children = 8;  // dot: children shown per node
  uint32_t max_paths = 3;     // dot: paths to roots
  // Where the writer tells its progress (WriteProgress); null: nowhere.
  Sink* sink = nullptr;
};

// A writer's progress on its options' sink: the phase "write NAME" (NAME as
// --to spells the format), begun at the first report, when the total is
// known, and ended with this object.
class WriteProgress {
 public:
  WriteProgress(const ConvertOptions& options, std::string_view format)
      : sink_(options.sink), format_(format) {}
  WriteProgress(const WriteProgress&) = delete;
  WriteProgress& operator=(const WriteProgress&) = delete;
  ~WriteProgress() {
    if (begun_) sink_->endPhase();
  }
  // (done, total) in units of the writer's choosing.
  void report(uint64_t done, uint64_t total) {
    if (sink_ == nullptr) return;
    if (!begun_) sink_->beginPhase("write " + std::string(format_), total);
    begun_ = true;
    sink_->progress(done);
  }

 private:
  Sink* sink_;
  std::string_view format_;
  bool begun_ = false;
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
