#include "graph/heap.h"

#include <algorithm>
#include <initializer_list>
#include <thread>

#include "util/enum_names.h"
#include "util/large_vector.h"

namespace goheap::graph {

constexpr std::array<std::string_view, 10> kRootKindNames = {
    "super-root", "data segment",     "bss segment", "goroutine", "stack frame",
    "finalizer",  "queued finalizer", "defer",       "panic",     "other root"};
static_assert(namesEveryValue(kRootKindNames, RootKind::OtherRoot));

std::string_view rootKindName(RootKind kind) {
  return enumName(kind, kRootKindNames, "root");
}

namespace {

// Edges of a contiguous run of nodes, before they are joined into one CSR.
struct EdgeChunk {
  std::vector<uint32_t> degree;
  std::vector<NodeId> targets;
  uint64_t non_heap = 0;
  uint64_t nil = 0;
};

// Adds one pointer word's edge. Duplicates and self edges are dropped: they
// change neither reachability nor dominators. A pointer into a span's
// metadata (model/span_metadata.h) is not a pointer to an object.
class EdgeSink {
 public:
  EdgeSink(const AddressIndex& index, const model::Objects& objects, EdgeChunk& chunk)
      : index_(index), objects_(objects), chunk_(chunk) {}

  void beginNode(NodeId self) {
    self_ = self;
    start_ = chunk_.targets.size();
  }
  void pointer(uint64_t value) {
    if (value == 0) {
      chunk_.nil++;
      return;
    }
    NodeId t = index_.find(value);
    if (t == kNoNode || objects_.isSpanMetadata(t)) {
      chunk_.non_heap++;
      return;
    }
    if (t == self_) return;
    if (chunk_.targets.size() > start_ && chunk_.targets.back() == t) return;
    chunk_.targets.push_back(t);
  }
  // An edge to a known node (root to root), no lookup.
  void direct(NodeId to) { chunk_.targets.push_back(to); }
  // A node's targets are kept sorted and unique: several pointers to one
  // object (fields of a struct, elements of a slice) are one reference.
  void endNode() {
    auto first = chunk_.targets.begin() + static_cast<std::ptrdiff_t>(start_);
    if (chunk_.targets.end() - first > 1) {
      std::sort(first, chunk_.targets.end());
      chunk_.targets.erase(std::unique(first, chunk_.targets.end()), chunk_.targets.end());
    }
    chunk_.degree.push_back(static_cast<uint32_t>(chunk_.targets.size() - start_));
  }

 private:
  const AddressIndex& index_;
  const model::Objects& objects_;
  EdgeChunk& chunk_;
  NodeId self_ = kNoNode;
  size_t start_ = 0;
};

void objectEdges(const model::HeapModel& model, const AddressIndex& index, uint32_t first,
                 uint32_t last, EdgeChunk& chunk) {
  const WordReader words = model.words();
  EdgeSink sink(index, model.objects, chunk);
  reserveLarge(chunk.degree, last - first);
  // Every edge comes from a pointer slot, so the dump's slot count bounds the
  // chunk's edges. What is reserved and not used is never touched and costs
  // address space only.
  reserveLarge(chunk.targets, model.total_field_entries);
  for (uint32_t i = first; i < last; i++) {
    const uint8_t* contents = model.objectData(i);
    sink.beginNode(i);
    // The runtime's bitmaps are no object: the collector never scans them.
    if (!model.objects.isSpanMetadata(i)) {
      model.forEachObjectSlot(i, [&](uint64_t off) { sink.pointer(words.read(contents + off)); });
    }
    sink.endNode();
  }
}

// Root nodes and their edges; appended after the objects.
class RootBuilder {
 public:
  RootBuilder(const model::HeapModel& model, const AddressIndex& index, Heap& heap,
              EdgeChunk& chunk, bool conservative_stacks)
      : model_(model),
        heap_(heap),
        sink_(index, model.objects, chunk),
        words_(model.words()),
        conservative_stacks_(conservative_stacks) {}

