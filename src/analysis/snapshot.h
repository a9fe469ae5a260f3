// A loaded and analysed heap: the decoded records, the object graph, the
// dominator tree and retained sizes, and (with the program's executable) its
// symbols and DWARF types. buildSnapshot() runs every stage, each a
// phase of the Sink it is given (util/sink.h); afterwards a Snapshot is never written, so any
// number of threads may read it. What is computed on demand from it (histograms, the flame graph,
// answers) is kept by query::Session, not here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/dominators.h"
#include "binding/bound_executable.h"
#include "graph/heap.h"
#include "model/heap_model.h"
#include "typing/names.h"
#include "util/column.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::analysis {

// The program's executable as a heap is analysed with it: bound to the heap
// by whoever opened both (query::open opens it once, and the readers, the
// cache key and the typing share that one Binary), or, when it was given but
// cannot be used, why not.
struct Executable {
  std::string path;  // as given; empty for none
  std::shared_ptr<const binding::BoundExecutable> bound;
  std::string problem;  // when `path` is given but `bound` is null
};

// `binary` (opened from `path`, or the Error opening it) bound to `model`,
// with the load bias when the reader found it already (binding::BoundExecutable::bind).
Executable bindExecutable(std::string path, Expected<bin::Binary> binary,
                          const model::HeapModel& model,
                          std::optional<uint64_t> known_bias = std::nullopt);
// The same for the executable at `path` (tests, the fuzzers); empty `path`: none.
Executable bindExecutable(std::string path, const model::HeapModel& model);

struct LoadOptions {
  // For the graph build and typing; with 2 or more, typing runs beside the
  // dominators, then on every thread once they are done.
  unsigned threads = 2;
  bool conservative_stacks = true;  // see graph::BuildOptions
  // The program's executable, if any. When it could not be bound to the
  // heap, the snapshot is built without it and says why (Snapshot::exe_problem).
  Executable executable;
  // Type the objects from the executable's DWARF (tests of the names an
  // untyped heap gets turn it off).
  bool type_objects = true;
  // A restore checks the dominator tree on a thread per this many nodes at
  // most. Tests lower it to check that the split changes nothing.
  uint32_t min_nodes_per_thread = 65536;
  // Typing's chunks (typing::TypingOptions::objects_per_chunk): tests of
  // small heaps lower it so that their typing is split at all.
  size_t typing_objects_per_chunk = typing::TypingOptions{}.objects_per_chunk;
};

class Snapshot {
 public:
  explicit Snapshot(model::HeapModel m) : model(std::move(m)) {}
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  model::HeapModel model;
  graph::Heap heap;
  DominatorTree dom;      // over heap's nodes, rooted at the super-root
  PackedColumn retained;  // per node

  bool reachable(NodeId n) const { return dom.idom[n] != kNoNode; }
  // A record over the runtime's own bytes at the end of a span, which the
  // heap holds as an object (model/span_metadata.h): neither reachable nor
  // garbage, and in no object count.
  bool isRuntimeMetadata(NodeId n) const {
    return heap.isObject(n) && model.objects.isSpanMetadata(n);
  }
  // An object no root reaches, which the next collection frees.
  bool isGarbage(NodeId n) const {
    return heap.isObject(n) && !reachable(n) && !model.objects.isSpanMetadata(n);
  }
  uint64_t shallowSize(NodeId n) const { return heap.isObject(n) ? model.objects.size[n] : 0; }
  uint64_t address(NodeId n) const { return heap.isObject(n) ? model.objects.addr[n] : 0; }

  uint64_t reachable_objects = 0, reachable_bytes = 0;
  uint64_t garbage_objects = 0, garbage_bytes = 0;
  uint64_t metadata_objects = 0, metadata_bytes = 0;  // runtime metadata records

  // The program's executable, when one was given and it matches the dump;
  // it names frames, globals and functions.
  std::shared_ptr<const binding::BoundExecutable> exe;  // shared: a fuzzer lends one to many heaps
  std::string exe_path;                                 // as given, even when it could not be used
  std::string exe_problem;                              // why it is not used; empty when it is
  // Types from the executable's DWARF; null without.
  std::unique_ptr<typing::HeapTypes> types;
  std::string types_problem;  // with an executable but no types: why

  // An Error naming the file when the dump or the executable changed on
  // disk since they were mapped, or a read of either faulted because it
  // shrank (util/mapping_guard.h): what was computed from them since is not
  // to be trusted. Cheap (a stat per file), so callers may ask per request.
  Status checkFilesUnchanged() const;

  const typing::ObjectNamer& namer() const { return *namer_; }
  // Each node's children in the dominator tree, biggest retained first.
  const Csr& dominatorChildren() const { return children_; }

 private:
  friend class SnapshotBuilder;  // snapshot.cpp: buildSnapshot's stages
  std::unique_ptr<typing::ObjectNamer> namer_;
  Csr children_;
};

// What buildSnapshot computes from a heap that takes time (the graph, the
// dominator tree, retained sizes, the DWARF types, the dominator tree's
// children), as the index cache keeps it (cache/snapshot_index.h).
struct ComputedParts {
  graph::HeapParts heap;
  DominatorTree dom;
  PackedColumn retained;
  Csr dominator_children;
  // With types: the typing pass ran and these are its results. Without,
  // it did not run (no executable, no DWARF, or typing off).
  std::optional<typing::HeapTypes> types;
};

// Every stage after the reader, in order: sort the objects by address, build
// the graph, dominators, retained sizes; with options.executable, the
// objects' DWARF types; and the indexes queries read (object names,
// dominator children), each a phase of `sink`. Only a heap that cannot be
// analysed at all is an error.
Expected<std::unique_ptr<Snapshot>> buildSnapshot(model::HeapModel model,
                                                  const LoadOptions& options = {},
                                                  Sink& sink = nullSink());

// The Snapshot buildSnapshot(model, options) made, from the parts it
// computed then (`parts`, whose columns may be views of memory the caller
// keeps alive as long as the Snapshot: a mapped cache entry). Only
// the cheap stages run again: sorting the objects (not when
// `objects_prepared`: the model comes from the cache too, sorted and with
// its span metadata marked), the executable's symbols, the names. On
// success `model` has moved into the Snapshot. Parts that do not fit this
// heap and executable (sizes, node and type ids out of range, a dominator
// tree with a cycle) are an Error, and `model` is left as it was (its objects
// sorted), for the caller to build afresh with buildSnapshot.
Expected<std::unique_ptr<Snapshot>> restoreSnapshot(model::HeapModel& model, ComputedParts parts,
                                                    const LoadOptions& options = {},
                                                    bool objects_prepared = false,
                                                    Sink& sink = nullSink());

// The parts of `s` that restoreSnapshot takes, as views of its columns
// (valid while `s` lives): what the index cache writes.
ComputedParts computedPartsOf(const Snapshot& s);

}  // namespace goheap::analysis
