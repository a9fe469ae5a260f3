#include "analysis/goroutine_leaks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/labels.h"
#include "analysis/slots.h"
#include "goruntime/goroutine_status.h"
#include "goruntime/runtime_table.h"

namespace goheap::analysis {

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
  const goruntime::RuntimeTable* t = goruntime::runtimeTableFor(go_version, goarch);
  if (t == nullptr) {
    return Error("no runtime layout table for " +
                 std::string(go_version.empty() ? "an unknown release" : go_version) + " " +
                 std::string(goarch));
  }
  const goruntime::TableField* waiting = t->field("runtime.g", "waiting");
  const goruntime::TableField* sudog_g = t->field("runtime.sudog", "g");
  const goruntime::TableField* elem = t->field("runtime.sudog", "elem");
  const goruntime::TableField* c = t->field("runtime.sudog", "c");
  const goruntime::TableField* waitlink = t->field("runtime.sudog", "waitlink");
  const goruntime::TableStruct* sudog = t->structNamed("runtime.sudog");
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
  // A sync wait's semaphore address (sudog.elem), inside waited[0]; 0 for
  // a Cond's or a channel wait.
  uint64_t semaphore = 0;
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
        w.semaphore = elem;
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

// The allocator's tiny blocks: pointer-free objects this small may hold
// several unrelated values (runtime/malloc.go, maxTinySize).
constexpr uint64_t kTinyBlockSize = 16;

bool isTinyBlock(const Snapshot& s, NodeId o) {
  return s.heap.isObject(o) && s.model.objects.size[o] <= kTinyBlockSize &&
         !s.model.objectHasPointers(o);
}

// "Mutex", "RWMutex", "WaitGroup": the primitive a sync wait is on, by the
// sync method in its frames.
std::string_view primitiveName(const model::HeapModel& d, const model::Goroutine& g) {
  for (uint32_t f = 0; f < g.frame_count; f++) {
    const std::string_view fn = d.frames[g.first_frame + f].function;
    for (std::string_view p : {"RWMutex", "WaitGroup", "Mutex"}) {
      if (fn.find(".(*" + std::string(p) + ")") != std::string_view::npos) return p;
    }
  }
  return "sync primitive";
}

// What a holder is called in a reason: the global, else its label.
std::string holderName(const Snapshot& s, NodeId n, uint64_t slot_address) {
  const NodeLabel l = labelHolder(s, n, slot_address);
  if (!l.global.empty()) return l.global;
  return l.short_name.empty() ? l.name : l.short_name;
}

// The runtime's marking for leaked goroutines, to a fixpoint: one search
// from every root but the blocked goroutines' own, into which a waiter's
// roots enter as soon as something it waits on is marked.
//
// One refinement over the runtime: a sync primitive inside a tiny block
// counts as reached only through a pointer whose static type reaches its
// bytes (typedReach), not through any pointer into the block. With
// untyped_reaches, a pointer of unknown type into such a block reaches all
// of it, which is the runtime's answer and the sound one.
class LeakMarking {
 public:
  struct Result {
    std::vector<uint8_t> woken;  // per waiter
    bool untyped_reach_used = false;
    // A waiter woken through an untyped pointer into its primitive's tiny
    // block: the first such pointer's holder and slot address.
    std::unordered_map<uint32_t, std::pair<NodeId, uint64_t>> shared_holder;
  };

  LeakMarking(const Snapshot& s, const std::vector<Waiter>& waiters)
      : s_(s), waiters_(waiters), role_(s.heap.nodeCount(), 0) {
    for (uint32_t w = 0; w < waiters.size(); w++) {
      for (size_t k = 0; k < waiters[w].waited.size(); k++) {
        const NodeId o = waiters[w].waited[k];
        if (k < waiters[w].sudogs.size()) {
          hidden_[waiters[w].sudogs[k]].push_back(o);
          role_[waiters[w].sudogs[k]] |= kSudog;
        }
        if (waiters[w].wait == BlockingWait::Sync && waiters[w].semaphore != 0 &&
            isTinyBlock(s, o)) {
          // A Mutex is its state word and its semaphore: the 8 bytes around
          // sudog.elem, which every sync primitive's own bytes include.
          const uint64_t at = waiters[w].semaphore - s.model.objects.addr[o];
          const uint64_t size = s.model.objects.size[o];
          in_tiny_[o].push_back({w, at >= 4 ? at - 4 : 0, std::min(at + 4, size)});
          role_[o] |= kTinyBlock;
        } else {
          wakes_[o].push_back(w);
          role_[o] |= kWakes;
        }
      }
    }
    std::vector<std::vector<NodeId>> roots_of = rootsByGoroutine(s);
    own_roots_.resize(waiters.size());
    held_back_.assign(s.heap.nodeCount(), 0);
    for (uint32_t w = 0; w < waiters.size(); w++) {
      own_roots_[w] = std::move(roots_of[waiters[w].goroutine]);
      for (NodeId n : own_roots_[w]) held_back_[n] = 1;
    }
  }