  void build(uint32_t object_count) {
    object_count_ = object_count;
    const size_t roots = 1 + 2 + model_.goroutines.size() + model_.frames.size() +
                         model_.finalizers.size() + model_.defers.size() + model_.panics.size() +
                         model_.other_roots.size();
    heap_.root_kind.reserve(roots);
    heap_.root_record.reserve(roots);

    // The super-root comes first among roots and points at all the others,
    // which are numbered in the order below.
    uint32_t next = object_count + 1;
    auto count = [&](size_t n) {
      uint32_t begin = next;
      next += static_cast<uint32_t>(n);
      return begin;
    };
    const uint32_t data_node = model_.data.present ? count(1) : kNoNode;
    const uint32_t bss_node = model_.bss.present ? count(1) : kNoNode;
    const uint32_t goroutines_begin = count(model_.goroutines.size());
    const uint32_t frames_begin = count(model_.frames.size());
    const uint32_t finalizers_begin = count(model_.finalizers.size());
    const uint32_t defers_begin = count(model_.defers.size());
    const uint32_t panics_begin = count(model_.panics.size());
    const uint32_t others_begin = count(model_.other_roots.size());

    // Super-root: every root that is not reached through another root
    // (frames hang below their goroutine).
    add(RootKind::SuperRoot, 0);
    sink_.beginNode(object_count);
    if (data_node != kNoNode) edge(data_node);
    if (bss_node != kNoNode) edge(bss_node);
    for (uint32_t g = 0; g < model_.goroutines.size(); g++) edge(goroutines_begin + g);
    for (uint32_t f = 0; f < model_.frames.size(); f++) {
      if (model_.frames[f].goroutine == UINT32_MAX) edge(frames_begin + f);
    }
    for (uint32_t i = 0; i < model_.finalizers.size(); i++) edge(finalizers_begin + i);
    for (uint32_t i = 0; i < model_.defers.size(); i++) edge(defers_begin + i);
    for (uint32_t i = 0; i < model_.panics.size(); i++) edge(panics_begin + i);
    for (uint32_t i = 0; i < model_.other_roots.size(); i++) edge(others_begin + i);
    sink_.endNode();

    if (model_.data.present) segment(RootKind::DataSegment, model_.data);
    if (model_.bss.present) segment(RootKind::BssSegment, model_.bss);

    heap_.goroutine_node.resize(model_.goroutines.size());
    for (uint32_t g = 0; g < model_.goroutines.size(); g++) {
      const model::Goroutine& gr = model_.goroutines[g];
      heap_.goroutine_node[g] = goroutines_begin + g;
      add(RootKind::Goroutine, g);
      sink_.beginNode(goroutines_begin + g);
      for (uint32_t f = 0; f < gr.frame_count; f++) edge(frames_begin + gr.first_frame + f);
      // The g itself, and the closure context of a goroutine not yet started.
      sink_.pointer(gr.addr);
      sink_.pointer(gr.ctxt);
      sink_.endNode();
    }

    heap_.frame_node.resize(model_.frames.size());
    for (uint32_t f = 0; f < model_.frames.size(); f++) {
      const model::StackFrame& fr = model_.frames[f];
      heap_.frame_node[f] = frames_begin + f;
      add(RootKind::StackFrame, f);
      sink_.beginNode(frames_begin + f);
      slots(fr.contents, fr.layout);
      if (conservative_stacks_ && !model_.stack_objects_in_layouts && fr.goroutine != UINT32_MAX) {
        stackObjects(f);
      }
      sink_.endNode();
    }

    for (uint32_t i = 0; i < model_.finalizers.size(); i++) {
      const model::Finalizer& fin = model_.finalizers[i];
      add(fin.queued ? RootKind::QueuedFinalizer : RootKind::Finalizer, i);
      sink_.beginNode(finalizers_begin + i);
      sink_.pointer(fin.fn_val);
      if (fin.queued) {
        // Queued to run: the finalizer queue keeps the object itself alive.
        sink_.pointer(fin.obj);
      } else {
        // As the collector does: keep alive what the object points to, but
        // not the object, or it could never be finalized.
        referentsOf(fin.obj);
      }
      sink_.endNode();
    }

    for (uint32_t i = 0; i < model_.defers.size(); i++) {
      fieldRoot(RootKind::Defer, i, defers_begin + i,
                {model_.defers[i].addr, model_.defers[i].fn_val});
    }
    for (uint32_t i = 0; i < model_.panics.size(); i++) {
      fieldRoot(RootKind::Panic, i, panics_begin + i,
                {model_.panics[i].addr, model_.panics[i].eface_data});
    }
    for (uint32_t i = 0; i < model_.other_roots.size(); i++) {
      fieldRoot(RootKind::OtherRoot, i, others_begin + i, {model_.other_roots[i].addr});
    }
  }

