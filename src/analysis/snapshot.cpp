#include "analysis/snapshot.h"

#include "bin/dump_binding.h"
#include "dump/object_order.h"
#include "dump/span_metadata.h"

namespace goheap::analysis {

namespace {

// Runs `work` as one named phase.
template <class Fn>
auto phase(const LoadHooks& hooks, std::string_view name, Fn&& work) {
  if (hooks.begin_phase) hooks.begin_phase(name);
  struct End {
    const LoadHooks& h;
    ~End() {
      if (h.end_phase) h.end_phase();
    }
  } end{hooks};
  return work();
}

}  // namespace

Status Snapshot::checkFilesUnchanged() const {
  if (Status s = dump.file().checkUnchanged(); !s) return s;
  if (exe) return exe->binary().file().checkUnchanged();
  return Status::success();
}

class SnapshotBuilder {
 public:
  static void attachExecutable(Snapshot& s, const std::string& path) {
    s.exe_path = path;
    Expected<bin::BoundExecutable> b = bin::openBoundExecutable(path, s.dump);
    if (!b) {
      s.exe_problem = b.error().message();
      return;
    }
    s.exe = std::make_shared<const bin::BoundExecutable>(b.take());
  }

  static void typeObjects(Snapshot& s) {
    const bin::DebugInfo* dwarf = s.exe->debugInfo();
    if (dwarf == nullptr) {
      s.types_problem = s.exe->debugInfoProblem();
      return;
    }
    s.types = std::make_unique<typing::HeapTypes>(typing::typeHeap(s.dump, s.heap, *s.exe, *dwarf));
  }

  static void index(Snapshot& s) {
    s.namer_ = std::make_unique<typing::ObjectNamer>(s.dump, s.heap, s.exe.get(), s.types.get());
    s.children_ = dominatorChildren(s.dom, s.retained);
  }
};

Expected<std::unique_ptr<Snapshot>> buildSnapshot(dump::Dump d, const LoadHooks& hooks,
                                                  const LoadOptions& options) {
  auto snap = std::make_unique<Snapshot>(std::move(d));
  Snapshot& s = *snap;
  phase(hooks, "sort objects", [&] {
    dump::sortObjectsByAddress(s.dump);
    dump::markSpanMetadata(s.dump);
  });
  auto heap = phase(hooks, "build graph", [&] {
    graph::BuildOptions build;
    build.threads = options.threads;
    build.conservative_stacks = options.conservative_stacks;
    return graph::buildHeap(s.dump, build);
  });
  if (!heap) return heap.error();
  s.heap = heap.take();
  phase(hooks, "dominators", [&] {
    s.dom = computeDominators(s.heap.successors, s.heap.predecessors, s.heap.superRoot());
  });
  phase(hooks, "retained sizes", [&] {
    s.retained = computeRetainedSizes(s.dom, s.dump.objects.size);
    for (NodeId o = 0; o < s.heap.objectCount(); o++) {
      const uint64_t size = s.dump.objects.size[o];
      if (s.reachable(o)) {
        s.reachable_objects++;
        s.reachable_bytes += size;
      } else if (s.isRuntimeMetadata(o)) {
        s.metadata_objects++;
        s.metadata_bytes += size;
      } else {
        s.garbage_objects++;
        s.garbage_bytes += size;
      }
    }
  });
  if (!options.exe_path.empty()) {
    phase(hooks, "read executable",
          [&] { SnapshotBuilder::attachExecutable(s, options.exe_path); });
  }
  if (s.exe && options.type_objects)
    phase(hooks, "type objects (DWARF)", [&] { SnapshotBuilder::typeObjects(s); });
  phase(hooks, "index for queries", [&] { SnapshotBuilder::index(s); });
  return snap;
}

}  // namespace goheap::analysis