  const std::vector<NodeId>& ownRoots(uint32_t w) const { return own_roots_[w]; }

  Result run(bool untyped_reaches) const {
    Result r;
    r.woken.assign(waiters_.size(), 0);
    std::vector<uint8_t> marked(s_.heap.nodeCount(), 0);
    std::vector<NodeId> stack;
    auto mark = [&](NodeId n) {
      if (marked[n] != 0) return;
      marked[n] = 1;
      stack.push_back(n);
    };
    auto wake = [&](uint32_t w) {
      if (r.woken[w] != 0) return;
      r.woken[w] = 1;
      for (NodeId n : own_roots_[w]) mark(n);
    };
    const NodeId root = s_.heap.superRoot();
    marked[root] = 1;
    for (NodeId n : s_.heap.successors.neighbors(root)) {
      if (held_back_[n] == 0) mark(n);
    }
    while (!stack.empty()) {
      const NodeId n = stack.back();
      stack.pop_back();
      if ((role_[n] & kWakes) != 0) {
        for (uint32_t w : wakes_.at(n)) wake(w);
      }
      bool into_tiny = false;
      for (NodeId t : s_.heap.successors.neighbors(n)) {
        if (isHidden(n, t)) continue;
        into_tiny = into_tiny || (role_[t] & kTinyBlock) != 0;
        mark(t);
      }
      if (into_tiny) wakeThroughTinyBlocks(n, untyped_reaches, r, wake);
    }
    return r;
  }

 private:
  struct TinyWait {
    uint32_t waiter;
    uint64_t lo, hi;  // the primitive's bytes, as offsets in the block
  };

  // Whether the edge n -> t is a sudog's pointer to what it waits on.
  bool isHidden(NodeId n, NodeId t) const {
    if ((role_[n] & kSudog) == 0) return false;
    const auto h = hidden_.find(n);
    return h != hidden_.end() &&
           std::find(h->second.begin(), h->second.end(), t) != h->second.end();
  }

  // Wakes the waiters whose primitive, in a tiny block n points into, one
  // of n's pointers reaches.
  template <class Wake>
  void wakeThroughTinyBlocks(NodeId n, bool untyped_reaches, Result& r, Wake&& wake) const {
    std::vector<NodeId> pointed;  // the tiny blocks a slot of n points into
    auto reach = [&](NodeId block, uint64_t from, std::optional<uint64_t> length,
                     uint64_t slot_address) {
      for (const TinyWait& tw : in_tiny_.at(block)) {
        if (!length && from >= tw.lo && from < tw.hi && slot_address != 0) {
          wake(tw.waiter);  // whatever its type, it points into the primitive
          continue;
        }
        if (length) {
          // [from, from + length) meets [lo, hi), without overflow.
          const bool meets =
              *length != 0 && tw.hi > from && (from >= tw.lo || *length > tw.lo - from);
          if (meets) wake(tw.waiter);
          continue;
        }
        r.untyped_reach_used = true;
        if (!untyped_reaches) continue;
        if (r.woken[tw.waiter] == 0) r.shared_holder.emplace(tw.waiter, std::pair{n, slot_address});
        wake(tw.waiter);
      }
    };
    forEachNodeSlot(s_, n, [&](uint64_t off, uint64_t value, uint64_t slot_address) {
      const NodeId t = value == 0 ? kNoNode : s_.heap.addresses().find(value);
      if (t == kNoNode || (role_[t] & kTinyBlock) == 0 || isHidden(n, t)) return;
      pointed.push_back(t);
      reach(t, value - s_.model.objects.addr[t], typedReach(s_, n, off, slot_address),
            slot_address);
    });
    // An edge no slot explains (a record's pointer, a stack object's word):
    // of unknown type.
    for (NodeId t : s_.heap.successors.neighbors(n)) {
      const bool explained = std::find(pointed.begin(), pointed.end(), t) != pointed.end();
      if ((role_[t] & kTinyBlock) != 0 && !explained && !isHidden(n, t)) {
        reach(t, 0, std::nullopt, 0);
      }
    }
  }

