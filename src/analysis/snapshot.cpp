#include "analysis/snapshot.h"

#include "analysis/flame.h"
#include "analysis/queries.h"

#include "bin/dump_binding.h"
#include "dump/object_order.h"
#include "dump/reader.h"
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

const typing::ObjectNamer& Snapshot::namer() const {
  if (!namer_) namer_ = std::make_unique<typing::ObjectNamer>(dump, heap, exe.get(), types.get());
  return *namer_;
}

const Csr& Snapshot::dominatorChildren() const {
  if (!children_) children_ = std::make_unique<Csr>(analysis::dominatorChildren(dom, retained));
  return *children_;
}

void Snapshot::prepareForConcurrentReads() const {
  namer().scanAllInterfaces();
  dominatorChildren();
  if (exe) exe->debugInfo();
  // The histogram a UI shows first (top --by auto): ready before the first
  // request, not computed during it.
  allGroups(*this, types ? typing::GroupKind::Type : typing::GroupKind::Name);
  fullFlame(*this);  // the flame graph page, likewise
}

Expected<std::unique_ptr<Snapshot>> analyseDump(dump::Dump d, const LoadHooks& hooks,
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
  return snap;
}

Status attachExecutable(Snapshot& s, const std::string& path) {
  s.exe_path = path;
  s.exe.reset();
  Expected<bin::BoundExecutable> b = bin::openBoundExecutable(path, s.dump);
  if (!b) {
    s.exe_problem = b.error().message();
    return b.error();
  }
  s.exe_problem.clear();
  s.exe = std::make_unique<bin::BoundExecutable>(b.take());
  return Status::success();
}

Status typeObjects(Snapshot& s) {
  s.types.reset();
  if (!s.exe) return Error("no executable");
  const bin::DebugInfo* dwarf = s.exe->debugInfo();
  if (dwarf == nullptr) return Error(s.exe->debugInfoProblem());
  s.types = std::make_unique<typing::HeapTypes>(typing::typeHeap(s.dump, s.heap, *s.exe, *dwarf));
  return Status::success();
}

Expected<std::unique_ptr<Snapshot>> loadSnapshot(const std::string& path, const LoadHooks& hooks,
                                                 const LoadOptions& options) {
  auto d = phase(hooks, "read dump", [&] {
    dump::ReadOptions read;
    read.progress = hooks.progress;
    return dump::readDumpFile(path, read);
  });
  if (!d) return d.error();
  return analyseDump(d.take(), hooks, options);
}

}  // namespace goheap::analysis
