#include "analysis/diff.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "analysis/paths.h"
#include "analysis/slots.h"

namespace goheap::analysis {

namespace {

// For each group of `from`, the group of `to` with the same name, or
// UINT32_MAX.
std::vector<uint32_t> matchGroups(const typing::Grouping& from, const typing::Grouping& to) {
  std::unordered_map<std::string_view, uint32_t> by_name;
  by_name.reserve(to.names.size());
  for (size_t i = 0; i < to.names.size(); i++) by_name.emplace(to.names[i], i);
  std::vector<uint32_t> out(from.names.size(), UINT32_MAX);
  for (size_t i = 0; i < from.names.size(); i++) {
    if (auto it = by_name.find(from.names[i]); it != by_name.end()) out[i] = it->second;
  }
  return out;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<DiffGroupRow> diffGroups(const Snapshot& old_snap, const Snapshot& new_snap,
                                     typing::GroupKind by, SortKey sort) {
  return diffGroups(groupTotals(old_snap, by), groupTotals(new_snap, by), sort);
}

std::vector<DiffGroupRow> diffGroups(const Histogram& before_totals, const Histogram& after_totals,
                                     SortKey sort) {
  const Histogram* before = &before_totals;
  const Histogram* after = &after_totals;
  std::vector<DiffGroupRow> rows;
  rows.reserve(after->rows.size() + before->rows.size());
  // The names stay put in the cached histograms while this runs.
  std::unordered_map<std::string_view, size_t> index;
  for (const HistogramRow& r : after->rows) {
    index.emplace(r.name, rows.size());
    rows.push_back(DiffGroupRow{.name = r.name,
                                .source = r.source,
                                .new_count = r.count,
                                .new_shallow = r.shallow,
                                .new_retained = r.retained});
  }
  for (const HistogramRow& r : before->rows) {
    auto it = index.find(r.name);
    if (it == index.end()) {
      DiffGroupRow d;
      d.name = r.name;
      d.source = r.source;
      rows.push_back(std::move(d));
    }
    DiffGroupRow& d = it == index.end() ? rows.back() : rows[it->second];
    d.old_count = r.count;
    d.old_shallow = r.shallow;
    d.old_retained = r.retained;
  }
  auto key = [sort](const DiffGroupRow& r) {
    switch (sort) {
      case SortKey::Shallow:
        return r.shallowDelta();
      case SortKey::Count:
        return r.countDelta();
      case SortKey::Retained:
        break;
    }
    return r.retainedDelta();
  };
  std::sort(rows.begin(), rows.end(), [&](const DiffGroupRow& a, const DiffGroupRow& b) {
    if (key(a) != key(b)) return key(a) > key(b);
    return a.name < b.name;
  });
  return rows;
}

// Go never moves heap objects, so an object of NEW that OLD had is at the
// same address with the same size. That alone is not enough: a slot freed
// after OLD is reused by the next allocation of its size class. What tells
// a reused slot apart must be fixed when the object is allocated, not read
// from its surroundings, or an old object would look new because something
// else changed:
//   - the allocation site, or the shape (slot size and pointer offsets,
//     from the object's own type bitmap) when the dump has no sample for it:
//     both are set once per allocation (GroupKind::Site). The interface
//     names of GroupKind::Name are not: they depend on who points at the
//     object, which changes between dumps.
//   - the DWARF type, but only when both dumps type the object: typing
//     follows typed pointers from the roots, so one dump may leave an
//     object untyped that the other types.
// Only reachable objects of OLD count: OLD's garbage was freed, and its
// slots are exactly the ones NEW reuses.
std::vector<uint8_t> newObjects(const Snapshot& old_snap, const Snapshot& new_snap) {
  const typing::Grouping old_sites = old_snap.namer().group(typing::GroupKind::Site);
  const typing::Grouping new_sites = new_snap.namer().group(typing::GroupKind::Site);
  const std::vector<uint32_t> site_match = matchGroups(new_sites, old_sites);
  const bool typed = old_snap.types && new_snap.types;
  typing::Grouping old_types, new_types;
  std::vector<uint32_t> type_match;
  if (typed) {
    old_types = old_snap.namer().group(typing::GroupKind::Type);
    new_types = new_snap.namer().group(typing::GroupKind::Type);
    type_match = matchGroups(new_types, old_types);
  }
  const uint32_t n = new_snap.heap.objectCount();
  std::vector<uint8_t> is_new(n, 0);
  for (NodeId o = 0; o < n; o++) {
    if (!new_snap.reachable(o)) continue;
    const uint64_t addr = new_snap.address(o);
    const NodeId before = old_snap.heap.addresses().find(addr);
    const bool same = before != kNoNode && old_snap.heap.isObject(before) &&
                      old_snap.reachable(before) && old_snap.address(before) == addr &&
                      old_snap.shallowSize(before) == new_snap.shallowSize(o) &&
                      site_match[new_sites.group_of[o]] == old_sites.group_of[before] &&
                      (!typed || !new_snap.types->typed(o) || !old_snap.types->typed(before) ||
                       type_match[new_types.group_of[o]] == old_types.group_of[before]);
    is_new[o] = same ? 0 : 1;
  }
  return is_new;
}

NewSince newSince(const Snapshot& old_snap, const Snapshot& new_snap, typing::GroupKind by) {
  const Snapshot& s = new_snap;
  const graph::Heap& h = s.heap;
  const std::vector<uint8_t> is_new = newObjects(old_snap, new_snap);
  const typing::Grouping groups = s.namer().group(by);
  auto fresh = [&](NodeId node) { return h.isObject(node) && is_new[node] != 0; };

  // A new object a data or bss segment holds directly: the word pointing at
  // it names the global variable, which says more than "bss segment". One
  // pass over each segment's words.
  std::unordered_map<NodeId, uint64_t> global_slot;  // new object -> slot address
  for (NodeId r = h.objectCount(); r < h.nodeCount(); r++) {
    const graph::RootKind kind = h.rootKind(r);
    if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) continue;
    forEachNodeSlot(s, r, [&](uint64_t, uint64_t value, uint64_t slot_address) {
      if (value == 0) return;
      const NodeId t = h.addresses().find(value);
      if (t != kNoNode && fresh(t) && s.dom.idom[t] == r) global_slot.try_emplace(t, slot_address);
    });
  }

  // A goroutine root's function: its outermost frame's, the one it started
  // in (runtime.goexit, below every goroutine's first frame, says nothing).
  std::vector<std::string_view> goroutine_function(s.model.goroutines.size());
  std::vector<uint64_t> goroutine_depth(s.model.goroutines.size(), 0);
  for (const model::StackFrame& f : s.model.frames) {
    if (f.goroutine == UINT32_MAX || f.function == "runtime.goexit") continue;
    if (goroutine_function[f.goroutine].empty() || f.depth >= goroutine_depth[f.goroutine]) {
      goroutine_function[f.goroutine] = f.function;
      goroutine_depth[f.goroutine] = f.depth;
    }
  }

  // Holder classes: one per holder node, except that frames (and
  // goroutines) of the same function share one, and a segment's objects get
  // one per global variable.
  struct HolderClass {
    NodeLabel label;
    uint64_t holders = 0;
    std::string function;
  };
  std::vector<HolderClass> classes;
  std::unordered_map<NodeId, uint32_t> class_of_holder;  // holder node -> class
  std::unordered_map<NodeId, uint32_t> class_of_top;     // segment-held new object -> class
  std::unordered_map<std::string, uint32_t> class_of_key;
  auto keyed_class = [&](const std::string& key, const auto& make) {
    auto [it, inserted] = class_of_key.try_emplace(key, 0);
    if (inserted) {
      it->second = static_cast<uint32_t>(classes.size());
      classes.push_back(make());
    }
    return it->second;
  };
  auto holder_class = [&](NodeId holder) -> uint32_t {
    if (auto it = class_of_holder.find(holder); it != class_of_holder.end()) return it->second;
    std::string key = "node " + std::to_string(holder);
    std::string function;
    if (!h.isObject(holder)) {
      const uint32_t rec = h.rootRecord(holder);
      if (h.rootKind(holder) == graph::RootKind::StackFrame) {
        function = std::string(s.model.frames[rec].function);
        key = "frame " + function;
      } else if (h.rootKind(holder) == graph::RootKind::Goroutine &&
                 !goroutine_function[rec].empty()) {
        function = std::string(goroutine_function[rec]);
        key = "goroutine " + function;
      }
    }
    const uint32_t c = keyed_class(key, [&] {
      return HolderClass{labelNode(s, holder), 0, function};
    });
    classes[c].holders++;
    class_of_holder.emplace(holder, c);
    return c;
  };
  // `top`: the new object nearest the holder on the way down to the object.
  auto class_for = [&](NodeId holder, NodeId top) -> uint32_t {
    auto g = global_slot.find(top);
    if (g == global_slot.end()) return holder_class(holder);
    if (auto it = class_of_top.find(top); it != class_of_top.end()) return it->second;
    uint32_t c = UINT32_MAX;
    if (s.exe) {
      NodeLabel label = labelHolder(s, holder, g->second);
      if (!label.global.empty()) {
        c = keyed_class("global " + label.global, [&] { return HolderClass{label, 1, {}}; });
      }
    }
    if (c == UINT32_MAX) c = holder_class(holder);
    class_of_top.emplace(top, c);
    return c;
  };

  NewSince out;
  std::unordered_map<uint64_t, uint32_t> row_of;  // class << 32 | group -> row
  std::vector<uint32_t> row_class;
  // Pre-order over the dominator tree: a new object's holder is its
  // parent's holder when the parent is new, else the parent itself.
  std::vector<NodeId> holder(h.nodeCount(), kNoNode), top(h.nodeCount(), kNoNode);
  const Csr& children = s.dominatorChildren();
  std::vector<NodeId> stack{h.superRoot()};
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (fresh(n)) {
      const NodeId parent = s.dom.idom[n];
      holder[n] = fresh(parent) ? holder[parent] : parent;
      top[n] = fresh(parent) ? top[parent] : n;
      const uint32_t c = class_for(holder[n], top[n]);
      const uint64_t key = static_cast<uint64_t>(c) << 32 | groups.group_of[n];
      auto [it, inserted] = row_of.try_emplace(key, static_cast<uint32_t>(out.rows.size()));
      if (inserted) {
        NewObjectsRow row;
        row.group = groups.names[groups.group_of[n]];
        row.source = std::string(typing::nameSourceName(groups.sources[groups.group_of[n]]));
        out.rows.push_back(std::move(row));
        row_class.push_back(c);
      }
      NewObjectsRow& row = out.rows[it->second];
      row.count++;
      row.bytes += s.shallowSize(n);
      row.members.push_back(n);
      out.count++;
      out.bytes += s.shallowSize(n);
    }
    const auto kids = children.neighbors(n);
    for (size_t i = kids.size(); i-- > 0;) stack.push_back(kids[i]);
  }
  for (size_t i = 0; i < out.rows.size(); i++) {
    const HolderClass& c = classes[row_class[i]];
    out.rows[i].holder = c.label;
    out.rows[i].holders = std::max<uint64_t>(c.holders, 1);
    out.rows[i].function = c.function;
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const NewObjectsRow& a, const NewObjectsRow& b) {
                     if (a.bytes != b.bytes) return a.bytes > b.bytes;
                     return a.count > b.count;
                   });
  return out;
}

