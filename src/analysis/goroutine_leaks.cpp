#include "analysis/goroutine_leaks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/goroutines.h"
#include "core/runtime_table.h"

namespace goheap::analysis {

BlockingWait blockingWaitOf(std::string_view reason) {
  if (reason == "chan receive" || reason == "chan send" || reason == "select") {
    return BlockingWait::Channel;
  }
  if (reason == "chan receive (nil chan)" || reason == "chan send (nil chan)" ||
      reason == "select (no cases)") {
    return BlockingWait::Forever;
  }
  if (reason == "sync.Cond.Wait" || reason == "sync.Mutex.Lock" || reason == "sync.RWMutex.RLock" ||
      reason == "sync.RWMutex.Lock" || reason == "sync.WaitGroup.Wait" || reason == "semacquire") {
    return BlockingWait::Sync;
  }
  return BlockingWait::None;
}

bool outsideRuntimeAndSync(std::string_view fn) {
  auto in = [&](std::string_view package) {
    return fn.starts_with(package) && fn.size() > package.size() && fn[package.size()] == '.';
  };
  return !in("runtime") && !in("sync") && !in("internal/sync") && !in("sync/atomic");
}

std::string_view blockingFunction(const model::HeapModel& d, const model::Goroutine& g) {
  for (uint32_t f = 0; f < g.frame_count; f++) {
    const std::string_view fn = d.frames[g.first_frame + f].function;
    if (outsideRuntimeAndSync(fn)) return fn;
  }
  return {};
}

namespace {

Expected<WaitLayout> fromDwarf(const bin::DebugInfo& dwarf) {
  const bin::TypeId g = dwarf.typeByName("runtime.g");
  const bin::TypeId sudog = dwarf.typeByName("runtime.sudog");
  const bin::Field* waiting = dwarf.fieldNamed(g, "waiting");
  const bin::Field* sudog_g = dwarf.fieldNamed(sudog, "g");
  const bin::Field* elem = dwarf.fieldNamed(sudog, "elem");
  const bin::Field* c = dwarf.fieldNamed(sudog, "c");
  const bin::Field* waitlink = dwarf.fieldNamed(sudog, "waitlink");
  if (waiting == nullptr || sudog_g == nullptr || elem == nullptr || c == nullptr ||
      waitlink == nullptr) {
    return Error("the executable's DWARF has no runtime.g.waiting or runtime.sudog fields");
  }
  return WaitLayout{waiting->offset, sudog_g->offset,  elem->offset,
                    c->offset,       waitlink->offset, dwarf.type(dwarf.resolve(sudog)).size,
                    "DWARF"};
}

Expected<WaitLayout> fromTable(std::string_view go_version, std::string_view goarch) {
  const core::RuntimeTable* t = core::runtimeTableFor(go_version, goarch);
  if (t == nullptr) {
    return Error("no runtime layout table for " +
                 std::string(go_version.empty() ? "an unknown release" : go_version) + " " +
                 std::string(goarch));
  }
  const core::TableField* waiting = t->field("runtime.g", "waiting");
  const core::TableField* sudog_g = t->field("runtime.sudog", "g");
  const core::TableField* elem = t->field("runtime.sudog", "elem");
  const core::TableField* c = t->field("runtime.sudog", "c");
  const core::TableField* waitlink = t->field("runtime.sudog", "waitlink");
  const core::TableStruct* sudog = t->structNamed("runtime.sudog");
  if (waiting == nullptr || sudog_g == nullptr || elem == nullptr || c == nullptr ||
      waitlink == nullptr || sudog == nullptr) {
    return Error("the layout table of " + std::string(t->go_version) +
                 " lacks runtime.g.waiting or runtime.sudog");
  }
  return WaitLayout{waiting->offset,
                    sudog_g->offset,
                    elem->offset,
                    c->offset,
                    waitlink->offset,
                    sudog->size,
                    "layout table " + std::string(t->go_version) + " " + std::string(t->goarch)};
}

// Reads what the analysis needs of the runtime's memory: words of heap
// objects (the gs and sudogs are heap objects in every heap goheap reads).
class HeapWords {
 public:
  explicit HeapWords(const Snapshot& s) : s_(s), words_(s.model.words()) {}
  // The object holding addr, or kNoNode outside the heap.
  NodeId objectAt(uint64_t addr) const { return s_.heap.addresses().find(addr); }
  // The word at addr, when a heap object holds all of it.
  std::optional<uint64_t> word(uint64_t addr) const {
    const NodeId o = objectAt(addr);
    if (o == kNoNode) return std::nullopt;
    const uint64_t offset = addr - s_.model.objects.addr[o];
    if (offset + s_.model.params.ptr_size > s_.model.objects.size[o]) return std::nullopt;
    return words_.read(s_.model.objectData(o) + offset);
  }

