#include "analysis/suspects.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/histogram.h"
#include "graph/tree_walk.h"
#include "util/format.h"
#include "util/large_vector.h"

namespace goheap::analysis {

bool holdsPercent(uint64_t part, uint64_t whole, uint32_t percent) {
  // 128 bits: byte counts times 100 may not fit in 64.
  __extension__ using Wide = unsigned __int128;
  return static_cast<Wide>(part) * 100 >= static_cast<Wide>(whole) * percent;
}

namespace {

bool isMember(std::span<const uint32_t> group_of, NodeId n, uint32_t group) {
  return n < group_of.size() && group_of[n] == group;
}

bool isObject(std::span<const uint32_t> group_of, NodeId n) {
  return n < group_of.size();
}

}  // namespace

NodeId objectAccumulationPoint(const DomArrays& t, NodeId start, uint32_t percent) {
  NodeId at = start;
  for (;;) {
    NodeId best = kNoNode;
    for (NodeId c : t.children->neighbors(at)) {
      if (best == kNoNode || t.retained[c] > t.retained[best]) best = c;
    }
    if (best == kNoNode || !holdsPercent(t.retained[best], t.retained[at], percent)) return at;
    at = best;
  }
}

std::vector<GroupTotals> groupTotals(const DomArrays& t, std::span<const uint32_t> group_of,
                                     size_t group_count) {
  std::vector<GroupTotals> out(group_count);
  // Depth-first over the dominator tree, counting per group how many members
  // are on the current path: a member is a top member when none is.
  std::vector<uint32_t> on_path(group_count, 0);
  auto grouped = [&](NodeId n) { return isObject(group_of, n) && group_of[n] != kNoGroup; };
  walkTreeDepthFirst(
      *t.children, t.root,
      [&](NodeId c) {
        if (!grouped(c)) return;
        const uint32_t g = group_of[c];
        GroupTotals& tot = out[g];
        tot.count++;
        if (on_path[g] == 0) {
          tot.retained += t.retained[c];
          tot.top_members++;
        }
        if (tot.biggest == kNoNode || t.retained[c] > tot.biggest_retained) {
          tot.biggest = c;
          tot.biggest_retained = t.retained[c];
        }
        on_path[g]++;
      },
      [&](NodeId n) {
        if (grouped(n)) on_path[group_of[n]]--;
      });
  return out;
}

GroupPoint groupAccumulationPoint(const DomArrays& t, std::span<const uint32_t> group_of,
                                  uint32_t group, uint32_t percent,
                                  std::vector<uint64_t>& scratch) {
  // Bottom-up: scratch[n] = the group's bytes in n's children's subtrees,
  // where a member counts its whole retained size and stops the descent.
  scratch.assign(t.idom.size(), 0);
  for (size_t i = t.preorder.size(); i-- > 1;) {
    const NodeId n = t.preorder[i];
    scratch[t.idom[n]] += isMember(group_of, n, group) ? t.retained[n] : scratch[n];
  }
  GroupPoint p{t.root, scratch[t.root], isMember(group_of, t.root, group)};
  if (p.inside_member) p.bytes = t.retained[t.root];
  const uint64_t total = p.bytes;
  if (total == 0) return p;
  // Down the one chain of nodes that hold the share.
  for (bool moved = true; moved;) {
    moved = false;
    for (NodeId c : t.children->neighbors(p.node)) {
      const bool inside = p.inside_member || isMember(group_of, c, group);
      const uint64_t bytes = inside ? t.retained[c] : scratch[c];
      if (holdsPercent(bytes, total, percent)) {
        p = {c, bytes, inside};
        moved = true;
        break;
      }
    }
  }
  return p;
}

std::vector<SuspectCore> findSuspectCores(const DomArrays& t, std::span<const uint32_t> group_of,
                                          const std::vector<GroupTotals>& totals,
                                          uint64_t threshold_bytes, uint32_t percent) {
  std::vector<SuspectCore> out;
  for (size_t i = 1; i < t.preorder.size(); i++) {
    const NodeId n = t.preorder[i];
    if (!isObject(group_of, n) || t.retained[n] < threshold_bytes) continue;
    if (isObject(group_of, t.idom[n])) continue;  // an object above retains even more
    SuspectCore c;
    c.object = n;
    c.retained = t.retained[n];
    const NodeId at = objectAccumulationPoint(t, n, percent);
    c.point = {at, t.retained[at], true};
    out.push_back(c);
  }
  std::vector<uint64_t> scratch;
  for (uint32_t g = 0; g < totals.size(); g++) {
    const GroupTotals& tot = totals[g];
    if (tot.retained < threshold_bytes || tot.biggest_retained >= threshold_bytes) continue;
    SuspectCore c;
    c.is_group = true;
    c.group = g;
    c.object = tot.biggest;
    c.retained = tot.retained;
    c.point = groupAccumulationPoint(t, group_of, g, percent, scratch);
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const SuspectCore& a, const SuspectCore& b) {
    if (a.retained != b.retained) return a.retained > b.retained;
    if (a.is_group != b.is_group) return !a.is_group;
    return a.is_group ? a.group < b.group : a.object < b.object;
  });
  // A group piling up inside a single object's subtree is what that object
  // accumulates: owner[n] is the single suspect at or above n.
  const bool any_single = std::any_of(out.begin(), out.end(), [](auto& c) { return !c.is_group; });
  const bool any_group = std::any_of(out.begin(), out.end(), [](auto& c) { return c.is_group; });
  if (any_single && any_group) {
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> owner(t.idom.size(), kNone);
    for (size_t i = 0; i < out.size(); i++) {
      if (!out[i].is_group) owner[out[i].object] = static_cast<uint32_t>(i);
    }
    for (size_t i = 1; i < t.preorder.size(); i++) {
      const NodeId n = t.preorder[i];
      if (owner[n] == kNone) owner[n] = owner[t.idom[n]];
    }
    for (SuspectCore& c : out) {
      if (c.is_group && owner[c.point.node] != kNone) c.merged_into = owner[c.point.node];
    }
  }
  return out;
}

