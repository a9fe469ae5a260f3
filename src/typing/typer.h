// The typing pass's worker (typing/heap_types.h has the pass itself): a
// Typer gives heap objects their Go types from what reaches them, one
// thread's share. Its parts are in files of their own:
//   typer.cpp             assigning a type, and scanning a typed value for
//                         the types of what it points at
//   typer_roots.cpp       the seeds the runtime gives: malloc headers,
//                         globals, frames, finalizers, interface words
//   typer_code.cpp        the seeds a stripped executable's code gives:
//                         stores into globals, stack slots, allocation sites
//   typer_maps.cpp        maps: their groups or buckets, and headers no typed
//                         value reaches
//   typer_inference.cpp   the rest, by shape: size class and pointer words
//   typing_rounds.h       the rounds over every thread
// Internal to typing/.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>

#include "bin/global_stores.h"
#include "goruntime/map_layout.h"
#include "goruntime/release_layout.h"
#include "typing/assignment_store.h"
#include "typing/heap_types.h"
#include "typing/pending_objects.h"
#include "util/enum_names.h"
#include "util/format.h"
#include "util/go_version.h"
#include "util/large_vector.h"
#include "util/worker_team.h"

namespace goheap::typing {

using bin::DwarfTag;
using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

// Arrays longer than this are scanned no further (a corrupt count must not
// turn into a long loop); real Go arrays in one object are far shorter.
inline constexpr uint64_t kMaxScannedElements = uint64_t{1} << 24;
inline constexpr int kMaxDepth = 32;  // struct nesting while scanning one value

// A piece of memory the dump holds: an object's, a frame's or a segment's
// contents, with the pointer slots that are live there (a frame's field list
// comes from the stack map: a dead local's stale pointer must not type
// anything). `live` null: every word counts.
struct Memory {
  const uint8_t* bytes = nullptr;
  uint64_t base = 0;
  uint64_t size = 0;
  const std::vector<uint64_t>* live = nullptr;  // sorted offsets from base
  // A frame's stack objects (address-taken locals, a value being sent on a
  // channel) are not in its field list; the graph found what they point to
  // (graph::BuildOptions::conservative_stacks). Their words count when they
  // point at one of these, the frame node's successors.
  std::span<const NodeId> reached;
};

// One step of scanning a value of some type (see Typer::layoutOf).
struct ScanOp {
  uint64_t offset;
  TypeId type;
  enum Kind : uint8_t { Leaf, Special, Loop } kind;
  uint64_t count;   // Loop: elements
  uint64_t stride;  // Loop: element size
};

// Pointer masks compared by inference: those of up to this many words.
inline constexpr size_t kMaxMaskWords = 1024;

// Arrays up to this long are flattened into their elements' steps.
inline constexpr uint64_t kUnrolledElements = 8;

// The runtime's size classes (runtime/sizeclasses.go, the same from Go 1.19
// to 1.27): an object of a small type occupies the smallest that holds it.
inline constexpr uint16_t kSizeClasses[] = {
    8,     16,    24,    32,    48,    64,    80,    96,    112,   128,   144,  160,   176,   192,
    208,   224,   240,   256,   288,   320,   352,   384,   416,   448,   480,  512,   576,   640,
    704,   768,   896,   1024,  1152,  1280,  1408,  1536,  1792,  2048,  2304, 2688,  3072,  3200,
    3456,  4096,  4864,  5376,  6144,  6528,  6784,  6912,  8192,  9472,  9728, 10240, 10880, 12288,
    13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768};

// Runtime-internal shapes never allocated on their own (noalg.*), and the
// runtime's generic headers (runtime.hmap, runtime.hchan,
// internal/runtime/maps.*), whose instances are a map's or chan's of some
// K, V or T: never a guess.
inline bool neverAllocatedAlone(std::string_view name) {
  return name.starts_with("noalg.") || name.starts_with("internal/runtime/") ||
         name == "runtime.hchan" || goruntime::isGenericMapStruct(name);
}

// A type of generic code compiled for a shape ("go.shape.int"): no value's
// type (the value's own comes from the dictionary at run time).
inline bool isShapeType(std::string_view name) {
  return name.find("go.shape.") != std::string_view::npos;
}

inline uint64_t sizeClassOf(uint64_t size) {
  for (const uint16_t c : kSizeClasses) {
    if (size <= c) return c;
  }
  return 0;  // a large object: its own pages
}

// How many objects the typing pass typed, and how (HeapTypes' counts).
struct TypingCounts {
  uint64_t typed_objects = 0;
  uint64_t conflicts = 0;
  uint64_t typed_from_roots = 0, typed_from_headers = 0;
  uint64_t inferred_objects = 0;

