#include "analysis/summary.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "analysis/goroutine_leaks.h"
#include "analysis/slots.h"
#include "util/mapped_file.h"
#include "util/parallel.h"

namespace goheap::analysis {

namespace {

// How a retainer's holding root is named: a global by its name, others by
// their short label ("goroutine 18 stack").
std::string holderName(const Snapshot& s, NodeId root, NodeId pointed_at) {
  NodeLabel l = labelNode(s, root);
  if (const auto slot = slotPointingTo(s, root, pointed_at)) l = labelHolder(s, root, slot->second);
  if (!l.global.empty()) return "global " + l.global;
  if (!l.short_name.empty()) return l.short_name;
  // "goroutine 1 (dumping heap)": the goroutine alone; its state is another
  // question's.
  if (l.kind == "goroutine") return l.name.substr(0, l.name.find(" ("));
  return l.name;
}

// The roots with an edge to `o`, as Retainer::root_holders names them
// (roots' edges only: far fewer than all edges).
std::vector<NodeId> rootsPointingAt(const Snapshot& s, NodeId o) {
  std::vector<NodeId> roots;
  for (NodeId n = s.heap.objectCount(); n < s.heap.nodeCount(); n++) {
    if (n == s.heap.superRoot()) continue;
    for (NodeId to : s.heap.successors.neighbors(n)) {
      if (to == o) {
        roots.push_back(n);
        break;
      }
    }
  }
  return roots;
}

// Which roots reach a retainer the super-root dominates, without the graph's
// predecessors (a reverse CSR as big as the graph, which a summary should not
// have to build). The dominator tree splits the reachable nodes into
// territories, one per child of the super-root: a root, or an object two
// roots reach (a "shared" object). An edge into a node other than a shared
// object stays inside its territory (whatever dominates the target dominates
// the source), so the roots reaching a shared object are those whose
// territories reach it over the few edges between territories.
struct CrossingEdge {
  NodeId target;     // a shared object
  NodeId territory;  // the root or shared object dominating the edge's source
  // The node the territory's head points at on the way: the target when the
  // head itself points at it, else the head's dominator child above the
  // source (for naming the global a data segment's edge starts from).
  NodeId first_step;
};

// The search goes back this many territories from a retainer at most (each
// step back is one pass over the graph's edges), and keeps at most so many
// crossing edges: past either it says it is incomplete.
constexpr size_t kMaxCrossingLevels = 16;
constexpr size_t kMaxCrossingEdges = size_t{1} << 22;
constexpr unsigned kCrossingSearchThreads = 2;

struct CrossingEdges {
  std::vector<CrossingEdge> edges;  // by target, then territory
  bool complete = true;
};

void sortAndMerge(std::vector<CrossingEdge>& edges) {
  std::sort(edges.begin(), edges.end(), [](const CrossingEdge& a, const CrossingEdge& b) {
    if (a.target != b.target) return a.target < b.target;
    if (a.territory != b.territory) return a.territory < b.territory;
    return a.first_step < b.first_step;
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const CrossingEdge& a, const CrossingEdge& b) {
                            return a.target == b.target && a.territory == b.territory;
                          }),
              edges.end());
}

// A reachable node's first step below its territory's head in the dominator
// tree: the node itself when it is the head (the super-root's child), else
// the head's child above it. Only the sources of crossing edges are asked
// for, so the steps are found by walking up their dominators, each node's
// walk remembered for the walks that pass it later (a long list is walked
// once, however many of its nodes point at shared objects).
class FirstSteps {
 public:
  explicit FirstSteps(const Snapshot& s) : idom_(s.dom.idom), super_(s.heap.superRoot()) {}

  NodeId of(NodeId n) {
    NodeId up = n;
    NodeId step = kNoNode;
    while (step == kNoNode) {
      if (const auto known = known_.find(up); known != known_.end()) {
        step = known->second;
      } else if (idom_[up] == super_ || idom_[idom_[up]] == super_) {
        step = up;
      } else {
        chain_.push_back(up);
        up = idom_[up];
      }
    }
    for (NodeId c : chain_) known_.emplace(c, step);
    chain_.clear();
    return step;
  }

