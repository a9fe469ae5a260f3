#include "analysis/summary.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "analysis/goroutine_leaks.h"
#include "analysis/slots.h"
#include "util/mapped_file.h"

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

// The objects a search for the roots reaching a retainer may visit: enough
// for the retainers of real heaps, bounded for one every object reaches.
constexpr size_t kRootSearchBudget = size_t{1} << 20;

// The roots that reach `o` only through other objects, nearest first
// (breadth-first over referrers), each with the node it points at on the
// way; `complete` false when the search stopped at kRootSearchBudget.
struct ReachingRoots {
  std::vector<std::pair<NodeId, NodeId>> roots;  // (root, the node it points at)
  bool complete = true;
};
ReachingRoots rootsReaching(const Snapshot& s, NodeId o) {
  ReachingRoots out;
  const Csr& referrers = s.heap.predecessors();
  std::unordered_set<NodeId> seen{o};
  std::deque<NodeId> queue{o};
  while (!queue.empty()) {
    const NodeId n = queue.front();
    queue.pop_front();
    for (NodeId p : referrers.neighbors(n)) {
      if (p == s.heap.superRoot() || !seen.insert(p).second) continue;
      if (!s.heap.isObject(p)) {
        out.roots.emplace_back(p, n);
        continue;
      }
      if (seen.size() > kRootSearchBudget) {
        out.complete = false;
        return out;
      }
      queue.push_back(p);
    }
  }
  return out;
}

// Names the roots holding `o`, which the super-root dominates: the ones
// pointing at it directly, else the ones reaching it through objects.
void nameRootHolders(const Snapshot& s, NodeId o, Retainer& r) {
  for (NodeId n : rootsPointingAt(s, o)) {
    if (r.root_holders.size() >= kMaxRootHolders) {
      r.more_root_holders++;
      continue;
    }
    r.root_holders.push_back(holderName(s, n, o));
  }
  if (!r.root_holders.empty()) return;
  const ReachingRoots reaching = rootsReaching(s, o);
  r.root_holders_through_objects = true;
  r.root_holders_complete = reaching.complete;
  for (const auto& [root, pointed_at] : reaching.roots) {
    if (r.root_holders.size() >= kMaxIndirectRootHolders) {
      r.more_root_holders++;
      continue;
    }
    r.root_holders.push_back(holderName(s, root, pointed_at));
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
    if (s.dom.idom[o] == s.heap.superRoot()) nameRootHolders(s, o, r);
    sum.top_retainers.push_back(std::move(r));
  }
  return sum;
}

}  // namespace goheap::analysis