  TypingCounts& operator+=(const TypingCounts& o) {
    typed_objects += o.typed_objects;
    conflicts += o.conflicts;
    typed_from_roots += o.typed_from_roots;
    typed_from_headers += o.typed_from_headers;
    inferred_objects += o.inferred_objects;
    return *this;
  }
};

// A type the scan of one chunk found for an object of another: applied,
// once every chunk of its wave is scanned, by the one thread that writes the
// target's chunk then (TypingRounds).
struct DeferredAssign {
  NodeId target = kNoNode;
  uint32_t offset = 0;  // of the pointer into the target
  // At most UINT32_MAX: an array count past that is more than any object
  // holds, which assignObject treats as it treats UINT32_MAX.
  uint32_t count = 0;
  TypeId layout = kNoType, shown = kNoType;
  TypeForm form = TypeForm::None;
  TypeEvidence evidence = TypeEvidence::Table;
  bool approximate = false;
  bool weak = false;  // assignWeak's: string bytes or a closure
};

using DeferredAssigns = std::deque<DeferredAssign>;

// What the typing threads share. The heap is cut into chunks of
// `chunk_size` objects by id (so by address); in a round each chunk is
// scanned by one thread, which writes only its own chunk's objects.
struct TypingState {
  TypingState(size_t objects, size_t chunk)
      : chunk_shift(static_cast<unsigned>(std::bit_width(std::max<size_t>(1, chunk) - 1))),
        chunk_size(size_t{1} << chunk_shift),
        assignments(objects, chunk_shift) {
    for (size_t first = 0; first < objects; first += chunk_size) {
      pending.emplace_back(std::min(chunk_size, objects - first));
    }
    deferred.resize(pending.size());
  }
  size_t chunkOf(NodeId o) const { return o >> chunk_shift; }
  NodeId chunkFirst(size_t c) const { return static_cast<NodeId>(c << chunk_shift); }

  unsigned chunk_shift;
  size_t chunk_size;  // TypingOptions::objects_per_chunk, rounded up to a power of 2
  ObjectAssignments assignments;
  AssignmentTable table;
  std::vector<PendingObjects> pending;  // per chunk, by id from its first
  // Typed pointers into the data and bss segments of an executable
  // without symbols: (address, pointee type, evidence), typed between
  // rounds (Typer::seedPointedGlobals). Any thread may add.
  struct GlobalTarget {
    uint64_t addr;
    bin::TypeId type;
    TypeEvidence evidence;
    auto operator<=>(const GlobalTarget&) const = default;
  };
  std::mutex global_targets_lock;
  std::vector<GlobalTarget> global_targets;
  // Per chunk: its scan's assignments for other chunks' objects. A deque
  // grows without copying: a chunk can defer hundreds of thousands (the
  // entries of one big map), and a vector's doubling held the old copy
  // beside the new at the time the dominators' memory peaks.
  std::vector<DeferredAssigns> deferred;
};

class TypingRounds;

class Typer {
 public:
  Typer(const model::HeapModel& d, const graph::Heap& h, const binding::BoundExecutable& exe,
        const bin::DebugInfo& dw, TypingState& shared)
      : d_(d), heap_(h), exe_(exe), dw_(dw), shared_(shared), words_(d.words()) {
    shared.table.extend(known_assignments_);
    has_pointers_.assign(dw.types().size(), -1);
    special_.assign(dw.types().size(), -1);
    for (const model::ItabRecord& it : d.itabs) itab_type_.emplace(it.addr, it.type_addr);
    if (const auto& m = exe.binary().moduleLayout()) types_base_ = m->types;
    // The dump's version, which a bound executable shares; the executable's
    // for dumps too old to say.
    const std::string_view v = d.params.go_version;
    runtime_ =
        goruntime::releaseLayout(parseGoVersion(v.empty() ? exe.binary().goVersion() : v), ptr());
    size_t i = 0;
    for (const model::Segment* seg : {&d.data, &d.bss}) {
      if (seg->present) {
        segments_[i] = {d.bytes(seg->contents).data(), seg->addr, seg->contents.size, nullptr, {}};
      }
      i++;
    }
  }