 private:
  const Column<NodeId>& idom_;
  const NodeId super_;
  std::unordered_map<NodeId, NodeId> known_;
  std::vector<NodeId> chain_;
};

// The crossing edges into `targets` (shared objects) and, level by level,
// into the shared objects whose territories reach them: one sequential pass
// over the graph's edges a level, with only the crossing edges' sources
// looked up in the dominator tree.
CrossingEdges crossingEdgesInto(const Snapshot& s, const std::vector<NodeId>& targets) {
  CrossingEdges out;
  const NodeId super = s.heap.superRoot();
  std::vector<bool> wanted(s.heap.objectCount());
  std::vector<bool> frontier(s.heap.objectCount());
  std::vector<NodeId> level = targets;
  for (NodeId t : targets) wanted[t] = true;
  // Each thread scans its own range of nodes, with its own memory of steps
  // (the edges are sorted after, so the answer is the same on any number).
  const unsigned parts = kCrossingSearchThreads;
  std::vector<FirstSteps> steps(parts, FirstSteps(s));
  std::vector<std::vector<CrossingEdge>> found(parts);
  for (size_t depth = 0; !level.empty(); depth++) {
    if (depth == kMaxCrossingLevels || out.edges.size() > kMaxCrossingEdges) {
      out.complete = false;
      break;
    }
    for (NodeId t : level) frontier[t] = true;
    forEachRange(s.heap.nodeCount(), parts, [&](unsigned part, size_t first_node, size_t end) {
      for (auto n = static_cast<NodeId>(first_node); n < end; n++) {
        for (NodeId to : s.heap.successors.neighbors(n)) {
          if (!s.heap.isObject(to) || !frontier[to] || n == super || !s.reachable(n)) continue;
          const NodeId first = steps[part].of(n);
          const NodeId head = s.dom.idom[first] == super ? first : s.dom.idom[first];
          if (to != head) found[part].push_back({to, head, n == head ? to : first});
        }
      }
    });
    for (NodeId t : level) frontier[t] = false;
    level.clear();
    for (std::vector<CrossingEdge>& edges : found) {
      for (const CrossingEdge& e : edges) {
        if (s.heap.isObject(e.territory) && !wanted[e.territory]) {
          wanted[e.territory] = true;
          level.push_back(e.territory);
        }
      }
      out.edges.insert(out.edges.end(), edges.begin(), edges.end());
      edges.clear();
    }
  }
  sortAndMerge(out.edges);
  return out;
}

// The roots that reach `o` only through other objects, nearest first
// (breadth-first over territories), each with the node it points at on the
// way; `complete` false when the search stopped at kMaxCrossingLevels or
// kMaxCrossingEdges.
struct ReachingRoots {
  std::vector<std::pair<NodeId, NodeId>> roots;  // (root, the node it points at)
  bool complete = true;
};
ReachingRoots rootsReaching(const Snapshot& s, const CrossingEdges& crossing, NodeId o) {
  ReachingRoots out;
  out.complete = crossing.complete;
  const std::vector<CrossingEdge>& edges = crossing.edges;
  std::unordered_set<NodeId> seen{o};
  std::deque<NodeId> queue{o};
  while (!queue.empty()) {
    const NodeId n = queue.front();
    queue.pop_front();
    auto it = std::lower_bound(edges.begin(), edges.end(), n,
                               [](const CrossingEdge& e, NodeId t) { return e.target < t; });
    for (; it != edges.end() && it->target == n; ++it) {
      if (!seen.insert(it->territory).second) continue;
      if (s.heap.isObject(it->territory)) {
        queue.push_back(it->territory);
      } else {
        out.roots.emplace_back(it->territory, it->first_step);
      }
    }
  }
  return out;
}

// Names `root` among r's holders, or counts it among the "N more" past
// `most` names (without looking up a name it will not show).
void addRootHolder(Retainer& r, size_t most, const Snapshot& s, NodeId root, NodeId pointed_at) {
  if (r.root_holders.size() >= most) {
    r.more_root_holders++;
  } else {
    r.root_holders.push_back(holderName(s, root, pointed_at));
  }
}

// Names the roots pointing at `o`, which the super-root dominates; false
// when none does.
bool nameRootsPointingAt(const Snapshot& s, NodeId o, Retainer& r) {
  for (NodeId n : rootsPointingAt(s, o)) addRootHolder(r, kMaxRootHolders, s, n, o);
  return !r.root_holders.empty();
}

// Names the roots reaching `o` through objects.
void nameRootsReaching(const Snapshot& s, const CrossingEdges& crossing, NodeId o, Retainer& r) {
  const ReachingRoots reaching = rootsReaching(s, crossing, o);
  r.root_holders_through_objects = true;
  r.root_holders_complete = reaching.complete;
  for (const auto& [root, pointed_at] : reaching.roots) {
    addRootHolder(r, kMaxIndirectRootHolders, s, root, pointed_at);
  }
}

}  // namespace

std::string rootHoldersText(const Retainer& r) {
  if (r.root_holders.empty()) return {};
  std::string out = r.root_holders_through_objects ? "via " : "";
  for (size_t i = 0; i < r.root_holders.size(); i++) {
    if (i > 0) out += i + 1 == r.root_holders.size() && r.more_root_holders == 0 ? " and " : ", ";
    out += r.root_holders[i];
  }
  if (r.more_root_holders > 0 || !r.root_holders_complete) {
    out += !r.root_holders_complete ? " and at least " : " and ";
    out += std::to_string(r.more_root_holders) + " more";
  }
  // One root points at it, others reach it through objects.
  if (!r.root_holders_through_objects && r.root_holders.size() == 1 && r.more_root_holders == 0) {
    out += " and other roots";
  }
  return out;
}

Summary summarize(const Snapshot& s, size_t top_n) {
  return summarize(s, top_n, findGoroutineLeaks(s));
}

