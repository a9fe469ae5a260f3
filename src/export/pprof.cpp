// Profiles for `go tool pprof` (docs/export-formats.md, "pprof"):
//
// pprof: one sample per (type, allocation stack) of the reachable objects.
// The leaf frame is the object's type (its `top --by type` group), above
// the allocation stack from the dump's profile bucket when the object has a
// sample; so `-top` lists types (flat) and allocating functions (cum).
//
// pprof-retention: one sample per chain of dominators. Each reachable
// object's stack is itself, its immediate dominator, that one's, and so on
// up to a root, each named like the object or root it is; its value is the
// object's own size, so a frame's cum is what the objects it names retain.
#include <algorithm>
#include <unordered_map>

#include "analysis/labels.h"
#include "export/formats.h"
#include "export/profile_proto.h"
#include "graph/tree_walk.h"

namespace goheap::exporting {

namespace {

constexpr uint32_t kNoLocation = 0;

void describeHeap(const analysis::Snapshot& s, ProfileWriter& w, std::string_view what) {
  std::string c = "goheap: " + std::string(what) + " of " + s.model.name();
  if (!s.model.params.go_version.empty()) c += " (" + std::string(s.model.params.go_version) + ")";
  w.comment(c);
}

uint64_t addMapping(const analysis::Snapshot& s, ProfileWriter& w) {
  if (!s.exe) return 0;
  return w.mapping({s.exe_path, s.exe->binary().buildId(), true});
}

// Pre-order walk of the dominator tree below the super-root, reporting progress:
// visit(child, parent, parent_state) returns the child's state.
template <class State, class Visit>
void walkDominatorTree(const analysis::Snapshot& s, State root_state, Visit&& visit,
                       WriteProgress& progress) {
  uint64_t visited = 0;
  const uint64_t total = s.heap.nodeCount();
  walkTreeDepthFirst(
      s.dominatorChildren(), s.heap.superRoot(), std::move(root_state),
      [&](NodeId c, NodeId parent, const State& above) {
        State state = visit(c, parent, above);
        if ((++visited & 0xffff) == 0) progress.report(visited, total);
        return state;
      },
      [](NodeId n, const State& state) { state.leave(n); });
  progress.report(total, total);
}

// ---- pprof: allocation sites and types ---------------------------------------

// Location ids of the profile buckets' stacks, made on first use.
class AllocStacks {
 public:
  AllocStacks(const analysis::Snapshot& s, ProfileWriter& w, uint64_t mapping)
      : s_(s), w_(w), mapping_(mapping), first_(s.model.buckets.size(), UINT32_MAX) {}

  std::span<const uint64_t> of(size_t bucket) {
    if (first_[bucket] == UINT32_MAX) build(bucket);
    const uint32_t n = s_.model.buckets[bucket].frame_count;
    return {locations_.data() + first_[bucket], n};
  }

 private:
  void build(size_t bucket) {
    const model::ProfileBucket& b = s_.model.buckets[bucket];
    first_[bucket] = static_cast<uint32_t>(locations_.size());
    for (uint32_t i = 0; i < b.frame_count; i++) {
      const model::ProfileFrame& pf = s_.model.profile_frames[b.first_frame + i];
      const auto line = static_cast<int64_t>(pf.line);
      std::string_view function = pf.function;
      int64_t start_line = 0;
      if (s_.exe) {
        // The runtime names an inlined call's frame after the function it
        // is inlined into; the executable knows the real one.
        function = s_.exe->inlinedName(pf.function, pf.file, line);
        if (const bin::Func* fn = s_.exe->functionNamed(function)) {
          start_line = s_.exe->binary().startLine(*fn);
        }
      }
      const uint64_t fid = w_.function(function, pf.file, start_line);
      locations_.push_back(w_.location(fid, line, mapping_));
    }
  }

  const analysis::Snapshot& s_;
  ProfileWriter& w_;
  uint64_t mapping_;
  std::vector<uint32_t> first_;  // per bucket, into locations_
  std::vector<uint64_t> locations_;
};

struct SiteSample {
  uint64_t objects = 0, bytes = 0, retained = 0;
};

// Per group, how many of its members are on the current dominator-tree
// path: a member's retained size counts only when none of its group holds
// it, as in analysis::histogram.
struct GroupPath {
  const typing::Grouping* g;
  std::vector<uint32_t>* on_path;
  const graph::Heap* heap;
  void leave(NodeId n) const {
    if (heap->isObject(n)) (*on_path)[g->group_of[n]]--;
  }
};

// ---- pprof-retention: chains of dominators ----------------------------------

// The distinct dominator chains, as a tree of frames (a trie): a node is a
// stack, its parent the stack one frame shorter. Objects add their size to
// the node of their chain.
class ChainTrie {
 public:
  // Chains are cut at this many frames: what lies deeper is counted in a
  // frame `deeper` at the cut, so the output stays linear in the trie.
  static constexpr uint32_t kMaxDepth = 128;