  // Where drain() sends the pending objects: the rounds over every thread.
  void drainWith(TypingRounds& rounds) { rounds_ = &rounds; }
  // Scans chunk c's pending objects until it has none; what they type in
  // other chunks goes to the chunk's deferred list.
  void scanChunk(size_t c);
  // Applies those of the deferred assignments `list` that are for chunks
  // of part `part` (chunk % parts == part), which no other thread writes
  // meanwhile.
  void applyDeferred(const DeferredAssigns& list, size_t part, size_t parts);
  TypingCounts& counts() { return counts_; }

  void seedMallocHeaders();
  // Types the object at `start` as t (n > 1: an array of about n) from a
  // type the runtime keeps with it (a malloc header, a span's largeType).
  void assignFromHeader(uint64_t start, TypeId t, uint64_t n);
  void seedGlobals();
  void seedFrames();
  void seedFinalizersAndPanics();
  void run();

 private:
  uint32_t ptr() const { return words_.ptrSize(); }
  // The object holding `addr`; none for the runtime's span metadata, which
  // no Go value points into.
  NodeId objectAt(uint64_t addr) const {
    const NodeId o = heap_.addresses().find(addr);
    return o == kNoNode || d_.objects.isSpanMetadata(o) ? kNoNode : o;
  }
  bool readable(const Memory& m, uint64_t addr, uint64_t n) const {
    return addr >= m.base && addr - m.base <= m.size && n <= m.size - (addr - m.base);
  }
  // The word at addr, 0 when outside `m` or not a live slot.
  uint64_t pointerAt(const Memory& m, uint64_t addr) const {
    if (!readable(m, addr, ptr())) return 0;
    const uint64_t v = words_.read(m.bytes + (addr - m.base));
    if (m.live != nullptr && !std::binary_search(m.live->begin(), m.live->end(), addr - m.base)) {
      const NodeId target = heap_.addresses().find(v);
      if (target == kNoNode || !std::binary_search(m.reached.begin(), m.reached.end(), target)) {
        return 0;
      }
    }
    return v;
  }
  // An unsigned integer field of `size` bytes.
  uint64_t uintAt(const Memory& m, uint64_t addr, uint64_t size) const {
    if (size == 0 || size > 8 || !readable(m, addr, size)) return 0;
    uint64_t v = 0;
    const uint8_t* p = m.bytes + (addr - m.base);
    for (uint64_t i = 0; i < size; i++) {
      const uint64_t b = p[words_.bigEndian() ? i : size - 1 - i];
      v = (v << 8) | b;
    }
    return v;
  }