// ---- the report --------------------------------------------------------------

namespace {

// The nodes under `root`, root first and each after its dominator: the
// dominator tree breadth first. (The snapshot keeps no preorder.)
std::vector<NodeId> topDownOrder(const Csr& children, NodeId root) {
  std::vector<NodeId> order;
  reserveLarge(order, children.targets.size() + 1);
  order.push_back(root);
  for (size_t i = 0; i < order.size(); i++) {
    for (NodeId c : children.neighbors(order[i])) order.push_back(c);
  }
  return order;
}

// Who holds a group's top members, in words: the root under which each hangs.
std::string holderKind(const Snapshot& s, NodeId entry) {
  if (entry == s.heap.superRoot()) return "several roots";
  switch (s.heap.rootKind(entry)) {
    case graph::RootKind::StackFrame:
      return "stack frames of " + std::string(s.model.frames[s.heap.rootRecord(entry)].function);
    case graph::RootKind::Goroutine:
      return "goroutines";
    case graph::RootKind::DataSegment:
    case graph::RootKind::BssSegment:
      return "global variables";
    case graph::RootKind::Finalizer:
    case graph::RootKind::QueuedFinalizer:
      return "finalizers";
    case graph::RootKind::Defer:
      return "defers";
    case graph::RootKind::Panic:
      return "panics";
    case graph::RootKind::OtherRoot:
    case graph::RootKind::SuperRoot:
      break;
  }
  return "other roots";
}

std::vector<HolderCount> groupHolders(const Snapshot& s, const DomArrays& t,
                                      std::span<const uint32_t> group_of, uint32_t group) {
  // Top-down: below[n] says a member is at or above n; entry[n] is the root
  // (or the super-root) directly above n's chain of objects.
  const size_t n_nodes = t.idom.size();
  std::vector<uint8_t> below(n_nodes, 0);
  std::vector<NodeId> entry(n_nodes, kNoNode);
  std::unordered_map<NodeId, uint64_t> per_entry;
  for (size_t i = 1; i < t.preorder.size(); i++) {
    const NodeId n = t.preorder[i];
    const NodeId p = t.idom[n];
    entry[n] = isObject(group_of, p) ? entry[p] : p;
    const bool member = isMember(group_of, n, group);
    if (member && below[p] == 0) per_entry[entry[n]]++;
    below[n] = static_cast<uint8_t>(member || below[p] != 0);
  }
  std::map<std::string, uint64_t> by_kind;
  for (const auto& [e, count] : per_entry) by_kind[holderKind(s, e)] += count;
  std::vector<HolderCount> out;
  for (auto& [kind, count] : by_kind) out.push_back({kind, count});
  std::stable_sort(out.begin(), out.end(), [](const HolderCount& a, const HolderCount& b) {
    return a.members > b.members;
  });
  if (out.size() > 5) out.resize(5);
  return out;
}

void accumulate(const DomArrays& t, const typing::Grouping& g, const SuspectCore& c,
                size_t max_types, Suspect& out) {
  const std::span<const uint32_t> group_of = g.group_of;
  std::vector<std::pair<uint64_t, uint64_t>> per_group(g.names.size());  // count, bytes
  struct Item {
    NodeId node;
    bool inside;
  };
  std::vector<Item> stack{{c.point.node, c.point.inside_member}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    if (it.inside && isObject(group_of, it.node)) {
      // Shallow size: retained minus the children's retained.
      uint64_t shallow = t.retained[it.node];
      for (NodeId k : t.children->neighbors(it.node)) shallow -= t.retained[k];
      auto& [count, bytes] = per_group[group_of[it.node]];
      count++;
      bytes += shallow;
      out.accumulated_count++;
      out.accumulated_bytes += shallow;
    }
    for (NodeId k : t.children->neighbors(it.node)) {
      stack.push_back({k, it.inside || (c.is_group && isMember(group_of, k, c.group))});
    }
  }
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < per_group.size(); i++) {
    if (per_group[i].first != 0) rows.push_back(i);
  }
  out.accumulated_types = rows.size();
  const size_t k = std::min(max_types, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(k), rows.end(),
                    [&](uint32_t a, uint32_t b) {
                      if (per_group[a].second != per_group[b].second) {
                        return per_group[a].second > per_group[b].second;
                      }
                      return g.names[a] < g.names[b];
                    });
  for (size_t i = 0; i < k; i++) {
    const uint32_t r = rows[i];
    out.accumulated.push_back({g.names[r], std::string(typing::nameSourceName(g.sources[r])),
                               per_group[r].first, per_group[r].second});
  }
}