Summary summarize(const Snapshot& s, size_t top_n, const GoroutineLeaks& leaks) {
  const model::HeapModel& d = s.model;
  Summary sum;
  sum.file = d.name();
  sum.file_size = d.file().size();
  sum.format_version = std::string(d.format);
  sum.go_version = std::string(d.params.go_version);
  sum.arch = std::string(d.params.arch);
  sum.ptr_size = d.params.ptr_size;
  sum.big_endian = d.params.big_endian;
  sum.reachable_objects = s.reachable_objects;
  sum.reachable_bytes = s.reachable_bytes;
  sum.garbage_objects = s.garbage_objects;
  sum.garbage_bytes = s.garbage_bytes;
  sum.objects = s.reachable_objects + s.garbage_objects;
  sum.bytes = s.reachable_bytes + s.garbage_bytes;
  sum.metadata_objects = s.metadata_objects;
  sum.metadata_bytes = s.metadata_bytes;
  sum.pointers = s.heap.successors.begin[s.heap.objectCount()];
  sum.non_heap_pointers = s.heap.non_heap_refs;
  sum.goroutines = d.goroutines.size();
  sum.process_memory = processMemory(s);
  sum.leaked_goroutines = leaks.leaked_count;
  sum.leaked_retained = leaks.leaked_retained;
  sum.stack_frames = d.frames.size();
  sum.finalizers = d.finalizers.size();
  sum.roots = s.heap.nodeCount() - s.heap.objectCount();
  const model::MemStats& m = d.memstats;
  sum.have_memstats = m.present;
  sum.heap_alloc = m.heap_alloc;
  sum.heap_sys = m.heap_sys;
  sum.heap_inuse = m.heap_inuse;
  sum.heap_objects = m.heap_objects;
  sum.sys = m.sys;
  sum.stack_inuse = m.stack_inuse;
  sum.next_gc = m.next_gc;
  sum.num_gc = m.num_gc;
  sum.pause_total_ns = m.pause_total_ns;
  sum.memstats_known = m.known;
  sum.warnings = d.warnings;
  if (s.types) {
    sum.typed = true;
    if (s.exe) sum.type_source = s.exe->typeTableSource();
    sum.type_conflicts = s.types->conflicts;
    for (NodeId o = 0; o < s.heap.objectCount(); o++) {
      if (!s.reachable(o) || !s.types->typed(o)) continue;
      sum.typed_objects++;
      sum.typed_bytes += d.objects.size[o];
      if (s.types->inferred(o)) {
        sum.inferred_objects++;
        sum.inferred_bytes += d.objects.size[o];
      }
    }
  }
  if (!s.exe_path.empty()) {
    ExecutableSummary& e = sum.executable.emplace();
    e.path = s.exe_path;
    e.problem = s.exe_problem;
    if (s.exe) {
      const bin::Binary& b = s.exe->binary();
      e.used = true;
      e.go_version = b.goVersion();
      e.container = std::string(bin::containerFormatName(b.container().format));
      e.arch = b.container().arch;
      e.pclntab_layout = std::string(bin::pclntabLayoutName(b.pclntab().layout()));
      e.load_bias = s.exe->loadBias();
      e.frames_checked = s.exe->framesChecked();
      e.frames_matched = s.exe->framesMatched();
      e.has_symbols = b.symbols().size() > 0;
      e.debug_file = b.debugFilePath();
      e.debug_file_found_by = b.debugFileFoundBy();
      e.dwarf_problem = s.types_problem;
    }
  }

  std::vector<NodeId> entry;  // objects whose immediate dominator is a root
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    NodeId idom = s.dom.idom[o];
    if (idom != kNoNode && !s.heap.isObject(idom)) entry.push_back(o);
  }
  const size_t k = std::min(top_n, entry.size());
  std::partial_sort(entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(k), entry.end(),
                    [&](NodeId a, NodeId b) {
                      return s.retained[a] != s.retained[b] ? s.retained[a] > s.retained[b] : a < b;
                    });
  std::vector<size_t> held_through_objects;  // indexes into top_retainers
  for (size_t i = 0; i < k; i++) {
    NodeId o = entry[i];
    Retainer r;
    r.object = labelNode(s, o);
    r.retained = s.retained[o];
    r.shallow = s.shallowSize(o);
    r.held_by = labelNode(s, s.dom.idom[o]);
    if (auto slot = slotPointingTo(s, s.dom.idom[o], o)) {
      r.held_at_offset = slot->first;
      r.held_at_address = slot->second;
      r.held_by = labelHolder(s, s.dom.idom[o], slot->second);
    }
    if (s.dom.idom[o] == s.heap.superRoot() && !nameRootsPointingAt(s, o, r)) {
      held_through_objects.push_back(sum.top_retainers.size());
    }
    sum.top_retainers.push_back(std::move(r));
  }
  // The roots of the retainers no root points at, with one search for all.
  if (!held_through_objects.empty()) {
    std::vector<NodeId> targets;
    for (size_t i : held_through_objects) targets.push_back(sum.top_retainers[i].object.node);
    const CrossingEdges crossing = crossingEdgesInto(s, targets);
    for (size_t i : held_through_objects) {
      Retainer& r = sum.top_retainers[i];
      nameRootsReaching(s, crossing, r.object.node, r);
    }
  }
  return sum;
}

}  // namespace goheap::analysis