 private:
  void add(RootKind kind, uint32_t record) {
    heap_.root_kind.push_back(kind);
    heap_.root_record.push_back(record);
  }
  void edge(NodeId to) { sink_.direct(to); }
  // A root whose pointers are fields of its record, not words of memory.
  void fieldRoot(RootKind kind, uint32_t record, NodeId node,
                 std::initializer_list<uint64_t> pointers) {
    add(kind, record);
    sink_.beginNode(node);
    for (uint64_t p : pointers) sink_.pointer(p);
    sink_.endNode();
  }
  void segment(RootKind kind, const model::Segment& seg) {
    add(kind, 0);
    sink_.beginNode(object_count_ + static_cast<uint32_t>(heap_.root_kind.size()) - 1);
    slots(seg.contents, seg.layout);
    sink_.endNode();
  }
  void slots(model::ByteRange contents, uint32_t layout) {
    const uint8_t* base = model_.bytes(contents).data();
    model_.forEachSlot(layout, [&](uint64_t off) { sink_.pointer(words_.read(base + off)); });
  }
  // Heap pointers held in stack objects of frame `f`: words of this frame
  // that a listed pointer of the same goroutine's stack points at (directly
  // or through another stack object), and the words after them up to
  // kStackObjectWords, leaving out words the field list names already.
  void stackObjects(uint32_t f) {
    const model::StackFrame& frame = model_.frames[f];
    const model::Goroutine& g = model_.goroutines[frame.goroutine];
    const uint32_t ptr = words_.ptrSize();
    const uint64_t lo = frame.sp;
    const uint64_t hi = frame.sp + frame.contents.size;
    // Words of this frame to scan, by index; listed words are never rescanned.
    std::vector<uint8_t>& state = scratch_;  // 0 unseen, 1 listed, 2 queued
    state.assign(frame.contents.size / ptr, 0);
    model_.forEachSlot(frame.layout, [&](uint64_t off) {
      if (off % ptr == 0) state[off / ptr] = 1;
    });
    std::vector<uint64_t> queue;
    auto mark = [&](uint64_t target) {
      if (target < lo || target >= hi) return;
      const uint64_t first = (target - lo) / ptr;
      for (uint64_t i = first; i < first + kStackObjectWords && i < state.size(); i++) {
        if (state[i] != 0) continue;
        state[i] = 2;
        queue.push_back(i);
      }
    };
    // Pointers into this frame from the listed words of every frame of the
    // goroutine (callees hold pointers to their callers' locals).
    for (uint32_t k = 0; k < g.frame_count; k++) {
      const model::StackFrame& other = model_.frames[g.first_frame + k];
      const uint8_t* base = model_.bytes(other.contents).data();
      model_.forEachSlot(other.layout, [&](uint64_t off) { mark(words_.read(base + off)); });
    }
    const uint8_t* base = model_.bytes(frame.contents).data();
    for (size_t q = 0; q < queue.size(); q++) {
      const uint64_t value = words_.read(base + queue[q] * ptr);
      if (value == 0) continue;
      const NodeId target = heap_.addresses().find(value);
      if (target != kNoNode && !model_.objects.isSpanMetadata(target)) {
        sink_.pointer(value);
        heap_.conservative_stack_edges++;
      } else {
        mark(value);  // a stack object pointing at another
      }
    }
  }
  void referentsOf(uint64_t obj_addr) {
    NodeId o = heap_.addresses().find(obj_addr);
    if (o == kNoNode) {
      sink_.pointer(obj_addr);  // counts it as a non-heap reference
      return;
    }
    const uint8_t* contents = model_.objectData(o);
    model_.forEachObjectSlot(o, [&](uint64_t off) { sink_.pointer(words_.read(contents + off)); });
  }

  const model::HeapModel& model_;
  Heap& heap_;
  EdgeSink sink_;
  WordReader words_;
  uint32_t object_count_ = 0;
  bool conservative_stacks_;
  std::vector<uint8_t> scratch_;
};

}  // namespace

Expected<Heap> buildHeap(const model::HeapModel& model, const BuildOptions& options) {
  const auto& objects = model.objects;
  if (objects.count() >= UINT32_MAX / 2) {
    return Error("the dump holds " + std::to_string(objects.count()) +
                 " objects; goheap handles up to 2^31");
  }
  Heap heap;
  heap.object_count_ = static_cast<uint32_t>(objects.count());
  heap.index_ = AddressIndex(objects.addr.view(), objects.size.view());

  // Objects' edges, in as many contiguous chunks as threads.
  const uint32_t n = heap.object_count_;
  const unsigned threads =
      std::max(1u, std::min(options.threads, n / std::max(1u, options.min_objects_per_thread) + 1));
  std::vector<EdgeChunk> chunks(threads + 1);
  {
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; t++) {
      uint32_t first = static_cast<uint32_t>(uint64_t{n} * t / threads);
      uint32_t last = static_cast<uint32_t>(uint64_t{n} * (t + 1) / threads);
      if (t + 1 == threads) {
        objectEdges(model, heap.index_, first, last, chunks[t]);
      } else {
        workers.emplace_back(objectEdges, std::cref(model), std::cref(heap.index_), first, last,
                             std::ref(chunks[t]));
      }
    }
    for (auto& w : workers) w.join();
  }

  // Roots, in the last chunk.
  heap.super_root_ = n;
  RootBuilder roots(model, heap.index_, heap, chunks[threads], options.conservative_stacks);
  roots.build(n);