std::string shareText(uint64_t part, uint64_t whole) {
  return formatPercent(part, whole) + " of the reachable heap";
}

}  // namespace

SuspectReport leakSuspects(const Snapshot& s, const SuspectOptions& o) {
  return leakSuspects(s, o, goroutines(s));
}

SuspectReport leakSuspects(const Snapshot& s, const SuspectOptions& o,
                           const std::vector<GoroutineInfo>& all_goroutines) {
  SuspectReport r;
  r.threshold_percent = o.threshold_percent;
  r.accumulation_percent = o.accumulation_percent;
  r.reachable_bytes = s.retained[s.heap.superRoot()];
  r.threshold_bytes = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(static_cast<long double>(r.reachable_bytes) *
                                         o.threshold_percent / 100.0L)));
  const typing::GroupKind kind = s.types ? typing::GroupKind::Type : typing::GroupKind::Name;
  r.by = s.types ? "type" : "site";
  const typing::Grouping grouping = s.namer().group(kind);

  const std::vector<NodeId> order = topDownOrder(s.dominatorChildren(), s.heap.superRoot());
  const DomArrays t{s.dom.idom, order, &s.dominatorChildren(), s.retained.view(),
                    s.heap.superRoot()};
  const std::span<const uint32_t> group_of = grouping.group_of;
  const std::vector<GroupTotals> totals = groupTotals(t, group_of, grouping.names.size());
  const std::vector<SuspectCore> cores =
      findSuspectCores(t, group_of, totals, r.threshold_bytes, o.accumulation_percent);

  auto groupRef = [&](uint32_t g) {
    return SuspectGroupRef{grouping.names[g],
                           std::string(typing::nameSourceName(grouping.sources[g])),
                           totals[g].count, totals[g].retained};
  };
  for (size_t i = 0; i < cores.size(); i++) {
    const SuspectCore& c = cores[i];
    if (c.merged_into != SIZE_MAX) continue;
    r.total++;
    if (o.limit != 0 && r.suspects.size() >= o.limit) continue;
    Suspect& out = r.suspects.emplace_back();
    out.is_group = c.is_group;
    out.object = labelNode(s, c.object);
    out.retained = c.retained;
    out.share = r.reachable_bytes == 0
                    ? 0
                    : static_cast<double>(c.retained) / static_cast<double>(r.reachable_bytes);
    out.accumulation_point = labelNode(s, c.point.node);
    out.accumulation_retained = c.point.bytes;
    out.accumulation_children = t.children->neighbors(c.point.node).size();
    if (std::vector<Path> paths = pathsToRoots(s, c.object, 1); !paths.empty()) {
      out.path = std::move(paths[0]);
    }
    accumulate(t, grouping, c, o.max_types, out);
    for (const SuspectCore& m : cores) {
      if (m.merged_into == i) out.merged_groups.push_back(groupRef(m.group));
    }
    // The root right above the objects: a goroutine's frame, not the goroutine.
    std::string held_by = "no root";
    for (const PathStep& step : out.path.steps) {
      if (step.node.kind == "object") continue;
      // A global without a symbol by its address: the suspect itself is
      // what it points at.
      const bool segment = step.node.kind == "data segment" || step.node.kind == "bss segment";
      held_by = segment && step.node.global.empty() && !step.node.short_name.empty()
                    ? step.node.short_name
                    : step.node.name;
    }
    if (c.is_group) {
      out.group = groupRef(c.group);
      out.holders = groupHolders(s, t, group_of, c.group);
      std::string holders;
      for (size_t h = 0; h < out.holders.size() && h < 2; h++) {
        holders += (h == 0 ? "" : " and ") + out.holders[h].holder;
      }
      if (out.holders.size() > 2) holders += " and others";
      out.description = formatCount(out.group.count) + " objects of " + out.group.name +
                        ", held by " + holders + ", retain " + formatBytes(c.retained) + " (" +
                        shareText(c.retained, r.reachable_bytes) + ")";
    } else {
      out.description = out.object.name + " at " + formatHex(out.object.address) + ", held by " +
                        held_by + ", retains " + formatBytes(c.retained) + " (" +
                        shareText(c.retained, r.reachable_bytes) + ")";
    }
    // A group spread over several roots has no one place to name.
    const bool named_point =
        c.is_group ? out.accumulation_point.kind == "object" : c.point.node != c.object;
    if (named_point) {
      const NodeLabel& a = out.accumulation_point;
      out.description += "; it accumulates in " +
                         (a.kind == "object" ? a.name + " at " + formatHex(a.address) : a.name) +
                         " (" + formatCount(out.accumulation_children) + " children)";
    }
  }
  std::vector<GoroutineInfo> leaked;
  for (const GoroutineInfo& g : all_goroutines) {
    if (g.leaked) leaked.push_back(g);
  }
  r.leaked_goroutines = groupGoroutines(s, leaked);
  return r;
}

}  // namespace goheap::analysis