 private:
  const Snapshot& s_;
  WordReader words_;
};

// What one blocked goroutine waits on.
struct Waiter {
  uint32_t goroutine = 0;
  BlockingWait wait = BlockingWait::None;
  bool can_run = false;        // waits on something outside the heap (or unknown)
  std::vector<NodeId> waited;  // the channels, or the primitive's object
  std::vector<NodeId> sudogs;  // whose hidden pointer goes to `waited`
};

// What the sync waits that g.waiting does not link wait on (Go 1.25 and
// older set it only for channel waits). Such a goroutine's sudog is still
// a heap object whose g is the goroutine: released sudogs have g cleared
// (releaseSudog insists), so the objects of a sudog's size holding a
// waiter's g address there are its sudogs. A semaphore wait (Mutex,
// RWMutex, WaitGroup: "semacquire", or the sync.* reasons) queued it in
// semtable with elem at the semaphore, inside the primitive's object. A
// Cond wait queued it in the Cond's notifyList without elem: the Cond is
// the object holding the list's head or tail, reached back from the sudog
// through the sudogs before it (next). Returns the waiters, each with what
// it waits on, or nothing found, or able to run (a global primitive).
std::vector<Waiter> linkSyncWaits(const Snapshot& s, const WaitLayout& layout,
                                  const HeapWords& heap_words, std::vector<Waiter> unlinked) {
  if (unlinked.empty() || layout.sudog_size == 0) return unlinked;
  const model::HeapModel& d = s.model;
  std::unordered_map<uint64_t, size_t> by_g;
  for (size_t i = 0; i < unlinked.size(); i++)
    by_g.emplace(d.goroutines[unlinked[i].goroutine].addr, i);
  // Size classes round a sudog up by less than 16 bytes here (88 -> 96).
  const uint64_t ptr = d.params.ptr_size;
  std::vector<NodeId> sudog_of(unlinked.size(), kNoNode);
  std::unordered_map<NodeId, bool> sudogs;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    const uint64_t size = d.objects.size[o];
    if (size < layout.sudog_size || size >= layout.sudog_size + 2 * ptr) continue;
    const uint64_t g = d.words().read(d.objectData(o) + layout.sudog_g);
    auto it = by_g.find(g);
    if (it == by_g.end()) continue;
    sudogs.emplace(o, true);
    if (sudog_of[it->second] == kNoNode) sudog_of[it->second] = o;
  }
  constexpr size_t kEdgeScans = 8;
  size_t cond_waiters = 0;
  for (size_t i = 0; i < unlinked.size(); i++) {
    Waiter& w = unlinked[i];
    const NodeId sudog = sudog_of[i];
    if (sudog == kNoNode) continue;
    const uint64_t elem = d.words().read(d.objectData(sudog) + layout.sudog_elem);
    if (elem != 0) {
      const NodeId primitive = heap_words.objectAt(elem);
      if (primitive == kNoNode) {
        w.can_run = true;
      } else {
        w.waited.push_back(primitive);
        w.sudogs.push_back(sudog);
      }
      continue;
    }
    // A Cond's waiter: back through the sudogs queued before it. A few
    // lookups read every edge each; past that the predecessors, computed
    // once, cost less.
    if (++cond_waiters > kEdgeScans) s.heap.predecessors();
    std::vector<NodeId> todo{sudog};
    std::unordered_map<NodeId, bool> seen{{sudog, true}};
    while (!todo.empty() && todo.size() < 1 << 16) {
      const NodeId n = todo.back();
      todo.pop_back();
      for (NodeId p : s.heap.referrersOf(n)) {
        if (!s.heap.isObject(p)) {
          // A Cond in a global: never unreachable. (The waiter's own frame
          // holds its sudog too.)
          const graph::RootKind kind = s.heap.rootKind(p);
          if (kind == graph::RootKind::DataSegment || kind == graph::RootKind::BssSegment) {
            w.can_run = true;
          }
          continue;
        }
        if (!seen.emplace(p, true).second) continue;
        if (sudogs.contains(p)) {
          todo.push_back(p);
        } else if (p != sudog) {
          w.waited.push_back(p);
        }
      }
    }
  }
  std::erase_if(unlinked, [](const Waiter& w) { return w.can_run; });
  return unlinked;
}

}  // namespace

