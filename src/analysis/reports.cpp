#include "analysis/reports.h"

#include "analysis/goroutine_leaks.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "analysis/slots.h"
#include "goruntime/goroutine_status.h"
#include "graph/tree_walk.h"
#include "util/mapped_file.h"

namespace goheap::analysis {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The first slot of `from` that points into `to`.
std::optional<std::pair<uint64_t, uint64_t>> slotPointingTo(const Snapshot& s, NodeId from,
                                                            NodeId to) {
  std::optional<std::pair<uint64_t, uint64_t>> found;
  forEachNodeSlot(s, from, [&](uint64_t off, uint64_t value, uint64_t slot_addr) {
    if (!found && value != 0 && s.heap.addresses().find(value) == to) found = {off, slot_addr};
  });
  if (found || s.heap.isObject(from) || s.heap.rootKind(from) != graph::RootKind::StackFrame) {
    return found;
  }
  // A frame's edge may come from a stack object, whose words its field list
  // does not name (graph::BuildOptions::conservative_stacks): look at them all.
  const model::StackFrame& f = s.model.frames[s.heap.rootRecord(from)];
  const WordReader words = s.model.words();
  const uint8_t* base = s.model.bytes(f.contents).data();
  for (uint64_t off = 0; off + words.ptrSize() <= f.contents.size; off += words.ptrSize()) {
    uint64_t value = words.read(base + off);
    if (value != 0 && s.heap.addresses().find(value) == to) return std::make_pair(off, f.sp + off);
  }
  return found;
}

// "main.closeFile", or "fn pc 0x4a1b20" without the executable.
std::string functionName(const Snapshot& s, uint64_t pc) {
  if (s.exe) {
    if (const bin::Func* f = s.exe->functionAt(pc)) return std::string(f->name);
  }
  return "fn pc " + hex(pc);
}

std::string goroutineTitle(const model::Goroutine& g) {
  std::string state = g.wait_reason.empty() ? std::string(goruntime::gStatusDescription(g.status))
                                            : std::string(g.wait_reason);
  return "goroutine " + std::to_string(g.goid) + " (" + state + ")";
}

}  // namespace

NodeLabel labelNode(const Snapshot& s, NodeId n) {
  NodeLabel l;
  l.node = n;
  if (n == kNoNode) {
    l.kind = "none";
    return l;
  }
  if (s.heap.isObject(n)) {
    typing::NameSource source{};
    l.kind = "object";
    l.name = s.namer().name(n, &source);
    l.source = std::string(typing::nameSourceName(source));
    l.address = s.model.objects.addr[n];
    if (s.types && s.types->typed(n)) {
      l.type_evidence = std::string(typing::typeEvidenceName(
          s.types->evidence(n), s.exe && s.exe->typeTableSource() == "DWARF"));
    }
    return l;
  }
  const model::HeapModel& d = s.model;
  const uint32_t rec = s.heap.rootRecord(n);
  const graph::RootKind kind = s.heap.rootKind(n);
  l.kind = std::string(graph::rootKindName(kind));
  switch (kind) {
    case graph::RootKind::SuperRoot:
      // Objects it dominates directly are reached from more than one root.
      l.name = "several roots";
      break;
    case graph::RootKind::DataSegment:
      l.name = "data segment at " + hex(d.data.addr);
      break;
    case graph::RootKind::BssSegment:
      l.name = "bss segment at " + hex(d.bss.addr);
      break;
    case graph::RootKind::Goroutine:
      l.name = goroutineTitle(d.goroutines[rec]);
      break;
    case graph::RootKind::StackFrame: {
      const model::StackFrame& f = d.frames[rec];
      l.name = std::string(f.function);
      if (s.exe) {
        if (std::string where = s.exe->describeReturnAddress(f.pc); !where.empty()) l.name = where;
      }
      if (f.goroutine != UINT32_MAX) {
        l.name += " in goroutine " + std::to_string(d.goroutines[f.goroutine].goid);
      }
      l.name += " (depth " + std::to_string(f.depth) + ")";
      l.short_name = f.goroutine == UINT32_MAX
                         ? std::string(f.function)
                         : "goroutine " + std::to_string(d.goroutines[f.goroutine].goid) + " stack";
      break;
    }
    case graph::RootKind::Finalizer:
    case graph::RootKind::QueuedFinalizer:
      l.name = "finalizer of " + hex(d.finalizers[rec].obj) + " (" +
               functionName(s, d.finalizers[rec].fn_pc) + ")";
      break;
    case graph::RootKind::Defer: {
      const model::Defer& df = d.defers[rec];
      l.name = "defer " + functionName(s, df.fn_pc);
      std::string where = s.exe ? s.exe->describeReturnAddress(df.pc) : "";
      l.name += " in " + (where.empty() ? "pc " + hex(df.pc) : where);
      break;
    }
    case graph::RootKind::Panic:
      l.name = "panic value";
      break;
    case graph::RootKind::OtherRoot:
      l.name = std::string(d.other_roots[rec].description);
      break;
  }
  return l;
}