  // Join the chunks into one CSR.
  uint64_t edge_total = 0;
  size_t node_total = 0;
  for (const EdgeChunk& c : chunks) {
    edge_total += c.targets.size();
    node_total += c.degree.size();
    heap.non_heap_refs += c.non_heap;
    heap.nil_slots += c.nil;
  }
  if (edge_total >= UINT32_MAX) {
    return Error("the dump holds " + std::to_string(edge_total) +
                 " pointers between objects; goheap handles up to 2^32");
  }
  Csr& out = heap.successors;
  resizeLarge(out.begin, node_total + 1);
  reserveLarge(out.targets, edge_total);
  size_t node = 0;
  out.begin[0] = 0;
  for (EdgeChunk& c : chunks) {
    for (uint32_t d : c.degree) {
      out.begin[node + 1] = out.begin[node] + d;
      node++;
    }
    out.targets.insert(out.targets.end(), c.targets.begin(), c.targets.end());
    c = EdgeChunk();  // free as we go
  }
  return heap;
}

std::vector<NodeId> Heap::referrersOf(NodeId target) const {
  if (const Csr* known = predecessorsIfComputed()) {
    const auto from = known->neighbors(target);
    return {from.begin(), from.end()};
  }
  std::vector<NodeId> out;
  const uint32_t nodes = nodeCount();
  for (NodeId u = 0; u < nodes; u++) {
    for (NodeId t : successors.neighbors(u)) {
      if (t == target) out.push_back(u);
    }
  }
  return out;
}

const Csr& Heap::predecessors() const {
  std::call_once(predecessors_->once, [this] {
    predecessors_->csr = reverseCsr(successors);
    predecessors_->ready.store(true, std::memory_order_release);
  });
  return predecessors_->csr;
}

Expected<Heap> restoreHeap(const model::HeapModel& model, HeapParts parts) {
  const auto& objects = model.objects;
  if (objects.count() >= UINT32_MAX / 2) return Error("too many objects for a graph");
  const uint64_t object_count = objects.count();
  const uint64_t node_count = object_count + parts.root_kind.size();
  auto wrong = [](std::string what) { return Error("the graph does not fit the heap: " + what); };
  if (parts.root_kind.empty() || parts.root_kind[0] != RootKind::SuperRoot) {
    return wrong("no super-root first");
  }
  if (parts.root_record.size() != parts.root_kind.size()) return wrong("root records");
  // Queries index the dump's tables by a root's record: each must be in range.
  for (size_t r = 0; r < parts.root_kind.size(); r++) {
    uint64_t table = 1;  // the segments and the super-root have record 0
    switch (parts.root_kind[r]) {
      case RootKind::SuperRoot:
      case RootKind::DataSegment:
      case RootKind::BssSegment:
        break;
      case RootKind::Goroutine:
        table = model.goroutines.size();
        break;
      case RootKind::StackFrame:
        table = model.frames.size();
        break;
      case RootKind::Finalizer:
      case RootKind::QueuedFinalizer:
        table = model.finalizers.size();
        break;
      case RootKind::Defer:
        table = model.defers.size();
        break;
      case RootKind::Panic:
        table = model.panics.size();
        break;
      case RootKind::OtherRoot:
        table = model.other_roots.size();
        break;
      default:
        return wrong("a root of unknown kind");
    }
    if (parts.root_record[r] >= table) return wrong("a root's record is out of range");
  }
  if (node_count >= UINT32_MAX) return wrong("too many nodes");
  if (std::string p = csrProblem(parts.successors, node_count, node_count); !p.empty()) {
    return wrong("successors: " + p);
  }
  if (parts.goroutine_node.size() != model.goroutines.size() ||
      parts.frame_node.size() != model.frames.size()) {
    return wrong("goroutine or frame nodes");
  }
  auto rootNodesAre = [&](const Column<NodeId>& nodes, RootKind kind) {
    for (NodeId n : nodes) {
      if (n == kNoNode) continue;
      if (n < object_count || n >= node_count || parts.root_kind[n - object_count] != kind) {
        return false;
      }
    }
    return true;
  };
  if (!rootNodesAre(parts.goroutine_node, RootKind::Goroutine) ||
      !rootNodesAre(parts.frame_node, RootKind::StackFrame)) {
    return wrong("a goroutine's or frame's node");
  }
  Heap heap;
  heap.object_count_ = static_cast<uint32_t>(object_count);
  heap.super_root_ = static_cast<NodeId>(object_count);
  heap.index_ = AddressIndex(objects.addr.view(), objects.size.view());
  static_cast<HeapParts&>(heap) = std::move(parts);
  return heap;
}

}  // namespace goheap::graph
