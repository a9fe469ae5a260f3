#include "analysis/snapshot.h"

#include <future>

#include "binding/bound_executable.h"
#include "model/object_order.h"
#include "model/span_metadata.h"

namespace goheap::analysis {

Status Snapshot::checkFilesUnchanged() const {
  if (Status s = model.file().checkUnchanged(); !s) return s;
  if (exe) return exe->binary().file().checkUnchanged();
  return Status::success();
}

class SnapshotBuilder {
 public:
  static void attachExecutable(Snapshot& s, const Executable& exe) {
    s.exe_path = exe.path;
    s.exe = exe.bound;
    s.exe_problem = exe.problem;
  }

  static void typeObjects(Snapshot& s) {
    const bin::DebugInfo* table = s.exe->typeTable();
    if (table == nullptr) {
      s.types_problem = s.exe->typeTableProblem();
      return;
    }
    s.types =
        std::make_unique<typing::HeapTypes>(typing::typeHeap(s.model, s.heap, *s.exe, *table));
  }

  static void index(Snapshot& s) {
    nameObjects(s);
    indexDominators(s);
  }
  static void nameObjects(Snapshot& s) {
    s.namer_ = std::make_unique<typing::ObjectNamer>(s.model, s.heap, s.exe.get(), s.types.get());
  }
  // The children replace the preorder: what needs parents before children
  // walks them (suspects), and the snapshot keeps 4 bytes less per node.
  static void indexDominators(Snapshot& s) {
    s.children_ = dominatorChildren(s.dom, s.retained.view());
    s.dom.preorder = {};
  }
  static void indexRestored(Snapshot& s, Csr children) {
    s.namer_ = std::make_unique<typing::ObjectNamer>(s.model, s.heap, s.exe.get(), s.types.get());
    s.children_ = std::move(children);
  }
  static const Csr& children(const Snapshot& s) { return s.children_; }
};

namespace {

void sortObjects(Snapshot& s) {
  model::sortObjectsByAddress(s.model);
  model::markSpanMetadata(s.model);
  model::packObjectColumns(s.model);
}

void countObjects(Snapshot& s) {
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    const uint64_t size = s.model.objects.size[o];
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
}

// Why `dom` with `children` (a valid CSR over node_count nodes) is not a
// dominator tree over `node_count` nodes rooted at `root`, or empty.
std::string dominatorProblem(const DominatorTree& dom, const Csr& children, uint64_t node_count,
                             NodeId root) {
  if (dom.idom.size() != node_count) return "its size";
  if (root >= node_count || dom.idom[root] != root) return "its root";
  uint64_t with_dominator = 0;
  for (NodeId d : dom.idom) {
    if (d != kNoNode && d >= node_count) return "a dominator out of range";
    if (d != kNoNode) with_dominator++;
  }
  // Queries walk up the tree from any node: it must have no cycle. Walked
  // down from the root through the children, every node with a dominator
  // must be met once, under its dominator.
  std::vector<uint8_t> met(node_count, 0);
  std::vector<NodeId> stack{root};
  met[root] = 1;
  uint64_t count = 1;
  while (!stack.empty()) {
    const NodeId p = stack.back();
    stack.pop_back();
    for (NodeId c : children.neighbors(p)) {
      if (met[c] != 0 || dom.idom[c] != p) return "a child that does not follow its dominator";
      met[c] = 1;
      count++;
      stack.push_back(c);
    }
  }
  if (count != with_dominator) return "a node its dominator's children leave out";
  return {};
}

// Why `types` are not a typing of `object_count` objects in `dwarf`'s
// types, or empty.
std::string typesProblem(const typing::HeapTypes& types, uint64_t object_count,
                         const bin::DebugInfo& dwarf) {
  if (types.assignment.size() != object_count) return "their size";
  if (types.assignments.empty()) return "no untyped assignment";
  const uint64_t type_count = dwarf.types().size();
  for (const typing::TypeAssignment& a : types.assignments) {
    if (a.form > typing::TypeForm::Closure) return "a form";
    if ((a.layout != bin::kNoType && a.layout >= type_count) ||
        (a.shown != bin::kNoType && a.shown >= type_count)) {
      return "a type id";
    }
  }
  const uint64_t assignment_count = types.assignments.size();
  for (uint64_t o = 0; o < object_count; o++) {
    if (types.assignment[o] >= assignment_count) return "an assignment index";
  }
  return {};
}

}  // namespace

Executable bindExecutable(std::string path, Expected<bin::Binary> binary,
                          const model::HeapModel& model, std::optional<uint64_t> known_bias) {
  Executable exe;
  exe.path = std::move(path);
  if (!binary) {
    exe.problem = binary.error().message();
    return exe;
  }
  Expected<binding::BoundExecutable> bound =
      binding::BoundExecutable::bind(binary.take(), model, known_bias);
  if (!bound) {
    exe.problem = bound.error().inFile(exe.path).message();
    return exe;
  }
  exe.bound = std::make_shared<const binding::BoundExecutable>(bound.take());
  return exe;
}

Executable bindExecutable(std::string path, const model::HeapModel& model) {
  if (path.empty()) return {};
  Expected<bin::Binary> binary = bin::Binary::open(path);
  return bindExecutable(std::move(path), std::move(binary), model);
}

Expected<std::unique_ptr<Snapshot>> buildSnapshot(model::HeapModel d, const LoadOptions& options,
                                                  Sink& sink) {
  auto snap = std::make_unique<Snapshot>(std::move(d));
  Snapshot& s = *snap;
  inPhase(sink, "sort objects", [&] { sortObjects(s); });
  auto heap = inPhase(sink, "build graph", [&] {
    graph::BuildOptions build;
    build.threads = options.threads;
    build.conservative_stacks = options.conservative_stacks;
    return graph::buildHeap(s.model, build);
  });
  if (!heap) return heap.error();
  s.heap = heap.take();
  SnapshotBuilder::attachExecutable(s, options.executable);
  const auto dominators = [&s] {
    s.dom = computeDominators(s.heap.successors, s.heap.superRoot());
  };
  const auto retained = [&s] {
    s.retained = computeRetainedSizes(s.dom, s.model.objects.size.view());
    countObjects(s);
  };
  if (s.exe && options.type_objects && options.threads > 1) {
    // Typing reads the graph and the model, not the dominators: the two
    // longest phases after the graph run side by side, each on one core.
    inPhase(sink, "type objects + dominators, retained sizes", [&] {
      std::future<void> tree = std::async(std::launch::async, [&] {
        dominators();
        retained();
        SnapshotBuilder::indexDominators(s);
      });
      SnapshotBuilder::typeObjects(s);
      tree.get();
    });
    inPhase(sink, "index for queries", [&] { SnapshotBuilder::nameObjects(s); });
    return snap;
  }
  inPhase(sink, "dominators", dominators);
  inPhase(sink, "retained sizes", retained);
  if (s.exe && options.type_objects)
    inPhase(sink, "type objects (DWARF)", [&] { SnapshotBuilder::typeObjects(s); });
  inPhase(sink, "index for queries", [&] { SnapshotBuilder::index(s); });
  return snap;
}

Expected<std::unique_ptr<Snapshot>> restoreSnapshot(model::HeapModel& model, ComputedParts parts,
                                                    const LoadOptions& options,
                                                    bool objects_prepared, Sink& sink) {
  auto snap = std::make_unique<Snapshot>(std::move(model));
  Snapshot& s = *snap;
  // Hands the model back, for buildSnapshot, when the parts do not fit.
  auto refuse = [&](const std::string& what) {
    model = std::move(s.model);
    return Error(what);
  };
  if (!objects_prepared) inPhase(sink, "sort objects", [&] { sortObjects(s); });
  // The dominator tree is checked beside the graph: both checks read every
  // node, and together they were most of a cache hit's time. The graph's
  // node count and super-root follow from the model and the roots; if the
  // graph is refused, so is everything.
  const uint64_t objects = s.model.objects.count();
  const uint64_t nodes = objects + parts.heap.root_kind.size();
  auto tree_problem = [&]() -> std::string {
    if (std::string p = csrProblem(parts.dominator_children, nodes, nodes); !p.empty()) {
      return "the dominator tree's children do not fit the heap: " + p;
    }
    if (nodes >= UINT32_MAX) return "too many nodes";
    if (std::string p = dominatorProblem(parts.dom, parts.dominator_children, nodes,
                                         static_cast<NodeId>(objects));
        !p.empty()) {
      return "the dominator tree does not fit the heap: " + p;
    }
    return {};
  };
  std::future<std::string> tree_checked =
      std::async(options.threads >= 2 ? std::launch::async : std::launch::deferred, tree_problem);
  auto heap = inPhase(sink, "restore graph",
                      [&] { return graph::restoreHeap(s.model, std::move(parts.heap)); });
  const std::string tree_refused = tree_checked.get();
  if (!heap) return refuse(heap.error().message());
  s.heap = heap.take();
  if (!tree_refused.empty()) return refuse(tree_refused);
  if (parts.retained.size() != nodes) return refuse("the retained sizes do not fit the heap");
  SnapshotBuilder::attachExecutable(s, options.executable);
  if (parts.types) {
    const bin::DebugInfo* table = s.exe ? s.exe->typeTable() : nullptr;
    if (table == nullptr) return refuse("types without the executable's type table");
    if (std::string p = typesProblem(*parts.types, s.heap.objectCount(), *table); !p.empty()) {
      return refuse("the types do not fit the heap: " + p);
    }
    s.types = std::make_unique<typing::HeapTypes>(std::move(*parts.types));
  } else if (s.exe && options.type_objects && s.exe->typeTable() == nullptr) {
    s.types_problem = s.exe->typeTableProblem();  // as typeObjects says it
  }
  s.dom = std::move(parts.dom);
  s.retained = std::move(parts.retained);
  countObjects(s);
  inPhase(sink, "index for queries",
          [&] { SnapshotBuilder::indexRestored(s, std::move(parts.dominator_children)); });
  return snap;
}

namespace {

template <class T>
Column<T> viewOf(const Column<T>& c) {
  return Column<T>::view(std::span<const T>(c.data(), c.size()));
}

Csr viewOf(const Csr& c) {
  return Csr{viewOf(c.begin), viewOf(c.targets)};
}

template <class V, class D>
BasicPackedColumn<V, D> viewOf(const BasicPackedColumn<V, D>& c) {
  return c.packed() ? BasicPackedColumn<V, D>::fromPacked(c.base(), c.shift(), viewOf(c.deltas()))
                    : BasicPackedColumn<V, D>(viewOf(c.unpacked()));
}

}  // namespace

ComputedParts computedPartsOf(const Snapshot& s) {
  ComputedParts p;
  p.heap.successors = viewOf(s.heap.successors);
  // The cache keeps them, so that no later open computes them again.
  p.heap.known_predecessors = viewOf(s.heap.predecessors());
  p.heap.root_kind = viewOf(s.heap.root_kind);
  p.heap.root_record = viewOf(s.heap.root_record);
  p.heap.goroutine_node = viewOf(s.heap.goroutine_node);
  p.heap.frame_node = viewOf(s.heap.frame_node);
  p.heap.non_heap_refs = s.heap.non_heap_refs;
  p.heap.nil_slots = s.heap.nil_slots;
  p.heap.conservative_stack_edges = s.heap.conservative_stack_edges;
  p.dom.idom = viewOf(s.dom.idom);
  p.retained = viewOf(s.retained);
  p.dominator_children = viewOf(SnapshotBuilder::children(s));
  if (s.types) {
    typing::HeapTypes t;
    t.assignment = viewOf(s.types->assignment);
    t.assignments = viewOf(s.types->assignments);
    t.typed_objects = s.types->typed_objects;
    t.conflicts = s.types->conflicts;
    t.typed_from_roots = s.types->typed_from_roots;
    t.typed_from_headers = s.types->typed_from_headers;
    p.types = std::move(t);
  }
  return p;
}

}  // namespace goheap::analysis