namespace {

// " → *T": what the word of a global without a symbol points at; empty
// when it points at no object.
std::string holderlessGlobalTarget(const Snapshot& s, graph::RootKind kind, uint64_t slot_address) {
  const model::Segment& seg = kind == graph::RootKind::DataSegment ? s.model.data : s.model.bss;
  const WordReader words = s.model.words();
  if (!seg.present || slot_address < seg.addr ||
      slot_address - seg.addr + words.ptrSize() > seg.contents.size) {
    return {};
  }
  const uint64_t value = words.read(s.model.bytes(seg.contents).data() + (slot_address - seg.addr));
  const std::optional<NodeId> o = objectAt(s, value);
  if (!o) return {};
  typing::NameSource source = typing::NameSource::Shape;
  const std::string target = s.namer().name(*o, &source);
  // A map, chan, func or string value is itself the pointer to its runtime
  // object; any other typed word points at a value of that type.
  const bool is_value = target.starts_with("map[") || target.starts_with("chan ") ||
                        target.starts_with("closure ") || target == "string";
  const bool pointer = source == typing::NameSource::Type && !is_value;
  const bool inside = value != s.model.objects.addr[*o] + (s.types ? s.types->dataOffset(*o) : 0);
  return std::string(" \u2192 ") + (inside ? "inside " : "") + (pointer && !inside ? "*" : "") +
         target;
}

}  // namespace

NodeLabel labelHolder(const Snapshot& s, NodeId n, uint64_t slot_address) {
  NodeLabel l = labelNode(s, n);
  if (s.heap.isObject(n) || n == kNoNode) return l;
  const graph::RootKind kind = s.heap.rootKind(n);
  if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) return l;
  std::optional<binding::GlobalSymbol> g;
  if (s.exe) g = s.exe->globalAt(slot_address);
  if (!g) {
    // No symbol (a stripped binary, or no executable): the global by its
    // address and what its word points at, "data 0x5881de0 → *scrape.Manager".
    l.short_name = (kind == graph::RootKind::DataSegment ? "data " : "bss ") + hex(slot_address);
    l.name = l.short_name + holderlessGlobalTarget(s, kind, slot_address);
    return l;
  }
  l.global = std::string(g->name);
  l.global_offset = g->offset;
  l.name = "global " + l.global;
  if (g->offset != 0) l.name += " +" + std::to_string(g->offset);
  l.short_name = l.name;
  return l;
}

std::string slotField(const Snapshot& s, NodeId n, uint64_t offset, uint64_t slot_address) {
  if (!s.types || n == kNoNode) return {};
  const bin::DebugInfo& dwarf = *s.exe->typeTable();
  if (s.heap.isObject(n)) {
    return typing::slotPath(s.model, s.heap, *s.types, dwarf, *s.exe, n, offset);
  }
  const std::optional<SlotOwner> owner = rootSlotOwner(s, n, slot_address);
  if (!owner) return {};
  return owner->name +
         typing::fieldPathAt(dwarf, owner->type, owner->offset, s.model.params.ptr_size);
}