  // Whether the dump lists a pointer slot in object o: only objects that
  // hold pointers have a malloc header.
  bool holdsPointers(NodeId o) const { return d_.objectHasPointers(o); }
  GoKind kindOf(TypeId t) const;
  uint64_t sizeOf(TypeId t) const { return typeSize(dw_, t, ptr()); }
  // The type `t` resolves to (through typedefs and qualifiers), or null.
  const bin::Type* resolvedType(TypeId t) const {
    const TypeId r = dw_.resolve(t);
    return r == kNoType ? nullptr : &dw_.type(r);
  }
  bool hasPointers(TypeId t);
  // Whether `big` holds `small` at its offset 0 (a struct's first field, an
  // array's first element, recursively): a pointer to either is the same.
  bool startsWith(TypeId big, TypeId small) const;
  bool instantiates(TypeId specific, TypeId generic) const;
  TypeId groupTypeOfMap(TypeId map_struct);
  // DWARF knows a type descriptor by its offset from runtime.types.
  TypeId typeAtRuntimeAddress(uint64_t addr) const {
    const uint64_t at = addr - exe_.loadBias();
    if (addr == 0 || types_base_ == 0 || at < types_base_) return kNoType;
    return dw_.typeByRuntimeAddress(at - types_base_);
  }
  bool directIface(uint64_t runtime_type_addr, TypeId t) const;

  void scanValue(const Memory& m, uint64_t addr, TypeId t, TypeId shown, int depth);
  void scanLeaf(const Memory& m, uint64_t addr, TypeId t);
  bool special(TypeId r);  // a runtime or library struct scanned by its own rules
  const std::vector<ScanOp>& layoutOf(TypeId t);
  void buildLayout(TypeId t, uint64_t base, int depth, std::vector<ScanOp>& out);
  void scanStruct(const Memory& m, uint64_t addr, TypeId r, TypeId shown, int depth);
  void scanInterface(const Memory& m, uint64_t addr, TypeId r);
  // Types the target of an interface's data word by its dynamic type.
  void typeInterfaceData(uint64_t type_addr, uint64_t data);
  // Interfaces no typed value reaches (globals without symbols, untyped
  // objects, frames without DWARF): a pointer slot whose preceding word is
  // an itab or a type descriptor the table knows is an interface's data word.
  void seedInterfaceWords();
  // Channels no typed value reaches (a stripped binary's globals, a frame
  // without DWARF): an hchan records its element's type and size.
  void seedChannels();
  // Globals without symbols: what the code stores into them
  // (bin/global_stores.h), where the object they point at fits it.
  void seedGlobalsFromCode();
  // Globals without symbols holding a string or a byte slice: a pointer
  // word to the start of a pointer-free object, then a length that the
  // object's size class fits exactly (and a capacity, for a slice).
  void seedGlobalStrings();
  // Objects the memory profile sampled: the allocation at the site its
  // stack names (bin::findAllocationCalls), where the code passed the
  // allocator a type, or the runtime made a string.
  void seedAllocationSites();
  // A stripped executable's frames: the stack slots the code filled with
  // a new value (bin::findStackSlotValues), live at the frame's PC.
  void seedFramesFromCode();
  // Types object o as what an allocation of `t` made (`what`), where its
  // size class and pointer words fit: one t, an array of t (`cap` elements
  // when known), a map's or chan's header, a string's bytes.
  void assignAllocated(NodeId o, TypeId t, bin::Allocated what, std::optional<uint64_t> cap);
  // What typed pointers into the data and bss segments (an executable
  // without symbols: its globals have no types) say of the globals there:
  // each is scanned as the pointer's target type, once, until no new ones
  // come. Returns whether any was.
  bool seedPointedGlobals();
  // The data or bss segment's memory holding addr, or null.
  const Memory* globalMemory(uint64_t addr) const;
  // Whether object o (untyped, no malloc header) could be n values of t:
  // its size class and its pointer words.
  bool fitsObject(NodeId o, TypeId t, uint64_t n);
  // Untyped objects whose size class and pointer mask fit exactly one type
  // of the table (or one whose pointer fields agree with the types of the
  // objects they point at): typed as that type, marked inferred.
  void inferByShape();
  // Map headers no typed value reaches: an object shaped as the runtime's
  // map header whose group (or bucket) array is typed, or fits the group
  // of one map type only.
  void inferMaps();
  // Whether the pointer words of a value of type t at the start of object
  // o point at objects that could be what t says (their type, or their
  // size class and pointer words): Contradicts at the first that cannot,
  // else Agrees when at least one was checked.
  enum class Agreement { Contradicts, Unchecked, Agrees };
  Agreement targetsAgree(NodeId o, TypeId t);
  // The group or bucket array object a map header at `m` points at, with
  // `header` its map<K,V> or hash<K,V> type; kNoNode if none.
  NodeId groupsOfMap(const Memory& m, TypeId header);
  // A closure's context: an object whose first word is the entry of a
  // function the compiler named as a closure ("main.f.func1", "T.M-fm").
  void inferClosures();
  // A backing array of interfaces: every pointer pair a type descriptor
  // (interface {}) or an itab of one interface, and its data word.
  void inferInterfaceArrays();
  // The GC pointer words of a value of type t at offset `base` (a pointer,
  // map, chan, func, string or slice: one; an interface: two), up to `limit`.
  void pointerWords(TypeId t, uint64_t base, int depth, std::vector<uint64_t>& out);
  void drain();
  void scanObject(NodeId o);
  void scanPiece(const Memory& m, uint64_t addr, TypeId t, uint64_t offset, uint64_t size);

