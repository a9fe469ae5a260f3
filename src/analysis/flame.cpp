#include "analysis/flame.h"

#include <algorithm>
#include <map>

#include "graph/tree_walk.h"

namespace goheap::analysis {

namespace {

// A root's frame: what kind of root, and for a stack frame its function (not
// the goroutine or depth, so that goroutines running the same code merge).
std::string rootFrame(const Snapshot& s, NodeId n) {
  switch (s.heap.rootKind(n)) {
    case graph::RootKind::StackFrame:
      return "frame " + std::string(s.model.frames[s.heap.rootRecord(n)].function);
    case graph::RootKind::Goroutine:
      return "goroutine";
    case graph::RootKind::DataSegment:
      return "globals (data)";
    case graph::RootKind::BssSegment:
      return "globals (bss)";
    default:
      return std::string(graph::rootKindName(s.heap.rootKind(n)));
  }
}

}  // namespace

namespace {

Flame buildFlame(const Snapshot& s, uint32_t max_depth) {
  Flame f;
  f.nodes.push_back({"all", 0, 0, 0, UINT32_MAX, {}});
  std::map<std::pair<uint32_t, std::string>, uint32_t> child_of;
  // The dominator tree, depth first; each tree node maps to a flame node.
  struct At {
    uint32_t flame;
    uint32_t depth;
  };
  auto enter = [&](NodeId c, NodeId, const At& above) {
    const uint32_t parent = above.flame;
    const uint32_t depth = above.depth;
    std::string name = s.heap.isObject(c) ? s.namer().name(c) : rootFrame(s, c);
    uint32_t at = parent;
    if (depth < max_depth && name != f.nodes[parent].name) {
      auto [it, inserted] = child_of.try_emplace({parent, name}, 0);
      if (inserted) {
        it->second = static_cast<uint32_t>(f.nodes.size());
        f.nodes.push_back({std::move(name), 0, 0, 0, parent, {}});
        f.nodes[parent].children.push_back(it->second);
      }
      at = it->second;
    }
    if (s.heap.isObject(c)) {
      f.nodes[at].self += s.model.objects.size[c];
      f.nodes[at].count++;
    }
    return At{at, at == parent ? depth : depth + 1};
  };
  walkTreeDepthFirst(s.dominatorChildren(), s.heap.superRoot(), At{0, 0}, enter,
                     [](NodeId, const At&) {});
  // Values bottom-up: children come after their parents in `nodes`.
  for (size_t i = f.nodes.size(); i-- > 0;) {
    FlameNode& n = f.nodes[i];
    n.value += n.self;
    if (n.parent != UINT32_MAX) f.nodes[n.parent].value += n.value;
  }
  for (FlameNode& n : f.nodes) {
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
      if (f.nodes[a].value != f.nodes[b].value) return f.nodes[a].value > f.nodes[b].value;
      return f.nodes[a].name < f.nodes[b].name;
    });
  }
  return f;
}

}  // namespace

Flame pruneFlame(const Flame& full, uint64_t min_bytes) {
  // Copies the frames worth showing, from the root down; a frame's folded
  // children add to its self.
  Flame out;
  out.nodes.push_back(full.nodes[0]);
  out.nodes[0].children.clear();
  std::vector<std::pair<uint32_t, uint32_t>> todo{{0, 0}};  // (in full, in out)
  while (!todo.empty()) {
    const auto [from, to] = todo.back();
    todo.pop_back();
    for (uint32_t c : full.nodes[from].children) {
      const FlameNode& child = full.nodes[c];
      if (child.value < min_bytes) {
        out.nodes[to].self += child.value;
        continue;
      }
      const auto at = static_cast<uint32_t>(out.nodes.size());
      out.nodes.push_back(child);
      out.nodes.back().children.clear();
      out.nodes.back().parent = to;
      out.nodes[to].children.push_back(at);
      todo.emplace_back(c, at);
    }
  }
  return out;
}

Flame retentionFlame(const Snapshot& s, uint64_t min_bytes, uint32_t max_depth, const Flame* full) {
  if (max_depth == kMaxFlameDepth) {
    if (full != nullptr) return pruneFlame(*full, min_bytes);
    return pruneFlame(buildFlame(s, kMaxFlameDepth), min_bytes);
  }
  return pruneFlame(buildFlame(s, max_depth), min_bytes);
}

Flame fullFlame(const Snapshot& s) {
  return buildFlame(s, kMaxFlameDepth);
}

}  // namespace goheap::analysis