// ---- summary ---------------------------------------------------------------

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

// ---- histogram -------------------------------------------------------------

namespace {

Histogram computeGroups(const Snapshot& s, typing::GroupKind by) {
  const typing::Grouping g = s.namer().group(by);
  const size_t groups = g.names.size();
  std::vector<HistogramRow> rows(groups);
  for (size_t i = 0; i < groups; i++) {
    rows[i].name = g.names[i];
    rows[i].source = std::string(typing::nameSourceName(g.sources[i]));
  }
  Histogram h;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!s.reachable(o)) continue;
    HistogramRow& r = rows[g.group_of[o]];
    r.count++;
    if (s.types && s.types->inferred(o)) r.inferred_count++;
    r.shallow += s.model.objects.size[o];
    h.total_count++;
    h.total_shallow += s.model.objects.size[o];
  }
  // A member's retained size counts unless another member of its group
  // dominates it: walk the dominator tree keeping, per group, how many
  // members are on the current path.
  std::vector<uint32_t> on_path(groups, 0);
  walkTreeDepthFirst(
      s.dominatorChildren(), s.heap.superRoot(),
      [&](NodeId c) {
        if (!s.heap.isObject(c)) return;
        const uint32_t grp = g.group_of[c];
        if (on_path[grp] == 0) rows[grp].retained += s.retained[c];
        on_path[grp]++;
      },
      [&](NodeId n) {
        if (s.heap.isObject(n)) on_path[g.group_of[n]]--;
      });

  rows.erase(
      std::remove_if(rows.begin(), rows.end(), [](const HistogramRow& r) { return r.count == 0; }),
      rows.end());
  h.groups = rows.size();
  h.rows = std::move(rows);
  return h;
}

}  // namespace

Histogram groupTotals(const Snapshot& s, typing::GroupKind by) {
  return computeGroups(s, by);
}

Histogram histogram(const Snapshot& s, typing::GroupKind by, SortKey sort, size_t limit) {
  return histogram(computeGroups(s, by), sort, limit);
}

Histogram histogram(const Histogram& all, SortKey sort, size_t limit) {
  Histogram h = all;
  std::vector<HistogramRow>& rows = h.rows;
  auto key = [sort](const HistogramRow& r) {
    switch (sort) {
      case SortKey::Shallow:
        return r.shallow;
      case SortKey::Count:
        return r.count;
      case SortKey::Retained:
        break;
    }
    return r.retained;
  };
  std::sort(rows.begin(), rows.end(), [&](const HistogramRow& a, const HistogramRow& b) {
    if (key(a) != key(b)) return key(a) > key(b);
    return a.name < b.name;
  });
  if (rows.size() > limit) rows.resize(limit);
  return h;
}

// ---- dominator tree --------------------------------------------------------