  // Types the object `ptr` points at (its start, after any malloc header).
  void assign(uint64_t ptr, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
              bool approximate = false);
  void assignWeak(uint64_t ptr, TypeForm form);  // string bytes, closures
  // The two above once the object `ptr` points into is known to be o.
  void assignObject(NodeId o, uint64_t ptr, TypeId layout, TypeId shown, uint64_t count,
                    TypeForm form, bool approximate);
  void assignObjectWeak(NodeId o, uint64_t ptr, TypeForm form);
  void set(NodeId o, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
           bool count_guessed);

  // Whether an assignment to object o waits for the thread of o's chunk:
  // while a chunk is scanned, its thread writes no other chunk's objects.
  bool deferred(NodeId o) const { return deferred_ != nullptr && (o < first_ || o >= last_); }
  const TypeAssignment& of(NodeId o) const {
    const uint32_t n = shared_.assignments.get(o);
    if (n >= known_assignments_.size()) [[unlikely]]
      learnAssignments();
    return known_assignments_[n];
  }
  // Copies what other threads added to the table: out of line, so that
  // of() stays small enough to inline.
  [[gnu::noinline]] void learnAssignments() const { shared_.table.extend(known_assignments_); }
  // Gives o the assignment `a`, shared with every object that has it.
  void reassign(NodeId o, const TypeAssignment& a);

  const model::HeapModel& d_;
  const graph::Heap& heap_;
  const binding::BoundExecutable& exe_;
  const bin::DebugInfo& dw_;
  TypingState& shared_;
  TypingRounds* rounds_ = nullptr;
  WordReader words_;
  // This thread's copy of a prefix of shared_.table, and the numbers of
  // the assignments it has made, so that most lookups take no lock.
  mutable std::vector<TypeAssignment> known_assignments_;
  std::unordered_map<TypeAssignment, uint32_t, AssignmentHash> numbers_;
  uint32_t last_assignment_ = 0;
  TypingCounts counts_;
  // The chunk being scanned, [first_, last_), and where assignments to
  // objects outside it go; null outside a scan: every object is written.
  NodeId first_ = 0, last_ = 0;
  DeferredAssigns* deferred_ = nullptr;
  std::vector<int8_t> has_pointers_;  // per TypeId: -1 unknown
  std::unordered_map<uint64_t, uint64_t> itab_type_;
  std::unordered_map<TypeId, TypeId> group_of_map_;
  std::unordered_map<TypeId, std::vector<ScanOp>> layouts_;
  std::vector<int8_t> special_;                            // per TypeId: -1 unknown
  std::array<Memory, 2> segments_{};                       // data and bss (empty when absent)
  std::set<std::pair<uint64_t, TypeId>> scanned_globals_;  // seedPointedGlobals
  uint64_t types_base_ = 0;                                // link-time runtime.types
  goruntime::ReleaseLayout runtime_;
  TypeEvidence evidence_ = TypeEvidence::Table;  // of what set() assigns now
};

}  // namespace goheap::typing