std::optional<NodeLabel> reachedFrom(const Snapshot& s, NodeId holder) {
  if (holder == kNoNode || !s.heap.isObject(holder)) return std::nullopt;
  const std::vector<Path> paths = pathsToRoots(s, holder, 1);
  if (paths.empty() || paths[0].steps.size() < 2) return std::nullopt;
  const std::vector<PathStep>& steps = paths[0].steps;
  // A goroutine reaches objects through its frames: the frame says more
  // (the function and line holding the reference).
  if (steps.size() > 2 && steps[0].node.kind == "goroutine" && steps[1].node.kind != "object") {
    return steps[1].node;
  }
  return steps[0].node;
}

std::vector<std::string> diffWarnings(const Snapshot& old_snap, const Snapshot& new_snap) {
  std::vector<std::string> out;
  const model::HeapModel& a = old_snap.model;
  const model::HeapModel& b = new_snap.model;
  std::vector<std::string> differences;
  if (a.params.ptr_size != b.params.ptr_size) {
    differences.push_back("pointer size " + std::to_string(a.params.ptr_size) + " vs " +
                          std::to_string(b.params.ptr_size));
  }
  if (a.params.arch != b.params.arch) {
    differences.push_back("architecture " + std::string(a.params.arch) + " vs " +
                          std::string(b.params.arch));
  }
  if (!a.params.go_version.empty() && !b.params.go_version.empty() &&
      a.params.go_version != b.params.go_version) {
    differences.push_back("Go " + std::string(a.params.go_version) + " vs " +
                          std::string(b.params.go_version));
  }
  auto segment = [&](const char* name, const model::Segment& x, const model::Segment& y) {
    if (x.present && y.present && (x.addr != y.addr || x.contents.size != y.contents.size)) {
      differences.push_back(std::string(name) + " segment " + std::to_string(x.contents.size) +
                            " bytes at " + hex(x.addr) + " vs " + std::to_string(y.contents.size) +
                            " bytes at " + hex(y.addr));
    }
  };
  segment("data", a.data, b.data);
  segment("bss", a.bss, b.bss);
  // The same function starts at the same PC in the same executable.
  std::unordered_map<std::string_view, uint64_t> entry;
  for (const model::StackFrame& f : a.frames) entry.emplace(f.function, f.entry_pc);
  uint64_t moved = 0;
  std::string example;
  std::unordered_map<std::string_view, bool> seen;
  for (const model::StackFrame& f : b.frames) {
    auto it = entry.find(f.function);
    if (it == entry.end() || it->second == f.entry_pc || !seen.emplace(f.function, true).second) {
      continue;
    }
    if (moved++ == 0) {
      example = std::string(f.function) + " at " + hex(it->second) + " vs " + hex(f.entry_pc);
    }
  }
  if (moved > 0) {
    differences.push_back(std::to_string(moved) + " function(s) start elsewhere (" + example + ")");
  }
  if (!differences.empty()) {
    std::string text = "OLD and NEW look like dumps of different executables: ";
    for (size_t i = 0; i < differences.size(); i++) text += (i ? "; " : "") + differences[i];
    out.push_back(text + ". Objects are matched by address, so the comparison means little.");
  }
  const bool old_exe = old_snap.exe != nullptr, new_exe = new_snap.exe != nullptr;
  if (!old_snap.exe_path.empty() && old_exe != new_exe) {
    const Snapshot& bad = old_exe ? new_snap : old_snap;
    out.push_back(std::string("the executable matches ") + (old_exe ? "OLD" : "NEW") + " but not " +
                  (old_exe ? "NEW" : "OLD") + " (" + bad.exe_problem +
                  "): the two dumps are named and typed differently");
  } else if (!old_snap.exe_path.empty() && !old_exe && !new_exe) {
    out.push_back("the executable matches neither dump (" + new_snap.exe_problem +
                  "); groups are allocation sites and shapes");
  }
  return out;
}

}  // namespace goheap::analysis