  // What a node is to the marking, as bits: the maps below are looked up
  // only for the few nodes marked here, not on every edge of the heap.
  static constexpr uint8_t kWakes = 1, kSudog = 2, kTinyBlock = 4;

  const Snapshot& s_;
  const std::vector<Waiter>& waiters_;
  std::vector<uint8_t> role_;                                // per node
  std::unordered_map<NodeId, std::vector<NodeId>> hidden_;   // sudog -> targets
  std::unordered_map<NodeId, std::vector<uint32_t>> wakes_;  // object -> waiters
  std::unordered_map<NodeId, std::vector<TinyWait>> in_tiny_;
  std::vector<std::vector<NodeId>> own_roots_;
  std::vector<uint8_t> held_back_;
};

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
    if (g.status != goruntime::kGwaiting && g.status != goruntime::kGleaked) continue;
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
          if (w.wait == BlockingWait::Sync) w.semaphore = *target;
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

  LeakMarking marking(s, waiters);
  const LeakMarking::Result sound = marking.run(/*untyped_reaches=*/true);
  std::vector<NodeId> leaked_roots;
  for (uint32_t w = 0; w < waiters.size(); w++) {
    if (sound.woken[w] != 0) continue;
    const model::Goroutine& g = d.goroutines[waiters[w].goroutine];
    if (g.goid == 1 && g.wait_reason == "select (no cases)") {
      out.main_in_select_forever = true;
      continue;
    }
    out.leaked[waiters[w].goroutine] = 1;
    out.leaked_count++;
    const std::vector<NodeId>& roots = marking.ownRoots(w);
    leaked_roots.insert(leaked_roots.end(), roots.begin(), roots.end());
  }
  out.leaked_retained = jointlyRetained(s, leaked_roots);
  if (!sound.untyped_reach_used) return out;

  // Some primitive shares a tiny block with memory an untyped pointer
  // reaches: the waiters that only that keeps able to run are said so.
  const LeakMarking::Result typed = marking.run(/*untyped_reaches=*/false);
  std::string first_shared;  // the first such goroutine, for those waiting on it
  for (uint32_t w = 0; w < waiters.size(); w++) {
    if (sound.woken[w] == 0 || typed.woken[w] != 0) continue;
    const model::Goroutine& g = d.goroutines[waiters[w].goroutine];
    auto holder = sound.shared_holder.find(w);
    std::string why;
    if (holder != sound.shared_holder.end()) {
      why = "its " + std::string(primitiveName(d, g)) + " shares an allocation with memory that " +
            holderName(s, holder->second.first, holder->second.second) +
            " holds, through a pointer of unknown type";
      if (first_shared.empty()) first_shared = "goroutine " + std::to_string(g.goid);
    } else {
      why = "it waits on what a goroutine blocked on a shared allocation holds";
    }
    out.not_leaked_because.push_back({waiters[w].goroutine, std::move(why)});
  }
  for (auto& [record, why] : out.not_leaked_because) {
    if (why.starts_with("it waits") && !first_shared.empty()) why += " (" + first_shared + ")";
  }
  std::sort(out.not_leaked_because.begin(), out.not_leaked_because.end());
  return out;
}

std::string_view GoroutineLeaks::notLeakedBecause(uint32_t record) const {
  auto it = std::lower_bound(
      not_leaked_because.begin(), not_leaked_because.end(), record,
      [](const std::pair<uint32_t, std::string>& e, uint32_t r) { return e.first < r; });
  return it != not_leaked_because.end() && it->first == record ? std::string_view(it->second)
                                                               : std::string_view();
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
