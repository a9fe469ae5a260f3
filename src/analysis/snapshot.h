// A loaded and analysed dump: the decoded records, the object graph, the
// dominator tree and retained sizes. Every command starts from one. Stages
// run in order and each is timed through LoadHooks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/dominators.h"
#include "bin/dump_binding.h"
#include "dump/dump.h"
#include "graph/heap.h"
#include "typing/names.h"
#include "util/error.h"

namespace goheap::analysis {

struct LoadHooks {
  std::function<void(std::string_view phase)> begin_phase;
  std::function<void(uint64_t done, uint64_t total)> progress;
  std::function<void()> end_phase;
};

struct LoadOptions {
  unsigned threads = 2;             // for the graph build
  bool conservative_stacks = true;  // see graph::BuildOptions
};

struct Histogram;  // queries.h
struct Flame;      // flame.h
struct Header;     // headers.h

class Snapshot {
 public:
  Snapshot(dump::Dump d) : dump(std::move(d)) {}  // NOLINT(google-explicit-constructor)
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  dump::Dump dump;
  graph::Heap heap;
  DominatorTree dom;               // over heap's nodes, rooted at the super-root
  std::vector<uint64_t> retained;  // per node

  bool reachable(NodeId n) const { return dom.idom[n] != kNoNode; }
  // A record over the runtime's own bytes at the end of a span, which the
  // dump writes as an object (dump/span_metadata.h): neither reachable nor
  // garbage, and in no object count.
  bool isRuntimeMetadata(NodeId n) const {
    return heap.isObject(n) && dump.objects.isSpanMetadata(n);
  }
  // An object no root reaches, which the next collection frees.
  bool isGarbage(NodeId n) const {
    return heap.isObject(n) && !reachable(n) && !dump.objects.isSpanMetadata(n);
  }
  uint64_t shallowSize(NodeId n) const { return heap.isObject(n) ? dump.objects.size[n] : 0; }
  uint64_t address(NodeId n) const { return heap.isObject(n) ? dump.objects.addr[n] : 0; }

  uint64_t reachable_objects = 0, reachable_bytes = 0;
  uint64_t garbage_objects = 0, garbage_bytes = 0;
  uint64_t metadata_objects = 0, metadata_bytes = 0;  // runtime metadata records

  // The program's executable, when one was given and it matches the dump;
  // it names frames, globals and functions. Attach it before the first
  // namer() call.
  std::unique_ptr<bin::BoundExecutable> exe;
  std::string exe_path;     // as given, even when it could not be used
  std::string exe_problem;  // why it is not used; empty when it is
  // Types from the executable's DWARF (typeObjects); null without.
  std::unique_ptr<typing::HeapTypes> types;

  // An Error naming the file when the dump or the executable changed on
  // disk since they were mapped, or a read of either faulted because it
  // shrank (util/mapping_guard.h): what was computed from them since is not
  // to be trusted. Cheap (a stat per file), so callers may ask per request.
  Status checkFilesUnchanged() const;

  // Built on first use.
  const typing::ObjectNamer& namer() const;
  const Csr& dominatorChildren() const;
  // Builds everything the const accessors would build on first use (the
  // namer and its interface scan, the dominator children, the executable's
  // DWARF), so that afterwards the Snapshot is only read and any number of
  // threads may query it at once. Call once, after typeObjects().
  void prepareForConcurrentReads() const;

 private:
  friend std::shared_ptr<const Histogram> allGroups(const Snapshot& s, typing::GroupKind by);
  // Every group's totals per grouping (queries.cpp), built on first use: a
  // server answers `top` with another sort, filter or page from them.
  mutable std::mutex group_cache_mutex_;
  mutable std::array<std::shared_ptr<const Histogram>, 4> group_cache_;
  friend std::shared_ptr<const Flame> fullFlame(const Snapshot& s);
  mutable std::mutex flame_cache_mutex_;
  mutable std::shared_ptr<const Flame> flame_cache_;
  // The string, slice and map headers in typed memory (headers.cpp), which
  // dups and waste both read: a report or a server computes them once.
  friend std::shared_ptr<const std::vector<Header>> typedHeaders(const Snapshot& s);
  mutable std::mutex headers_cache_mutex_;
  mutable std::shared_ptr<const std::vector<Header>> headers_cache_;
  mutable std::unique_ptr<typing::ObjectNamer> namer_;
  mutable std::unique_ptr<Csr> children_;
};

// Opens and binds the executable at `path`. When it cannot be read or does
// not match the dump, the snapshot carries on without it and the returned
// Error (also kept in exe_problem) says why.
Status attachExecutable(Snapshot& s, const std::string& path);

// Types the heap from the attached executable's DWARF. A Status error says
// why there are no types (no executable, no DWARF); the snapshot is fine.
// Call before the first namer() call.
Status typeObjects(Snapshot& s);

Expected<std::unique_ptr<Snapshot>> loadSnapshot(const std::string& path,
                                                 const LoadHooks& hooks = {},
                                                 const LoadOptions& options = {});

// The same from a dump already read (tests, fuzzing).
Expected<std::unique_ptr<Snapshot>> analyseDump(dump::Dump dump, const LoadHooks& hooks = {},
                                                const LoadOptions& options = {});

}  // namespace goheap::analysis