Expected<WaitLayout> waitLayoutOf(const Snapshot& s) {
  if (s.exe) {
    if (const bin::DebugInfo* dwarf = s.exe->debugInfo()) {
      if (Expected<WaitLayout> l = fromDwarf(*dwarf)) return l;
    }
  }
  return fromTable(s.model.params.go_version, s.model.params.arch);
}

GoroutineLeaks findGoroutineLeaks(const Snapshot& s) {
  GoroutineLeaks out;
  const model::HeapModel& d = s.model;
  Expected<WaitLayout> layout = waitLayoutOf(s);
  if (!layout) {
    out.problem = layout.error().message();
    return out;
  }
  out.layout_source = layout->source;
  const HeapWords heap_words(s);

  // The blocked goroutines, and what each waits on.
  std::vector<Waiter> waiters, unlinked;
  for (uint32_t i = 0; i < d.goroutines.size(); i++) {
    const model::Goroutine& g = d.goroutines[i];
    if (g.status != core::kGwaiting && g.status != core::kGleaked) continue;
    Waiter w;
    w.goroutine = i;
    w.wait = blockingWaitOf(g.wait_reason);
    if (w.wait == BlockingWait::None) continue;
    // The sudogs of g.waiting, bounded: a damaged list must not loop.
    std::optional<uint64_t> sudog = heap_words.word(g.addr + layout->g_waiting);
    for (int n = 0; sudog && *sudog != 0 && n < 1 << 16; n++) {
      const uint64_t hidden = w.wait == BlockingWait::Sync ? layout->sudog_elem : layout->sudog_c;
      const std::optional<uint64_t> target = heap_words.word(*sudog + hidden);
      const NodeId node = target ? heap_words.objectAt(*target) : kNoNode;
      if (w.wait != BlockingWait::Forever) {
        if (node == kNoNode) {
          w.can_run = true;  // a global's channel or primitive: never unreachable
        } else {
          w.waited.push_back(node);
          if (NodeId sg = heap_words.objectAt(*sudog); sg != kNoNode) w.sudogs.push_back(sg);
        }
      }
      // Sync waits use only the first sudog, as isMaybeRunnable does.
      if (w.wait == BlockingWait::Sync) break;
      sudog = heap_words.word(*sudog + layout->sudog_waitlink);
    }
    if (w.wait == BlockingWait::Sync && w.waited.empty() && !w.can_run) {
      unlinked.push_back(std::move(w));  // looked for below
      continue;
    }
    if (w.wait == BlockingWait::Channel && w.waited.empty() && !w.can_run) {
      w.can_run = true;  // no sudog in the heap: the runtime's check lets it run
    }
    if (w.can_run) continue;
    waiters.push_back(std::move(w));
  }
  for (Waiter& w : linkSyncWaits(s, *layout, heap_words, std::move(unlinked))) {
    if (w.waited.empty()) {
      out.unlinked_sync_waits++;
      continue;
    }
    waiters.push_back(std::move(w));
  }
  out.leaked.assign(d.goroutines.size(), 0);
  if (waiters.empty()) return out;  // no goroutine is blocked in a way that can leak

  // The hidden edges, and the waiters each object wakes once marked.
  std::unordered_map<NodeId, std::vector<NodeId>> hidden;   // sudog -> targets
  std::unordered_map<NodeId, std::vector<uint32_t>> wakes;  // object -> waiters
  for (uint32_t w = 0; w < waiters.size(); w++) {
    for (size_t k = 0; k < waiters[w].waited.size(); k++) {
      if (k < waiters[w].sudogs.size())
        hidden[waiters[w].sudogs[k]].push_back(waiters[w].waited[k]);
      wakes[waiters[w].waited[k]].push_back(w);
    }
  }
  // The roots that belong to each waiter, held back until it wakes.
  std::vector<std::vector<NodeId>> roots_of = rootsByGoroutine(s);
  std::vector<std::vector<NodeId>> own_roots(waiters.size());
  std::vector<uint8_t> held_back(s.heap.nodeCount(), 0);
  for (uint32_t w = 0; w < waiters.size(); w++) {
    own_roots[w] = std::move(roots_of[waiters[w].goroutine]);
    for (NodeId n : own_roots[w]) held_back[n] = 1;
  }

  // Mark to a fixpoint: one search, into which a waiter's roots enter as
  // soon as something it waits on is marked.
  std::vector<uint8_t> marked(s.heap.nodeCount(), 0);
  std::vector<uint8_t> woken(waiters.size(), 0);
  std::vector<NodeId> stack;
  auto mark = [&](NodeId n) {
    if (marked[n] != 0) return;
    marked[n] = 1;
    stack.push_back(n);
  };
  const NodeId root = s.heap.superRoot();
  marked[root] = 1;
  for (NodeId n : s.heap.successors.neighbors(root)) {
    if (held_back[n] == 0) mark(n);
  }
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (auto it = wakes.find(n); it != wakes.end()) {
      for (uint32_t w : it->second) {
        if (woken[w] != 0) continue;
        woken[w] = 1;
        for (NodeId r : own_roots[w]) mark(r);
      }
    }
    const auto h = hidden.find(n);
    for (NodeId t : s.heap.successors.neighbors(n)) {
      if (h != hidden.end() && std::find(h->second.begin(), h->second.end(), t) != h->second.end())
        continue;
      mark(t);
    }
  }

  std::vector<NodeId> leaked_roots;
  for (uint32_t w = 0; w < waiters.size(); w++) {
    if (woken[w] != 0) continue;
    const model::Goroutine& g = d.goroutines[waiters[w].goroutine];
    if (g.goid == 1 && g.wait_reason == "select (no cases)") {
      out.main_in_select_forever = true;
      continue;
    }
    out.leaked[waiters[w].goroutine] = 1;
    out.leaked_count++;
    leaked_roots.insert(leaked_roots.end(), own_roots[w].begin(), own_roots[w].end());
  }
  out.leaked_retained = jointlyRetained(s, leaked_roots);
  return out;
}

