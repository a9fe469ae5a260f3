#include "analysis/snapshot.h"

#include <future>

#include "binding/bound_executable.h"
#include "model/object_order.h"
#include "model/span_metadata.h"
#include "util/parallel.h"

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

  static void typeObjects(Snapshot& s, const typing::TypingOptions& options) {
    const bin::DebugInfo* table = s.exe->typeTable();
    if (table == nullptr) {
      s.types_problem = s.exe->typeTableProblem();
      return;
    }
    s.types = std::make_unique<typing::HeapTypes>(
        typing::typeHeap(s.model, s.heap, *s.exe, *table, options));
  }

  static void index(Snapshot& s) {
    nameObjects(s);
    indexDominators(s, 1);
  }
  static void nameObjects(Snapshot& s) {
    s.namer_ = std::make_unique<typing::ObjectNamer>(s.model, s.heap, s.exe.get(), s.types.get());
  }
  // The children replace the preorder: what needs parents before children
  // walks them (suspects), and the snapshot keeps 4 bytes less per node.
  static void indexDominators(Snapshot& s, unsigned threads) {
    s.children_ = dominatorChildren(s.dom, s.retained.view(), threads);
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

struct ObjectCounts {
  uint64_t reachable_objects = 0, reachable_bytes = 0;
  uint64_t garbage_objects = 0, garbage_bytes = 0;
  uint64_t metadata_objects = 0, metadata_bytes = 0;

  // Object o of `objects`, reachable when it has a dominator: as
  // Snapshot::reachable and ::isRuntimeMetadata tell them apart.
  void add(const model::Objects& objects, NodeId o, bool reachable) {
    const uint64_t size = objects.size[o];
    if (reachable) {
      reachable_objects++;
      reachable_bytes += size;
    } else if (objects.isSpanMetadata(o)) {
      metadata_objects++;
      metadata_bytes += size;
    } else {
      garbage_objects++;
      garbage_bytes += size;
    }
  }
  void merge(const ObjectCounts& o) {
    reachable_objects += o.reachable_objects;
    reachable_bytes += o.reachable_bytes;
    garbage_objects += o.garbage_objects;
    garbage_bytes += o.garbage_bytes;
    metadata_objects += o.metadata_objects;
    metadata_bytes += o.metadata_bytes;
  }
};

ObjectCounts countObjects(const DominatorTree& dom, const model::Objects& objects) {
  ObjectCounts c;
  for (NodeId o = 0; o < objects.count(); o++) c.add(objects, o, dom.idom[o] != kNoNode);
  return c;
}

void setCounts(Snapshot& s, const ObjectCounts& c) {
  s.reachable_objects = c.reachable_objects;
  s.reachable_bytes = c.reachable_bytes;
  s.garbage_objects = c.garbage_objects;
  s.garbage_bytes = c.garbage_bytes;
  s.metadata_objects = c.metadata_objects;
  s.metadata_bytes = c.metadata_bytes;
}

// Why `dom` with `children` (a valid CSR over node_count nodes) and the
// nodes' `retained` sizes are not a dominator tree over `node_count` nodes
// rooted at `root`, or empty. The first nodes are `objects`; the rest (the
// roots) have no size. Counts the objects on the way, into `counts`.
//
// Queries walk up the tree from any node, so it must have no cycle, and
// down through the children, so every node with a dominator must be among
// its dominator's children, once. A walk down from the root proved both,
// but it waited on a cache miss at every node and was most of a cache
// hit's time. These checks read the rows in order and each child on its
// own, so the CPU overlaps the misses:
//  - every child has the row's node as its dominator and appears once, and
//    the children are as many as the nodes with a dominator, the root
//    aside: the children are exactly the dominator relation;
//  - a node with children has a dominator itself, so every walk up ends
//    at the root, unless it goes round a cycle;
//  - each node with children retains its own size and its children's
//    retained sizes, without overflow. Along a cycle every node would then
//    retain at least its size more than the next, so a cycle can only pass
//    through nodes of size 0 (the roots, mostly): those are walked up.
std::string dominatorProblem(const DominatorTree& dom, const Csr& children, PackedView retained,
                             const model::Objects& objects, uint64_t node_count, NodeId root,
                             unsigned threads, uint32_t min_nodes_per_thread,
                             ObjectCounts& counts) {
  if (dom.idom.size() != node_count || retained.size() != node_count) return "its size";
  if (root >= node_count || dom.idom[root] != root) return "its root";
  const NodeId object_count = static_cast<NodeId>(std::min<uint64_t>(objects.count(), node_count));
  auto size = [&](NodeId n) -> uint64_t { return n < object_count ? objects.size[n] : 0; };
  // The nodes in ranges, one per thread (min_nodes_per_thread at least).
  // Each range checks its nodes' dominators, then its rows of children. A
  // child is marked met only once its dominator is its row's node, and no
  // node is two rows' node, so no two threads mark the same child. The
  // first range's problem is told, dominators before rows, so that the
  // message does not depend on the thread count.
  struct Range {
    ObjectCounts counts;
    uint64_t with_dominator = 0, child_count = 0;
    std::vector<NodeId> zero_size_objects;  // with a dominator; rare
    const char* dominator_problem = nullptr;
    const char* row_problem = nullptr;
  };
  const unsigned parts = static_cast<unsigned>(std::clamp<uint64_t>(
      node_count / std::max(1u, min_nodes_per_thread), 1, std::max(1u, threads)));
  std::vector<Range> ranges(parts);
  std::vector<uint8_t> met(node_count, 0);
  forEachRange(node_count, parts, [&](unsigned part, size_t first, size_t last) {
    Range& r = ranges[part];
    for (NodeId v = static_cast<NodeId>(first); v < last; v++) {
      const NodeId d = dom.idom[v];
      if (d != kNoNode && d >= node_count) {
        r.dominator_problem = "a dominator out of range";
        return;
      }
      if (d != kNoNode) r.with_dominator++;
      if (v < object_count) {
        r.counts.add(objects, v, d != kNoNode);
        if (d != kNoNode && objects.size[v] == 0) r.zero_size_objects.push_back(v);
      }
    }
    r.row_problem = [&]() -> const char* {
      for (NodeId p = static_cast<NodeId>(first); p < last; p++) {
        const std::span<const NodeId> row = children.neighbors(p);
        if (row.empty()) continue;
        if (dom.idom[p] == kNoNode) return "children under a node with no dominator";
        uint64_t total = size(p);
        for (NodeId c : row) {
          if (c == root || c == p || dom.idom[c] != p || met[c] != 0) {
            return "a child that does not follow its dominator";
          }
          met[c] = 1;
          if (__builtin_add_overflow(total, retained[c], &total)) return "a retained size";
        }
        r.child_count += row.size();
        if (total != retained[p])
          return "a retained size that is not its node's and its children's";
      }
      return nullptr;
    }();
  });
  for (const Range& r : ranges) {
    if (r.dominator_problem != nullptr) return r.dominator_problem;
  }
  for (const Range& r : ranges) {
    if (r.row_problem != nullptr) return r.row_problem;
  }
  uint64_t with_dominator = 0, child_count = 0;
  std::vector<NodeId> zero_size_objects;
  for (const Range& r : ranges) {
    counts.merge(r.counts);
    with_dominator += r.with_dominator;
    child_count += r.child_count;
    zero_size_objects.insert(zero_size_objects.end(), r.zero_size_objects.begin(),
                             r.zero_size_objects.end());
  }
  if (child_count + 1 != with_dominator) return "a node its dominator's children leave out";
  // Walks up from each node of size 0 through nodes of size 0: 1 marks the
  // walk under way, 2 a node whose walk ended well. Without objects of size
  // 0 the walks stay among the roots, and so does their state.
  std::vector<uint8_t> walk_state;
  const NodeId first_walked = zero_size_objects.empty() ? object_count : 0;
  walk_state.assign(node_count - first_walked, 0);
  auto state = [&](NodeId n) -> uint8_t& { return walk_state[n - first_walked]; };
  // Whether u is a node of size 0 the walks keep a state for.
  auto walked = [&](NodeId u) {
    return u != root && u != kNoNode && u >= first_walked && size(u) == 0;
  };
  auto walkUpFrom = [&](NodeId v) {  // false on a cycle
    NodeId u = v;
    while (walked(u) && state(u) == 0) {
      state(u) = 1;
      u = dom.idom[u];
    }
    if (walked(u) && state(u) == 1) return false;
    for (NodeId w = v; w != u; w = dom.idom[w]) state(w) = 2;
    return true;
  };
  for (NodeId v : zero_size_objects) {
    if (!walkUpFrom(v)) return "a cycle of dominators";
  }
  for (NodeId v = object_count; v < node_count; v++) {
    if (dom.idom[v] != kNoNode && !walkUpFrom(v)) return "a cycle of dominators";
  }
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
    if (a.evidence > typing::TypeEvidence::AllocationSite) return "an evidence";
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
    setCounts(s, countObjects(s.dom, s.model.objects));
  };
  typing::TypingOptions typing;
  typing.threads = std::max(1u, options.threads);
  typing.objects_per_chunk = options.typing_objects_per_chunk;
  if (s.exe && options.type_objects && options.threads > 1) {
    // Typing reads the graph and the model, not the dominators: the two
    // longest phases after the graph run side by side, the dominators on
    // one core and typing on the others, then on every core.
    std::atomic<unsigned> typing_threads = options.threads - 1;
    typing.threads_now = &typing_threads;
    inPhase(sink, "type objects + dominators, retained sizes", [&] {
      std::future<void> tree = std::async(std::launch::async, [&] {
        dominators();
        retained();
        SnapshotBuilder::indexDominators(s, 1);  // typing has the other threads
        typing_threads = options.threads;
      });
      SnapshotBuilder::typeObjects(s, typing);
      tree.get();
    });
    inPhase(sink, "index for queries", [&] { SnapshotBuilder::nameObjects(s); });
    return snap;
  }
  if (!(s.exe && options.type_objects) && options.threads > 1) {
    // Without typing the names of objects come from the interface words
    // that point at them: the namer and its one scan of the heap for them
    // (most of an untyped summary's own time) read the model and the
    // graph, not the tree, so they take the core the dominators leave.
    inPhase(sink, "dominators, retained sizes + names", [&] {
      std::future<void> tree = std::async(std::launch::async, [&] {
        dominators();
        retained();
        // By then the names are ready and their thread is free.
        SnapshotBuilder::indexDominators(s, options.threads);
      });
      SnapshotBuilder::nameObjects(s);
      s.namer().scanAllInterfaces();
      tree.get();
    });
    return snap;
  }
  inPhase(sink, "dominators", dominators);
  inPhase(sink, "retained sizes", retained);
  if (s.exe && options.type_objects)
    inPhase(sink, "type objects (DWARF)", [&] { SnapshotBuilder::typeObjects(s, typing); });
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
  ObjectCounts counts;
  auto tree_problem = [&]() -> std::string {
    if (std::string p = csrProblem(parts.dominator_children, nodes, nodes); !p.empty()) {
      return "the dominator tree's children do not fit the heap: " + p;
    }
    if (nodes >= UINT32_MAX) return "too many nodes";
    if (std::string p = dominatorProblem(parts.dom, parts.dominator_children, parts.retained.view(),
                                         s.model.objects, nodes, static_cast<NodeId>(objects),
                                         options.threads, options.min_nodes_per_thread, counts);
        !p.empty()) {
      return "the dominator tree does not fit the heap: " + p;
    }
    return {};
  };
  std::future<std::string> tree_checked =
      std::async(options.threads >= 2 ? std::launch::async : std::launch::deferred, tree_problem);
  std::string tree_refused;
  auto heap = inPhase(sink, "restore graph", [&] {
    auto restored = graph::restoreHeap(s.model, std::move(parts.heap));
    // The types' table (the executable's DWARF, a tenth of a cache hit) is
    // read while the tree is still being checked.
    if (parts.types && options.executable.bound) (void)options.executable.bound->typeTable();
    tree_refused = tree_checked.get();
    return restored;
  });
  if (!heap) return refuse(heap.error().message());
  s.heap = heap.take();
  if (!tree_refused.empty()) return refuse(tree_refused);
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
  setCounts(s, counts);
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