  explicit ChainTrie(uint64_t deeper) : deeper_(deeper) { nodes_.push_back({0, 0, 0}); }

  static constexpr uint32_t kEmpty = 0;

  // The stack `t` with `location` as a new leaf. Runs of one name (a linked
  // list, a tree of one type) make one frame: its cum is then the retained
  // size of the outermost, and chain depth stays bounded by the types.
  uint32_t extend(uint32_t t, uint64_t location) {
    if (t != kEmpty && nodes_[t].location == location) return t;
    if (nodes_[t].depth + 1 >= kMaxDepth) {
      if (nodes_[t].location == deeper_) return t;
      location = deeper_;
    }
    auto [it, inserted] =
        children_.try_emplace(uint64_t{t} << 32 | location, static_cast<uint32_t>(nodes_.size()));
    if (inserted) nodes_.push_back({t, nodes_[t].depth + 1, location});
    return it->second;
  }

  void add(uint32_t t, uint64_t bytes) {
    nodes_[t].objects++;
    nodes_[t].bytes += bytes;
  }

  // fn(locations leaf first, objects, bytes) for every stack with objects.
  template <class Fn>
  void forEachSample(Fn&& fn) const {
    std::vector<uint64_t> locations;
    for (uint32_t t = 1; t < nodes_.size(); t++) {
      if (nodes_[t].objects == 0) continue;
      locations.clear();
      for (uint32_t u = t; u != kEmpty; u = nodes_[u].parent)
        locations.push_back(nodes_[u].location);
      fn(locations, nodes_[t].objects, nodes_[t].bytes);
    }
  }

 private:
  struct Node {
    uint32_t parent;
    uint32_t depth;
    uint64_t location;
    uint64_t objects = 0, bytes = 0;
  };
  uint64_t deeper_;
  std::vector<Node> nodes_;                          // 0: the empty stack
  std::unordered_map<uint64_t, uint32_t> children_;  // parent << 32 | location -> node
};

// With the executable: the global variable holding each object that the
// data or bss segment dominates directly ("global main.cache").
std::unordered_map<NodeId, std::string> globalsHolding(const analysis::Snapshot& s) {
  std::unordered_map<NodeId, std::string> out;
  if (!s.exe) return out;
  for (NodeId r = s.heap.objectCount(); r < s.heap.nodeCount(); r++) {
    const graph::RootKind kind = s.heap.rootKind(r);
    if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) continue;
    const model::Segment& seg = kind == graph::RootKind::DataSegment ? s.model.data : s.model.bss;
    const WordReader words = s.model.words();
    const uint8_t* contents = s.model.bytes(seg.contents).data();
    s.model.forEachSlot(seg.layout, [&](uint64_t off) {
      const uint64_t value = words.read(contents + off);
      if (value == 0) return;
      const NodeId o = s.heap.addresses().find(value);
      if (o == kNoNode || s.dom.idom[o] != r || out.count(o) != 0) return;
      analysis::NodeLabel l = analysis::labelHolder(s, r, seg.addr + off);
      if (!l.global.empty()) out.emplace(o, "global " + l.global);
    });
  }
  return out;
}

// A root's frame: what `dom` and `paths` call it, but a goroutine's stack
// frame, which hangs below its goroutine, is named by its function alone.
std::string rootFrameName(const analysis::Snapshot& s, NodeId n) {
  if (s.heap.rootKind(n) == graph::RootKind::StackFrame) {
    const model::StackFrame& f = s.model.frames[s.heap.rootRecord(n)];
    if (f.goroutine != UINT32_MAX) {
      if (s.exe) {
        if (std::string where = s.exe->describeReturnAddress(f.pc); !where.empty()) return where;
      }
      return std::string(f.function);
    }
  }
  return analysis::labelNode(s, n).name;
}

struct ChainState {
  uint32_t trie = ChainTrie::kEmpty;
  void leave(NodeId) const {}
};

}  // namespace