std::vector<std::vector<NodeId>> rootsByGoroutine(const Snapshot& s) {
  const model::HeapModel& d = s.model;
  std::vector<std::vector<NodeId>> roots(d.goroutines.size());
  std::unordered_map<uint64_t, uint32_t> by_g;
  for (uint32_t g = 0; g < d.goroutines.size(); g++) {
    roots[g].push_back(s.heap.goroutineNode(g));
    by_g.emplace(d.goroutines[g].addr, g);
  }
  for (NodeId n = s.heap.objectCount(); n < s.heap.nodeCount(); n++) {
    const graph::RootKind kind = s.heap.rootKind(n);
    uint64_t g = 0;
    if (kind == graph::RootKind::Defer) {
      g = d.defers[s.heap.rootRecord(n)].goroutine;
    } else if (kind == graph::RootKind::Panic) {
      g = d.panics[s.heap.rootRecord(n)].goroutine;
    } else {
      continue;
    }
    if (auto it = by_g.find(g); it != by_g.end()) roots[it->second].push_back(n);
  }
  return roots;
}

uint64_t jointlyRetained(const Snapshot& s, std::span<const NodeId> roots) {
  if (roots.empty()) return 0;
  // What every other root reaches, over every edge...
  std::vector<uint8_t> marked(s.heap.nodeCount(), 0);
  for (NodeId r : roots) marked[r] = 2;  // held back
  std::vector<NodeId> stack;
  auto search = [&](uint8_t mark, uint64_t* bytes) {
    while (!stack.empty()) {
      const NodeId n = stack.back();
      stack.pop_back();
      if (bytes != nullptr) *bytes += s.shallowSize(n);
      for (NodeId t : s.heap.successors.neighbors(n)) {
        if (marked[t] == 0) {
          marked[t] = mark;
          stack.push_back(t);
        }
      }
    }
  };
  const NodeId super_root = s.heap.superRoot();
  marked[super_root] = 1;
  stack.push_back(super_root);
  search(1, nullptr);
  // ...and what the held-back roots reach beyond it.
  uint64_t bytes = 0;
  for (NodeId r : roots) stack.push_back(r);
  search(3, &bytes);
  return bytes;
}

std::vector<GoroutineGroup> groupGoroutines(const Snapshot& s,
                                            const std::vector<GoroutineInfo>& gs) {
  std::map<std::string, std::vector<const GoroutineInfo*>> by_function;
  for (const GoroutineInfo& g : gs) by_function[g.blocked_in].push_back(&g);
  const std::vector<std::vector<NodeId>> roots = rootsByGoroutine(s);
  std::vector<GoroutineGroup> groups;
  for (const auto& [function, members] : by_function) {
    GoroutineGroup group{.function = function, .goroutines = members.size()};
    std::vector<NodeId> group_roots;
    for (const GoroutineInfo* g : members) {
      group.leaked += g->leaked ? 1 : 0;
      group_roots.insert(group_roots.end(), roots[g->record].begin(), roots[g->record].end());
    }
    group.retained = jointlyRetained(s, group_roots);
    groups.push_back(std::move(group));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.goroutines != b.goroutines ? a.goroutines > b.goroutines : a.retained > b.retained;
  });
  return groups;
}

}  // namespace goheap::analysis