std::vector<DomRow> dominatorRows(const Snapshot& s, uint32_t max_depth, uint64_t min_bytes,
                                  uint32_t max_children, NodeId start) {
  const Csr& children = s.dominatorChildren();
  if (start == kNoNode) start = s.heap.superRoot();
  std::vector<DomRow> rows;
  struct Frame {
    NodeId node;
    uint32_t depth;
  };
  std::vector<Frame> stack{{start, 0}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    DomRow row;
    row.node = labelNode(s, f.node);
    row.depth = f.depth;
    row.retained = s.retained[f.node];
    row.shallow = s.shallowSize(f.node);
    auto kids = children.neighbors(f.node);
    row.children = kids.size();
    // Children come sorted by retained size, biggest first.
    size_t shown = 0;
    if (f.depth < max_depth) {
      while (shown < kids.size() && shown < max_children && s.retained[kids[shown]] >= min_bytes) {
        shown++;
      }
      for (size_t i = shown; i-- > 0;) stack.push_back({kids[i], f.depth + 1});
    }
    row.hidden_children = kids.size() - shown;
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---- paths -----------------------------------------------------------------

std::vector<Path> pathsToRoots(const Snapshot& s, NodeId target, size_t limit) {
  const graph::Heap& h = s.heap;
  const NodeId super = h.superRoot();
  // Breadth-first over referrers from the target; `toward[n]` is the next
  // node on n's shortest path to the target. A path ends at a root the
  // super-root points at directly.
  std::vector<NodeId> toward(h.nodeCount(), kNoNode);
  std::deque<NodeId> queue{target};
  toward[target] = target;
  std::vector<NodeId> ends;
  while (!queue.empty() && ends.size() < limit) {
    NodeId n = queue.front();
    queue.pop_front();
    bool top_level_root = false;
    for (NodeId p : h.predecessors().neighbors(n)) {
      if (p == super) {
        top_level_root = true;
        continue;
      }
      if (toward[p] != kNoNode) continue;
      toward[p] = n;
      queue.push_back(p);
    }
    if (top_level_root) ends.push_back(n);
  }
  std::vector<Path> paths;
  for (NodeId end : ends) {
    Path path;
    for (NodeId n = end;; n = toward[n]) {
      PathStep step;
      step.node = labelNode(s, n);
      if (n != target) {
        if (auto slot = slotPointingTo(s, n, toward[n])) {
          step.offset = slot->first;
          step.slot_address = slot->second;
          step.node = labelHolder(s, n, slot->second);
          step.field = slotField(s, n, slot->first, slot->second);
        }
      }
      path.steps.push_back(std::move(step));
      if (n == target) break;
    }
    paths.push_back(std::move(path));
  }
  return paths;
}

// ---- one object ------------------------------------------------------------

std::optional<NodeId> objectAt(const Snapshot& s, uint64_t address) {
  NodeId n = s.heap.addresses().find(address);
  if (n == kNoNode) return std::nullopt;
  return n;
}

ObjectInfo objectInfo(const Snapshot& s, NodeId o, size_t max_referrers, size_t max_fields) {
  ObjectInfo info;
  info.label = labelNode(s, o);
  info.size = s.model.objects.size[o];
  info.reachable = s.reachable(o);
  info.runtime_metadata = s.isRuntimeMetadata(o);
  info.retained = info.reachable ? s.retained[o] : 0;
  info.idom = labelNode(s, s.dom.idom[o]);
  info.shape = s.namer().shapeName(o);
  forEachNodeSlot(s, o, [&](uint64_t off, uint64_t value, uint64_t slot_addr) {
    if (value == 0) return;
    Reference r;
    r.offset = off;
    r.slot_address = slot_addr;
    r.value = value;
    r.field = slotField(s, o, off, slot_addr);
    NodeId t = s.heap.addresses().find(value);
    if (t == kNoNode) {
      r.target.kind = "non-heap";
    } else {
      r.target = labelNode(s, t);
    }
    info.pointers.push_back(std::move(r));
  });
  if (s.types && s.types->typed(o)) {
    info.type = s.namer().typeName(o);
    info.fields =
        typing::decodeFields(s.model, s.heap, *s.types, *s.exe->typeTable(), *s.exe, o, max_fields);
  }
  auto preds = s.heap.predecessors().neighbors(o);
  info.referrer_count = preds.size();
  for (NodeId p : preds) {
    if (info.referrers.size() >= max_referrers) break;
    Reference r;
    r.target = labelNode(s, p);
    if (auto slot = slotPointingTo(s, p, o)) {
      r.offset = slot->first;
      r.slot_address = slot->second;
      r.target = labelHolder(s, p, slot->second);
      r.field = slotField(s, p, slot->first, slot->second);
    }
    info.referrers.push_back(std::move(r));
  }
  int64_t b = s.namer().bucketOf(o);
  if (b >= 0) {
    const model::ProfileBucket& bucket = s.model.buckets[static_cast<size_t>(b)];
    // Since Go 1.26 the stack starts in the allocator (runtime.mallocgc,
    // runtime.newobject); the stack shown starts where the program
    // allocated, as the site's name does, unless it is all runtime.
    uint32_t first = 0;
    while (first < bucket.frame_count &&
           typing::isRuntimeFunction(s.model.profile_frames[bucket.first_frame + first].function)) {
      first++;
    }
    if (first == bucket.frame_count) first = 0;
    for (uint32_t i = first; i < bucket.frame_count; i++) {
      const model::ProfileFrame& pf = s.model.profile_frames[bucket.first_frame + i];
      AllocFrame f{pf.function, pf.file, pf.line, 0};
      if (s.exe) {
        f.function = s.exe->inlinedName(pf.function, pf.file, static_cast<int64_t>(pf.line));
        f.inlined = f.function != pf.function;
        if (const bin::Func* fn = s.exe->functionNamed(f.function)) {
          f.function_start_line = s.exe->binary().startLine(*fn);
        }
      }
      info.alloc_stack.push_back(f);
    }
  }
  return info;
}

// ---- goroutines ------------------------------------------------------------

std::vector<GoroutineInfo> goroutines(const Snapshot& s) {
  return goroutines(s, findGoroutineLeaks(s));
}

std::vector<GoroutineInfo> goroutines(const Snapshot& s, const GoroutineLeaks& leaks) {
  const model::HeapModel& d = s.model;
  std::vector<GoroutineInfo> out;
  out.reserve(d.goroutines.size());
  for (uint32_t i = 0; i < d.goroutines.size(); i++) {
    const model::Goroutine& g = d.goroutines[i];
    GoroutineInfo info;
    const bool is_main = g.goid == 1;  // the runtime names no creator for it
    info.record = i;
    info.id = g.goid;
    info.status = g.status;
    info.status_name = std::string(goruntime::gStatusDescription(g.status));
    info.wait_reason = std::string(g.wait_reason);
    info.wait_since = g.wait_since;
    info.is_system = g.is_system;
    info.leaked = !leaks.leaked.empty() && leaks.leaked[i] != 0;
    info.not_leaked_because = std::string(leaks.notLeakedBecause(i));
    info.g_addr = g.addr;
    info.retained = s.retained[s.heap.goroutineNode(i)];
    for (uint32_t f = 0; f < g.frame_count; f++) {
      const uint32_t fi = g.first_frame + f;
      const model::StackFrame& fr = d.frames[fi];
      FrameInfo frame;
      frame.function = std::string(fr.function);
      frame.pc = fr.pc;
      frame.depth = fr.depth;
      frame.frame_size = fr.contents.size;
      frame.retained = s.retained[s.heap.frameNode(fi)];
      if (s.exe) {
        if (auto fs = s.exe->frames(fr.pc); fs && !fs->empty()) {
          frame.file = std::string(fs->back().file);
          frame.line = fs->back().line;
          for (size_t k = 0; k + 1 < fs->size(); k++) {
            const bin::SourceFrame& in = (*fs)[k];
            frame.inlined.push_back({std::string(in.function), std::string(in.file), in.line});
          }
        }
      }
      info.frames.push_back(std::move(frame));
    }
    // With the executable, a function inlined into its go statement's
    // wrapper is the one blocked, not the wrapper.
    info.blocked_in = std::string(blockingFunction(d, g));
    for (const FrameInfo& f : info.frames) {
      auto found = std::find_if(f.inlined.begin(), f.inlined.end(), [](const SourceLine& in) {
        return outsideRuntimeAndSync(in.function);
      });
      if (found != f.inlined.end()) {
        info.blocked_in = found->function;
        break;
      }
      if (outsideRuntimeAndSync(f.function)) break;
    }
    info.created_pc = g.gopc;
    if (s.exe && g.gopc != 0 && !is_main) {
      // As the runtime prints "created by": the physical function, and the
      // innermost source position of the go statement.
      if (auto fs = s.exe->frames(g.gopc); fs && !fs->empty()) {
        info.created_by = SourceLine{std::string(fs->back().function),
                                     std::string(fs->front().file), fs->front().line};
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace goheap::analysis