Status writePprof(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  WriteProgress progress(options, "pprof");
  ProfileWriter w(out);
  w.sampleType("inuse_objects", "count");
  w.sampleType("inuse_space", "bytes");
  w.sampleType("retained_space", "bytes");
  w.defaultSampleType("inuse_space");
  describeHeap(s, w, "reachable objects by type and allocation site");
  const uint64_t mapping = addMapping(s, w);

  const typing::Grouping g = s.namer().group(typing::GroupKind::Type);
  // Key: group << 32 | (bucket + 1); bucket 0 for objects without a sample.
  std::unordered_map<uint64_t, SiteSample> samples;
  std::vector<uint32_t> on_path(g.names.size(), 0);
  walkDominatorTree(
      s, GroupPath{&g, &on_path, &s.heap},
      [&](NodeId c, NodeId, const GroupPath& state) {
        if (!s.heap.isObject(c)) return state;
        const uint32_t group = g.group_of[c];
        const uint64_t key =
            uint64_t{group} << 32 | static_cast<uint64_t>(s.namer().bucketOf(c) + 1);
        SiteSample& sample = samples[key];
        sample.objects++;
        sample.bytes += s.model.objects.size[c];
        if (on_path[group]++ == 0) sample.retained += s.retained[c];
        return state;
      },
      progress);

  // Deterministic output: samples in key order.
  std::vector<std::pair<uint64_t, SiteSample>> sorted(samples.begin(), samples.end());
  samples.clear();
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  AllocStacks stacks(s, w, mapping);
  std::vector<uint64_t> type_location(g.names.size(), kNoLocation);
  std::vector<uint64_t> locations;
  for (const auto& [key, sample] : sorted) {
    const auto group = static_cast<uint32_t>(key >> 32);
    const uint64_t bucket = key & 0xffffffffu;
    if (type_location[group] == kNoLocation) {
      type_location[group] = w.location(w.function(g.names[group], "", 0), 0, 0);
    }
    locations.assign(1, type_location[group]);
    if (bucket != 0) {
      std::span<const uint64_t> st = stacks.of(bucket - 1);
      locations.insert(locations.end(), st.begin(), st.end());
    }
    const int64_t values[] = {static_cast<int64_t>(sample.objects),
                              static_cast<int64_t>(sample.bytes),
                              static_cast<int64_t>(sample.retained)};
    w.sample(locations, values);
  }
  return w.finish();
}

}  // namespace goheap::exporting

namespace goheap::exporting {

Status writePprofRetention(const analysis::Snapshot& s, const ConvertOptions& options,
                           Output& out) {
  WriteProgress progress(options, "pprof-retention");
  ProfileWriter w(out);
  w.sampleType("inuse_objects", "count");
  w.sampleType("inuse_space", "bytes");
  w.defaultSampleType("inuse_space");
  describeHeap(s, w, "reachable objects by chain of dominators (cum: retained)");
  addMapping(s, w);  // names the program; no frame is in it

  auto frame = [&w](std::string_view name) { return w.location(w.function(name, "", 0), 0, 0); };
  const typing::Grouping g = s.namer().group(typing::GroupKind::Type);
  std::vector<uint64_t> group_location(g.names.size(), kNoLocation);
  const std::unordered_map<NodeId, std::string> globals = globalsHolding(s);
  const uint64_t several_roots = frame("several roots");
  ChainTrie trie(frame("(deeper dominators)"));

  walkDominatorTree(
      s, ChainState{},
      [&](NodeId c, NodeId parent, const ChainState& p) {
        if (!s.heap.isObject(c)) return ChainState{trie.extend(p.trie, frame(rootFrameName(s, c)))};
        uint32_t holder = p.trie;
        if (parent == s.heap.superRoot()) {
          holder = trie.extend(ChainTrie::kEmpty, several_roots);
        } else if (auto it = globals.find(c); it != globals.end()) {
          // The global, rather than the whole segment, holds the object.
          holder = trie.extend(ChainTrie::kEmpty, frame(it->second));
        }
        const uint32_t group = g.group_of[c];
        if (group_location[group] == kNoLocation) group_location[group] = frame(g.names[group]);
        const uint32_t t = trie.extend(holder, group_location[group]);
        trie.add(t, s.model.objects.size[c]);
        return ChainState{t};
      },
      progress);

  trie.forEachSample([&](std::span<const uint64_t> locations, uint64_t objects, uint64_t bytes) {
    const int64_t values[] = {static_cast<int64_t>(objects), static_cast<int64_t>(bytes)};
    w.sample(locations, values);
  });
  return w.finish();
}

}  // namespace goheap::exporting
