#include "typing/heap_types.h"

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
#include "typing/assignment_store.h"
#include "typing/pending_objects.h"
#include "typing/release_layout.h"
#include "util/enum_names.h"
#include "util/format.h"
#include "util/go_version.h"
#include "util/large_vector.h"
#include "util/worker_team.h"

namespace goheap::typing {

namespace {

using bin::DwarfTag;
using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

// Arrays longer than this are scanned no further (a corrupt count must not
// turn into a long loop); real Go arrays in one object are far shorter.
constexpr uint64_t kMaxScannedElements = uint64_t{1} << 24;
constexpr int kMaxDepth = 32;  // struct nesting while scanning one value

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
constexpr size_t kMaxMaskWords = 1024;

// Arrays up to this long are flattened into their elements' steps.
constexpr uint64_t kUnrolledElements = 8;

// The runtime's size classes (runtime/sizeclasses.go, the same from Go 1.19
// to 1.27): an object of a small type occupies the smallest that holds it.
constexpr uint16_t kSizeClasses[] = {
    8,     16,    24,    32,    48,    64,    80,    96,    112,   128,   144,  160,   176,   192,
    208,   224,   240,   256,   288,   320,   352,   384,   416,   448,   480,  512,   576,   640,
    704,   768,   896,   1024,  1152,  1280,  1408,  1536,  1792,  2048,  2304, 2688,  3072,  3200,
    3456,  4096,  4864,  5376,  6144,  6528,  6784,  6912,  8192,  9472,  9728, 10240, 10880, 12288,
    13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768};

// Runtime-internal shapes never allocated on their own (noalg.*), and the
// runtime's generic headers (runtime.hmap, runtime.hchan,
// internal/runtime/maps.*), whose instances are a map's or chan's of some
// K, V or T: never a guess.
bool neverAllocatedAlone(std::string_view name) {
  return name.starts_with("noalg.") || name.starts_with("internal/runtime/") ||
         name == "runtime.hmap" || name == "runtime.hchan" || name == "runtime.bmap";
}

// A type of generic code compiled for a shape ("go.shape.int"): no value's
// type (the value's own comes from the dictionary at run time).
bool isShapeType(std::string_view name) {
  return name.find("go.shape.") != std::string_view::npos;
}

uint64_t sizeClassOf(uint64_t size) {
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
    runtime_ = releaseLayout(parseGoVersion(v.empty() ? exe.binary().goVersion() : v), ptr());
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
  ReleaseLayout runtime_;
  TypeEvidence evidence_ = TypeEvidence::Table;  // of what set() assigns now
};

GoKind Typer::kindOf(TypeId t) const {
  return goKind(dw_, t);
}

bool Typer::hasPointers(TypeId t) {
  if (t == kNoType) return false;
  if (has_pointers_[t] >= 0) return has_pointers_[t] != 0;
  has_pointers_[t] = 0;  // a cycle can only pass through a pointer, which answers first
  bool result = false;
  const TypeId r = dw_.resolve(t);
  const GoKind kind = kindOf(t);
  // Strings, slices and interfaces hold a data pointer beside their other word(s).
  if (bin::isPointerShaped(kind) || kind == GoKind::Interface || kind == GoKind::String ||
      kind == GoKind::Slice) {
    result = true;
  } else if (kind == GoKind::Array) {
    result = r != kNoType && dw_.type(r).count > 0 && hasPointers(dw_.type(r).elem);
  } else if (kind == GoKind::Struct && r != kNoType) {
    for (const bin::Field& f : dw_.fields(dw_.type(r))) result = result || hasPointers(f.type);
  }
  has_pointers_[t] = result ? 1 : 0;
  return result;
}

// The linker's synthesized instantiation of a runtime type (hchan<int>,
// sudog<int>, bucket<string,int>, table<K,V>) and the runtime's own
// declaration of it (runtime.hchan, runtime.bmap, maps.table): the same
// memory, the first knowing the element types (and, for a bucket, the keys
// and values after the tophash the generic one declares).
bool Typer::instantiates(TypeId specific, TypeId generic) const {
  static constexpr std::pair<std::string_view, std::string_view> kPairs[] = {
      {"runtime.hchan", "hchan<"},
      {"runtime.sudog", "sudog<"},
      {"runtime.waitq", "waitq<"},
      {"runtime.hmap", "hash<"},
      {"runtime.bmap", "bucket<"},
      {"internal/runtime/maps.Map", "map<"},
      {"internal/runtime/maps.table", "table<"},
      {"internal/runtime/maps.groupReference", "groupReference<"},
  };
  const std::string_view s = dw_.type(dw_.resolve(specific)).name;
  const std::string_view g = dw_.type(dw_.resolve(generic)).name;
  for (const auto& [gen, spec] : kPairs) {
    if (g == gen && s.starts_with(spec)) return sizeOf(specific) >= sizeOf(generic);
  }
  return false;
}

bool Typer::startsWith(TypeId big, TypeId small) const {
  small = dw_.resolve(small);
  for (int hops = 0; big != kNoType && hops < kMaxDepth; hops++) {
    big = dw_.resolve(big);
    if (big == small) return true;
    const bin::Type& b = dw_.type(big);
    if (b.tag == DwarfTag::Array && b.count > 0) {
      big = b.elem;
    } else if (b.tag == DwarfTag::Struct && b.field_count > 0 && dw_.fields(b)[0].offset == 0) {
      big = dw_.fields(b)[0].type;
    } else {
      return false;
    }
  }
  return false;
}

// Go 1.24's map<K,V> points at a single group when it is small (dirLen 0):
// the group type is the one table<K,V>.groups.data points at.
TypeId Typer::groupTypeOfMap(TypeId map_struct) {
  auto [it, inserted] = group_of_map_.try_emplace(map_struct, kNoType);
  if (!inserted) return it->second;
  const std::string_view name = dw_.type(map_struct).name;  // "map<K,V>"
  const std::string table = "table" + std::string(name.substr(3));
  const TypeId t = dw_.typeByName(table);
  if (t == kNoType) return kNoType;
  const bin::Field* groups = dw_.fieldNamed(t, "groups");
  if (groups == nullptr) return kNoType;
  const bin::Field* data = dw_.fieldNamed(groups->type, "data");
  if (data == nullptr) return kNoType;
  const TypeId p = dw_.resolve(data->type);
  if (p == kNoType || dw_.type(p).tag != DwarfTag::Pointer) return kNoType;
  it->second = dw_.type(p).elem;
  return it->second;
}

bool Typer::directIface(uint64_t runtime_type_addr, TypeId t) const {
  const uint64_t at = runtime_type_addr - exe_.loadBias() + runtime_.direct_iface_offset;
  if (std::optional<bin::ByteView> b = exe_.binary().container().readAt(at, 1)) {
    return (b->u8(0) & runtime_.direct_iface_mask) != 0;
  }
  // The descriptor is not in the file: judge by the kind.
  return bin::isPointerShaped(kindOf(t));
}

void Typer::reassign(NodeId o, const TypeAssignment& a) {
  // Objects are mostly typed in runs of one type (a slice's elements, a
  // list's nodes), so the last assignment is worth trying before the table.
  if (known_assignments_[last_assignment_] != a) {
    const auto [it, added] = numbers_.try_emplace(a, 0);
    if (added) it->second = shared_.table.intern(a);
    last_assignment_ = it->second;
    if (last_assignment_ >= known_assignments_.size()) learnAssignments();
  }
  shared_.assignments.set(o, last_assignment_);
}

void Typer::set(NodeId o, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
                bool count_guessed) {
  TypeAssignment a = of(o);
  if (a.form == TypeForm::None) counts_.typed_objects++;
  a.layout = layout;
  a.shown = shown;
  a.count = static_cast<uint32_t>(std::min<uint64_t>(count, UINT32_MAX));
  a.form = form;
  a.count_guessed = count_guessed ? 1 : 0;
  a.evidence = evidence_;
  reassign(o, a);
  // Only what scanObject would read further waits for it: a third of a
  // heap is often strings' bytes and arrays of numbers.
  if (form != TypeForm::Value && form != TypeForm::Array) return;
  bool scanned = hasPointers(layout);
  if (!scanned && form == TypeForm::Value) {
    const TypeId r = dw_.resolve(layout);
    scanned = r != kNoType && special(r);
  }
  if (scanned) {
    const size_t c = shared_.chunkOf(o);
    shared_.pending[c].add(o - shared_.chunkFirst(c));
  }
}

void Typer::assign(uint64_t ptr, TypeId layout, TypeId shown, uint64_t count, TypeForm form,
                   bool approximate) {
  if (ptr == 0 || layout == kNoType) return;
  const NodeId o = objectAt(ptr);
  if (o == kNoNode) return;
  if (deferred(o)) {
    deferred_->push_back({o, static_cast<uint32_t>(ptr - d_.objects.addr[o]),
                          static_cast<uint32_t>(std::min<uint64_t>(count, UINT32_MAX)), layout,
                          shown, form, evidence_, approximate, false});
    return;
  }
  assignObject(o, ptr, layout, shown, count, form, approximate);
}

void Typer::assignObject(NodeId o, uint64_t ptr, TypeId layout, TypeId shown, uint64_t count,
                         TypeForm form, bool approximate) {
  const TypeAssignment had = of(o);
  const uint64_t start = d_.objects.addr[o] + had.data_offset;
  if (ptr != start) return;  // a pointer into the object: it says nothing of the whole
  const uint64_t room = d_.objects.size[o] - had.data_offset;
  const uint64_t elem = sizeOf(layout);
  if (form == TypeForm::Array) {
    if (elem == 0) return;
    if (count * elem > room || count == 0) count = room / elem;
    if (count == 0) return;
  } else if (elem > room) {
    counts_.conflicts++;  // cannot be: the type does not fit the object
    return;
  }
  const uint64_t cover = form == TypeForm::Array ? count * elem : elem;
  switch (had.form) {
    case TypeForm::None:
    case TypeForm::StringBytes:
    case TypeForm::Closure:
      break;  // weaker typings give way
    case TypeForm::Value:
    case TypeForm::Array: {
      const TypeId old = had.layout;
      const uint64_t old_elem = sizeOf(old);
      const uint64_t old_cover =
          had.form == TypeForm::Array ? uint64_t{had.count} * old_elem : old_elem;
      if (old == layout || dw_.resolve(old) == dw_.resolve(layout)) {
        // The same type: a count from a slice's capacity beats one guessed
        // from the slot size; otherwise keep the larger.
        const bool exact_now = had.count_guessed != 0 && !approximate && form == TypeForm::Array;
        if (!exact_now && cover <= old_cover && had.form == form) return;
        if (!exact_now && cover < old_cover) return;
        // The type was known before this count: its evidence stays.
        const TypeEvidence now = evidence_;
        if (evidence_ == TypeEvidence::Inferred) evidence_ = had.evidence;
        set(o, layout, shown, count, form, approximate);
        evidence_ = now;
        return;
      }
      // One Go type under two spellings: a map bucket a malloc header names
      // ("noalg.map.bucket[string]int") and the one synthesized from its map
      // ("bucket<string,int>").
      if (sizeOf(old) == sizeOf(layout) &&
          goTypeName(dw_.type(old).name) == goTypeName(dw_.type(layout).name)) {
        return;
      }
      if (startsWith(layout, old) && cover >= old_cover) break;  // a bigger view of the same
      if (startsWith(old, layout)) return;                       // we know more already
      if (instantiates(layout, old)) break;  // hchan<int> says more than runtime.hchan
      if (instantiates(old, layout)) return;
      counts_.conflicts++;
      return;
    }
  }
  set(o, layout, shown, count, form, approximate);
}

void Typer::assignWeak(uint64_t ptr, TypeForm form) {
  if (ptr == 0) return;
  const NodeId o = objectAt(ptr);
  if (o == kNoNode) return;
  if (deferred(o)) {
    deferred_->push_back({o, static_cast<uint32_t>(ptr - d_.objects.addr[o]), 0, kNoType, kNoType,
                          form, evidence_, false, true});
    return;
  }
  assignObjectWeak(o, ptr, form);
}

void Typer::assignObjectWeak(NodeId o, uint64_t ptr, TypeForm form) {
  if (of(o).form != TypeForm::None) return;
  // A string may point into the middle of its bytes (a substring); a closure
  // pointer is always to the start.
  if (form == TypeForm::Closure && ptr != d_.objects.addr[o]) return;
  counts_.typed_objects++;
  TypeAssignment a = of(o);
  a.form = form;
  a.evidence = evidence_;
  reassign(o, a);
}

// One pointer-holding leaf of a value: a pointer, slice, string, interface,
// map, chan or func at `addr`.
void Typer::scanLeaf(const Memory& m, uint64_t addr, TypeId t) {
  const bin::Type* rt = resolvedType(t);
  if (rt == nullptr) return;
  switch (kindOf(t)) {
    case GoKind::Map:
    case GoKind::Chan:
      // A pointer to the runtime's header (hash<K,V>, map<K,V>, hchan<T>),
      // shown as the map or chan type.
      if (rt->tag == DwarfTag::Pointer) assign(pointerAt(m, addr), rt->elem, t, 0, TypeForm::Value);
      return;
    case GoKind::Func:
      assignWeak(pointerAt(m, addr), TypeForm::Closure);
      return;
    case GoKind::Interface:
      scanInterface(m, addr, dw_.resolve(t));
      return;
    case GoKind::String:
      if (uintAt(m, addr + ptr(), ptr()) > 0) assignWeak(pointerAt(m, addr), TypeForm::StringBytes);
      return;
    case GoKind::Slice: {
      TypeId elem = dw_.type(t).elem != kNoType ? dw_.type(t).elem : rt->elem;
      if (elem == kNoType) {
        // The element type is the pointee of the slice's array field.
        if (const bin::Field* a = dw_.fieldNamed(dw_.resolve(t), "array")) {
          const TypeId p = dw_.resolve(a->type);
          if (p != kNoType) elem = dw_.type(p).elem;
        }
      }
      // Optimized code may keep only the data pointer of a slice on the
      // stack (len and cap stale): then the object's size bounds the count.
      const uint64_t cap = uintAt(m, addr + 2 * ptr(), ptr());
      assign(pointerAt(m, addr), elem, elem, cap, TypeForm::Array, /*approximate=*/cap == 0);
      return;
    }
    case GoKind::Pointer:
      if (rt->tag == DwarfTag::Pointer && rt->elem != kNoType) {
        const uint64_t target = pointerAt(m, addr);
        if (dw_.globals().empty() && target != 0 && objectAt(target) == kNoNode &&
            globalMemory(target) != nullptr) {
          std::lock_guard<std::mutex> lock(shared_.global_targets_lock);
          shared_.global_targets.push_back({target, rt->elem, evidence_});
          return;
        }
        assign(target, rt->elem, rt->elem, 0, TypeForm::Value);
      }
      return;
    default:
      return;
  }
}

void Typer::scanValue(const Memory& m, uint64_t addr, TypeId t, TypeId shown, int depth) {
  if (t == kNoType || depth > kMaxDepth) return;
  const TypeId r = dw_.resolve(t);
  if (r != kNoType && special(r)) {
    scanStruct(m, addr, r, shown, depth);
    return;
  }
  for (const ScanOp& op : layoutOf(t)) {
    const uint64_t at = addr + op.offset;
    switch (op.kind) {
      case ScanOp::Leaf:
        scanLeaf(m, at, op.type);
        break;
      case ScanOp::Special:
        scanStruct(m, at, dw_.resolve(op.type), op.type, depth + 1);
        break;
      case ScanOp::Loop:
        for (uint64_t i = 0; i < op.count; i++) {
          scanValue(m, at + i * op.stride, op.type, op.type, depth + 1);
        }
        break;
    }
  }
}

bool Typer::special(TypeId r) {
  if (special_[r] < 0) {
    const std::string_view n = dw_.type(r).name;
    const bool yes =
        dw_.type(r).tag == DwarfTag::Struct &&
        (n.starts_with("hash<") || n.starts_with("map<") || n.starts_with("table<") ||
         n.starts_with("hchan<") || n == "sync.eface" || n == "sync.Pool" ||
         n.starts_with("sync/atomic.Pointer[") || n.starts_with("internal/sync.HashTrieMap[") ||
         n.starts_with("internal/sync.indirect["));
    special_[r] = yes ? 1 : 0;
  }
  return special_[r] != 0;
}

// A type's pointer-holding parts, flattened through structs and short
// arrays, computed once per type: scanning a value is then a loop, not a
// walk of its DWARF.
const std::vector<ScanOp>& Typer::layoutOf(TypeId t) {
  auto [it, inserted] = layouts_.try_emplace(t);
  if (inserted) buildLayout(t, 0, 0, it->second);
  return it->second;
}

void Typer::buildLayout(TypeId t, uint64_t base, int depth, std::vector<ScanOp>& out) {
  if (t == kNoType || depth > kMaxDepth || !hasPointers(t)) return;
  const bin::Type* rt = resolvedType(t);
  if (rt == nullptr) return;
  switch (kindOf(t)) {
    case GoKind::Map:
    case GoKind::Chan:
    case GoKind::Func:
    case GoKind::Interface:
    case GoKind::String:
    case GoKind::Slice:
    case GoKind::Pointer:
      out.push_back({base, t, ScanOp::Leaf, 0, 0});
      return;
    case GoKind::Array: {
      const uint64_t esize = sizeOf(rt->elem);
      const uint64_t n = std::min(rt->count, kMaxScannedElements);
      if (esize == 0 || n == 0) return;
      if (n <= kUnrolledElements) {
        for (uint64_t i = 0; i < n; i++) buildLayout(rt->elem, base + i * esize, depth + 1, out);
      } else {
        out.push_back({base, rt->elem, ScanOp::Loop, n, esize});
      }
      return;
    }
    case GoKind::Struct:
      if (special(dw_.resolve(t))) {
        out.push_back({base, t, ScanOp::Special, 0, 0});
        return;
      }
      for (const bin::Field& f : dw_.fields(*rt))
        buildLayout(f.type, base + f.offset, depth + 1, out);
      return;
    default:
      return;
  }
}

void Typer::scanStruct(const Memory& m, uint64_t addr, TypeId r, TypeId shown, int depth) {
  const bin::Type& st = dw_.type(r);
  const std::string_view name = st.name;
  std::string_view skip;  // a field typed here, not by the generic walk
  if (name == "sync.eface") {
    scanInterface(m, addr, r);  // sync.Pool's own empty interface: {typ, val}
    return;
  }
  if (name.starts_with("sync/atomic.Pointer[")) {
    // atomic.Pointer[T] keeps its T only in a zero-length `_ [0]*T` field.
    const bin::Field* v = dw_.fieldNamed(r, "v");
    for (const bin::Field& f : dw_.fields(st)) {
      const TypeId a = dw_.resolve(f.type);
      if (f.name != "_" || a == kNoType || dw_.type(a).tag != DwarfTag::Array || v == nullptr) {
        continue;
      }
      const TypeId p = dw_.resolve(dw_.type(a).elem);
      if (p != kNoType && dw_.type(p).tag == DwarfTag::Pointer) {
        assign(pointerAt(m, addr + v->offset), dw_.type(p).elem, dw_.type(p).elem, 0,
               TypeForm::Value);
      }
    }
    return;
  }
  if (name == "sync.Pool") {
    // local and victim point at arrays of localSize / victimSize poolLocals.
    const TypeId local = dw_.typeByName("sync.poolLocal");
    for (auto [ptr_name, size_name] : {std::pair{"local", "localSize"}, {"victim", "victimSize"}}) {
      const bin::Field* p = dw_.fieldNamed(r, ptr_name);
      const bin::Field* n = dw_.fieldNamed(r, size_name);
      if (p == nullptr || n == nullptr || local == kNoType) continue;
      assign(pointerAt(m, addr + p->offset), local, local,
             uintAt(m, addr + n->offset, sizeOf(n->type)), TypeForm::Array);
    }
  }
  const bool trie_root = name.starts_with("internal/sync.HashTrieMap[");
  if (trie_root || name.starts_with("internal/sync.indirect[")) {
    // sync.Map since Go 1.24: a trie of indirect nodes whose children are
    // entries or indirect nodes, told apart by node.isEntry; the DWARF
    // types of the pointers name only the shared node shape.
    const std::string params(name.substr(name.find('[')));
    const TypeId entry = dw_.typeByName("internal/sync.entry" + params);
    const TypeId indirect = dw_.typeByName("internal/sync.indirect" + params);
    auto node = [&](uint64_t p) {
      const NodeId o = objectAt(p);
      if (o == kNoNode || p != d_.objects.addr[o] || d_.objects.size[o] == 0) return;
      const uint8_t is_entry = d_.objectData(o)[0];
      const TypeId t = is_entry != 0 ? entry : indirect;
      assign(p, t, t, 0, TypeForm::Value);
    };
    if (const bin::Field* root = dw_.fieldNamed(r, "root"); root != nullptr && trie_root) {
      skip = "root";
      node(pointerAt(m, addr + root->offset));
    }
    if (const bin::Field* children = dw_.fieldNamed(r, "children"); children != nullptr) {
      skip = "children";
      const TypeId a = dw_.resolve(children->type);
      const uint64_t n = a == kNoType ? 0 : dw_.type(a).count;
      for (uint64_t i = 0; i < n && i < 64; i++)
        node(pointerAt(m, addr + children->offset + i * ptr()));
    }
  } else if (name.starts_with("hash<")) {
    // Go 1.23 and before: buckets is an array of 2^B buckets, oldbuckets
    // (while growing) of 2^(B-1).
    const bin::Field* b = dw_.fieldNamed(r, "B");
    const bin::Field* buckets = dw_.fieldNamed(r, "buckets");
    const bin::Field* old = dw_.fieldNamed(r, "oldbuckets");
    if (b != nullptr && buckets != nullptr) {
      const uint64_t B = std::min<uint64_t>(uintAt(m, addr + b->offset, 1), 40);
      const TypeId p = dw_.resolve(buckets->type);
      const TypeId bucket = p == kNoType ? kNoType : dw_.type(p).elem;
      // For B >= 4 the runtime's makeBucketArray allocates 2^(B-4) spare
      // overflow buckets after the 2^B, and then fills the rest of the
      // size-class slot with more: every bucket of such an array is typed
      // only when its count comes from the object's size. Since Go 1.22
      // such an array over 512 bytes starts after a malloc header.
      const uint64_t bucket_size = bucket == kNoType ? 0 : sizeOf(bucket);
      auto count = [&](uint64_t ptr, uint64_t log2) {
        const uint64_t n = uint64_t{1} << log2;
        const NodeId o = objectAt(ptr);
        if (log2 < 4 || bucket_size == 0 || o == kNoNode) return n;
        const uint64_t header = ptr - d_.objects.addr[o];
        if (header != 0 && header != runtime_.malloc_header_size) return n;
        return std::max(n, (d_.objects.size[o] - header) / bucket_size);
      };
      const uint64_t now = pointerAt(m, addr + buckets->offset);
      assign(now, bucket, bucket, count(now, B), TypeForm::Array);
      if (old != nullptr && B > 0) {
        const uint64_t before = pointerAt(m, addr + old->offset);
        assign(before, bucket, bucket, count(before, B - 1), TypeForm::Array);
      }
    }
  } else if (name.starts_with("map<")) {
    // Go 1.24's Swiss tables: dirPtr is one group while dirLen is 0, else a
    // directory of dirLen tables.
    const bin::Field* dir = dw_.fieldNamed(r, "dirPtr");
    const bin::Field* len = dw_.fieldNamed(r, "dirLen");
    if (dir != nullptr && len != nullptr) {
      skip = "dirPtr";
      const uint64_t n = uintAt(m, addr + len->offset, sizeOf(len->type));
      const uint64_t p = pointerAt(m, addr + dir->offset);
      if (n == 0) {
        const TypeId group = groupTypeOfMap(r);
        assign(p, group, group, 0, TypeForm::Value);
      } else {
        const TypeId pp = dw_.resolve(dir->type);  // **table<K,V>
        const TypeId table_ptr = pp == kNoType ? kNoType : dw_.type(pp).elem;
        assign(p, table_ptr, table_ptr, n, TypeForm::Array);
      }
    }
  } else if (name.starts_with("table<")) {
    const bin::Field* groups = dw_.fieldNamed(r, "groups");
    if (groups != nullptr) {
      const bin::Field* data = dw_.fieldNamed(groups->type, "data");
      const bin::Field* mask = dw_.fieldNamed(groups->type, "lengthMask");
      if (data != nullptr && mask != nullptr) {
        skip = "groups";
        const uint64_t g = addr + groups->offset;
        const TypeId p = dw_.resolve(data->type);
        const TypeId group = p == kNoType ? kNoType : dw_.type(p).elem;
        const uint64_t n = uintAt(m, g + mask->offset, sizeOf(mask->type)) + 1;
        assign(pointerAt(m, g + data->offset), group, group, n, TypeForm::Array);
      }
    }
  } else if (name.starts_with("hchan<")) {
    // The buffer is a separate object when the elements hold pointers.
    const bin::Field* buf = dw_.fieldNamed(r, "buf");
    const bin::Field* size = dw_.fieldNamed(r, "dataqsiz");
    const TypeId elem = shown != kNoType ? dw_.type(shown).elem : kNoType;
    if (buf != nullptr && size != nullptr && elem != kNoType) {
      skip = "buf";
      const uint64_t n = uintAt(m, addr + size->offset, sizeOf(size->type));
      if (n > 0) assign(pointerAt(m, addr + buf->offset), elem, elem, n, TypeForm::Array);
    }
  }
  for (const bin::Field& f : dw_.fields(st)) {
    if (!skip.empty() && f.name == skip) continue;
    scanValue(m, addr + f.offset, f.type, f.type, depth + 1);
  }
}

void Typer::scanInterface(const Memory& m, uint64_t addr, TypeId r) {
  const auto fields = dw_.fields(dw_.type(r));
  if (fields.empty()) return;
  const uint64_t word = pointerAt(m, addr);
  const uint64_t data = pointerAt(m, addr + ptr());
  if (word == 0 || data == 0) return;
  uint64_t type_addr = word;
  if (fields[0].name == "tab") {  // runtime.iface: an itab, not a type
    auto it = itab_type_.find(word);
    if (it == itab_type_.end()) return;
    type_addr = it->second;
  }
  typeInterfaceData(type_addr, data);
}

void Typer::typeInterfaceData(uint64_t type_addr, uint64_t data) {
  const TypeId dyn = typeAtRuntimeAddress(type_addr);
  if (dyn == kNoType) return;
  if (!directIface(type_addr, dyn)) {
    // A boxed copy of the value, allocated at its size (with room for a
    // malloc header): a bigger object is not one, whatever the word before
    // its pointer says.
    const NodeId o = objectAt(data);
    const uint64_t boxed = sizeClassOf(sizeOf(dyn) + ptr());
    if (o != kNoNode && boxed != 0 && d_.objects.size[o] > boxed) return;
    assign(data, dyn, dyn, 0, TypeForm::Value);
    return;
  }
  // The data word is the value: a pointer, map, chan or func.
  const TypeId dr = dw_.resolve(dyn);
  switch (kindOf(dyn)) {
    case GoKind::Pointer:
      if (dr != kNoType && dw_.type(dr).elem != kNoType) {
        assign(data, dw_.type(dr).elem, dw_.type(dr).elem, 0, TypeForm::Value);
      }
      break;
    case GoKind::Map:
    case GoKind::Chan:
      if (dr != kNoType) assign(data, dw_.type(dr).elem, dyn, 0, TypeForm::Value);
      break;
    case GoKind::Func:
      assignWeak(data, TypeForm::Closure);
      break;
    default:
      break;
  }
}

void Typer::scanObject(NodeId o) {
  const TypeAssignment a = of(o);
  if (a.form != TypeForm::Value && a.form != TypeForm::Array) return;
  // What a guess points at is a guess too.
  evidence_ = a.evidence == TypeEvidence::Inferred ? TypeEvidence::Inferred : TypeEvidence::Table;
  Memory m{d_.objectData(o), d_.objects.addr[o], d_.objects.size[o], nullptr, {}};
  const uint64_t start = m.base + a.data_offset;
  const TypeId t = a.layout;
  if (a.form == TypeForm::Value) {
    scanValue(m, start, t, a.shown, 0);
    return;
  }
  const uint64_t esize = sizeOf(t);
  if (esize == 0 || !hasPointers(t)) return;
  const uint64_t n = std::min<uint64_t>(a.count, kMaxScannedElements);
  for (uint64_t i = 0; i < n; i++) scanValue(m, start + i * esize, t, t, 0);
}

void Typer::seedMallocHeaders() {
  // A small object of more than 8 words per pointer bit (512 bytes on
  // 64-bit, 128 on 32-bit) that holds pointers starts with a pointer to its
  // type; pointers to it point past that header. Large objects (more than
  // 32 KiB) keep their type in the span instead. The header is there
  // whether or not DWARF knows its type (Go 1.27 leaves out types only the
  // runtime's allocations name, such as runtime.mPadded).
  const uint8_t header = runtime_.malloc_header_size;
  if (header == 0) return;
  const uint64_t threshold = uint64_t{ptr()} * ptr() * 8;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (size <= threshold || size > 32768 || !holdsPointers(o)) continue;
    TypeAssignment with_header = of(o);
    with_header.data_offset = header;
    reassign(o, with_header);
    const TypeId t = typeAtRuntimeAddress(words_.read(d_.objectData(o)));
    if (t == kNoType) continue;
    const uint64_t esize = sizeOf(t);
    if (esize == 0) continue;
    assignFromHeader(d_.objects.addr[o] + header, t, (size - header) / esize);
  }
  // Large objects keep their type in the span: a core gives it.
  for (const model::LargeObjectType& large : d_.large_object_types) {
    const TypeId t = typeAtRuntimeAddress(large.type_addr);
    const NodeId o = objectAt(large.addr);
    const uint64_t esize = t == kNoType ? 0 : sizeOf(t);
    if (esize == 0 || o == kNoNode || d_.objects.addr[o] != large.addr) continue;
    assignFromHeader(large.addr, t, d_.objects.size[o] / esize);
  }
}

void Typer::assignFromHeader(uint64_t start, TypeId t, uint64_t n) {
  counts_.typed_from_headers++;
  // The header names the element type of an array: the slot size only
  // bounds its length, which a slice's capacity may tell exactly later.
  evidence_ = TypeEvidence::Header;
  if (n > 1) {
    assign(start, t, t, n, TypeForm::Array, /*approximate=*/true);
  } else {
    assign(start, t, t, 0, TypeForm::Value);
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedGlobals() {
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const Memory m{d_.bytes(seg->contents).data(), seg->addr, seg->contents.size, nullptr, {}};
    for (const bin::GlobalVariable& g : dw_.globals()) {
      const uint64_t addr = g.address + exe_.loadBias();
      if (addr < m.base || addr - m.base >= m.size) continue;
      scanValue(m, addr, g.type, g.type, 0);
    }
  }
}

void Typer::seedFrames() {
  std::vector<uint64_t> live;
  for (const model::StackFrame& fr : d_.frames) {
    const uint64_t pc = fr.pc - exe_.loadBias();
    const bin::Function* fn = dw_.functionAt(fr.pc == fr.entry_pc ? pc : pc - 1);
    if (fn == nullptr) continue;
    live.clear();
    d_.forEachSlot(fr.layout, [&](uint64_t off) { live.push_back(off); });
    std::sort(live.begin(), live.end());
    const auto frame_index = static_cast<uint32_t>(&fr - d_.frames.data());
    const Memory m{d_.bytes(fr.contents).data(), fr.sp, fr.contents.size, &live,
                   heap_.successors.neighbors(heap_.frameNode(frame_index))};
    const uint64_t cfa = fr.sp + fr.contents.size;
    const uint64_t at_pc = fr.pc == fr.entry_pc ? pc : pc - 1;
    for (const bin::FrameVariable& v : dw_.variables(*fn)) {
      if (v.cfa_offset) {
        const uint64_t addr = cfa + static_cast<uint64_t>(*v.cfa_offset);
        // Parameters passed on the stack lie in the caller's frame; the
        // registers' spill slots and locals in this one.
        if (readable(m, addr, sizeOf(v.type))) scanValue(m, addr, v.type, v.type, 0);
        continue;
      }
      // Optimized code: where the variable is at this PC, if on the stack.
      for (const bin::LocationRange& r : dw_.locations(v)) {
        if (at_pc < r.lo || at_pc >= r.hi) continue;
        const uint64_t addr = cfa + static_cast<uint64_t>(r.cfa_offset);
        if (r.piece_size == 0) {
          if (readable(m, addr, sizeOf(v.type))) scanValue(m, addr, v.type, v.type, 0);
        } else {
          scanPiece(m, addr, v.type, r.piece_offset, r.piece_size);
        }
      }
    }
  }
}

// One piece of a variable optimized code keeps partly in registers: the
// part of its type the piece holds, when it is a whole field, or a slice's or
// string's data pointer.
void Typer::scanPiece(const Memory& m, uint64_t addr, TypeId t, uint64_t offset, uint64_t size) {
  for (int depth = 0; t != kNoType && depth < kMaxDepth; depth++) {
    if (offset == 0 && sizeOf(t) == size) {
      if (readable(m, addr, size)) scanValue(m, addr, t, t, 0);
      return;
    }
    const bin::Type* rt = resolvedType(t);
    if (rt == nullptr) return;
    switch (kindOf(t)) {
      case GoKind::Slice:
        if (offset == 0 && size == ptr()) {
          // The capacity is elsewhere: the object's size bounds the count.
          const TypeId elem = dw_.type(t).elem != kNoType ? dw_.type(t).elem : rt->elem;
          assign(pointerAt(m, addr), elem, elem, 0, TypeForm::Array, /*approximate=*/true);
        }
        return;
      case GoKind::String:
        if (offset == 0 && size == ptr()) assignWeak(pointerAt(m, addr), TypeForm::StringBytes);
        return;
      case GoKind::Struct: {
        const bin::Field* inside = nullptr;
        for (const bin::Field& f : dw_.fields(*rt)) {
          if (offset >= f.offset && offset < f.offset + std::max<uint64_t>(sizeOf(f.type), 1)) {
            inside = &f;
          }
        }
        if (inside == nullptr) return;
        offset -= inside->offset;
        t = inside->type;
        continue;
      }
      case GoKind::Array: {
        const uint64_t esize = sizeOf(rt->elem);
        if (esize == 0) return;
        offset %= esize;
        t = rt->elem;
        continue;
      }
      default:
        return;
    }
  }
}

void Typer::seedFinalizersAndPanics() {
  for (const model::Finalizer& f : d_.finalizers) {
    // ot is the *T the finalizer was set on.
    const TypeId ot = typeAtRuntimeAddress(f.obj_type);
    const TypeId r = dw_.resolve(ot);
    if (r != kNoType && dw_.type(r).tag == DwarfTag::Pointer) {
      assign(f.obj, dw_.type(r).elem, dw_.type(r).elem, 0, TypeForm::Value);
    }
    assignWeak(f.fn_val, TypeForm::Closure);
  }
  for (const model::Panic& p : d_.panics) {
    const TypeId t = typeAtRuntimeAddress(p.eface_type);
    if (t == kNoType) continue;
    if (!directIface(p.eface_type, t)) {
      assign(p.eface_data, t, t, 0, TypeForm::Value);
    } else if (kindOf(t) == GoKind::Pointer) {
      const TypeId r = dw_.resolve(t);
      assign(p.eface_data, dw_.type(r).elem, dw_.type(r).elem, 0, TypeForm::Value);
    }
  }
}

void Typer::seedInterfaceWords() {
  // Itabs and descriptors lie in the executable's read-only data: a range
  // check spares the lookups for almost every word.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [itab, type] : itab_type_) {
    lo = std::min(lo, itab);
    hi = std::max(hi, itab);
  }
  if (const auto& m = exe_.binary().moduleLayout(); m && m->etypes > m->types) {
    lo = std::min(lo, m->types + exe_.loadBias());
    hi = std::max(hi, m->etypes + exe_.loadBias());
  }
  if (lo > hi) return;
  auto check = [&](const uint8_t* contents, uint64_t off) {
    if (off < ptr()) return;
    uint64_t type_word = words_.read(contents + off - ptr());
    if (type_word < lo || type_word > hi) return;
    const uint64_t data = words_.read(contents + off);
    const NodeId target = objectAt(data);
    if (target == kNoNode || of(target).form != TypeForm::None) return;  // typed already
    if (auto it = itab_type_.find(type_word); it != itab_type_.end()) type_word = it->second;
    evidence_ = TypeEvidence::Interface;
    typeInterfaceData(type_word, data);
    evidence_ = TypeEvidence::Table;
  };
  auto scanRange = [&](model::ByteRange contents, uint32_t layout) {
    const uint8_t* bytes = d_.bytes(contents).data();
    d_.forEachSlot(layout, [&](uint64_t off) { check(bytes, off); });
  };
  if (d_.data.present) scanRange(d_.data.contents, d_.data.layout);
  if (d_.bss.present) scanRange(d_.bss.contents, d_.bss.layout);
  for (const model::StackFrame& f : d_.frames) scanRange(f.contents, f.layout);
  // Typed objects' interfaces were read with their types.
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None) continue;
    const uint8_t* bytes = d_.objectData(o);
    d_.forEachObjectSlot(o, [&](uint64_t off) { check(bytes, off); });
  }
}

void Typer::run() {
  const uint64_t before = counts_.typed_objects;
  seedGlobals();
  seedFrames();
  seedFinalizersAndPanics();
  counts_.typed_from_roots = counts_.typed_objects - before;
  drain();
  seedInterfaceWords();
  drain();
  seedChannels();
  drain();
  seedGlobalsFromCode();
  drain();
  while (seedPointedGlobals()) drain();
  seedGlobalStrings();
  seedAllocationSites();
  seedFramesFromCode();
  drain();
  inferMaps();
  drain();
  // What its contents tell first: a closure's code pointer, the types and
  // itabs of interfaces; then the masks.
  inferClosures();
  inferInterfaceArrays();
  drain();
  inferByShape();
  drain();
  while (seedPointedGlobals()) drain();
}

void Typer::scanChunk(size_t c) {
  first_ = shared_.chunkFirst(c);
  last_ = static_cast<NodeId>(std::min<size_t>(first_ + shared_.chunk_size, kNoNode));
  deferred_ = &shared_.deferred[c];
  PendingObjects& pending = shared_.pending[c];
  while (!pending.empty()) scanObject(first_ + pending.take());
  deferred_ = nullptr;
  evidence_ = TypeEvidence::Table;
}

void Typer::applyDeferred(const DeferredAssigns& list, size_t part, size_t parts) {
  for (const DeferredAssign& a : list) {
    if (shared_.chunkOf(a.target) % parts != part) continue;
    evidence_ = a.evidence;
    const uint64_t ptr = d_.objects.addr[a.target] + a.offset;
    if (a.weak) {
      assignObjectWeak(a.target, ptr, a.form);
    } else {
      assignObject(a.target, ptr, a.layout, a.shown, a.count, a.form, a.approximate);
    }
  }
  evidence_ = TypeEvidence::Table;
}

// The typing pass's scan of pending objects, in rounds over every thread.
//
// A round scans a wave of chunks: those with pending objects among
// TypingOptions::chunks_per_wave consecutive ones, each on one thread. A
// chunk's scan sweeps its objects in address order, as many times as its
// own assignments add objects to scan, and writes its own objects only;
// what it finds for an object of another chunk is deferred. The deferred
// assignments are then applied chunk by chunk, each chunk's in the order
// of the chunks that made them and, within one, in the order they were
// made. Waves follow each other in address order, and the sweep of waves
// starts again until no chunk has objects to scan: as in a serial sweep,
// what a wave types ahead of it is scanned in the same sweep. Only one
// wave's deferred assignments are held at a time.
//
// So what every step reads and writes depends on the chunks alone, never on
// which thread ran it or when: the types come out the same on any number of
// threads. A heap of one chunk is the serial sweep exactly.
class TypingRounds {
 public:
  TypingRounds(TypingState& shared, std::vector<Typer*> typers, WorkerTeam& team,
               const TypingOptions& options)
      : shared_(shared), typers_(std::move(typers)), team_(team), options_(options) {}

  void drain() {
    const size_t count = shared_.pending.size();
    const size_t per_wave = std::max<size_t>(1, options_.chunks_per_wave);
    std::vector<size_t> chunks;
    for (bool swept_any = true; swept_any;) {
      swept_any = false;
      for (size_t first = 0; first < count; first += per_wave) {
        chunks.clear();
        for (size_t c = first; c < std::min(count, first + per_wave); c++) {
          if (!shared_.pending[c].empty()) chunks.push_back(c);
        }
        if (chunks.empty()) continue;
        swept_any = true;
        round(chunks);
      }
    }
    for (size_t w = 1; w < typers_.size(); w++) {
      typers_[0]->counts() += typers_[w]->counts();
      typers_[w]->counts() = {};
    }
  }

  // Calls fn(typer, part) for each part in [0, parts), on every thread,
  // with the calling thread's Typer; for work that reads the assignments
  // and writes none.
  void forEachPart(size_t parts, const std::function<void(Typer&, size_t)>& fn) {
    team_.run(parts, workers(), [&](unsigned w, size_t p) { fn(*typers_[w], p); });
  }

 private:
  // Scans `chunks` (ascending), then applies what they deferred.
  void round(const std::vector<size_t>& chunks) {
    // Waking a thread costs tens of microseconds, and a long list whose
    // nodes lie far apart takes a round per node: a round with little to
    // do runs on this thread alone (which thread runs it changes nothing).
    size_t pending = 0;
    for (const size_t c : chunks) pending += shared_.pending[c].size();
    const auto scan = [&](unsigned w, size_t i) { typers_[w]->scanChunk(chunks[i]); };
    const bool shared = pending >= options_.fewest_to_share && chunks.size() > 1;
    if (shared) {
      team_.run(chunks.size(), workers(), scan);
    } else {
      team_.run(chunks.size(), 1u, scan);
    }
    // The deferred assignments in the order made: by the chunks that made
    // them, then as each made them. Every chunk they are for is one part's
    // (its number modulo the parts), and each part's thread reads them all
    // and applies its own: no two threads write one chunk, and each chunk
    // gets its assignments in that order.
    size_t deferred = 0;
    for (const size_t c : chunks) deferred += shared_.deferred[c].size();
    // As many parts as threads may work now: any split applies each
    // chunk's assignments in the same order.
    const size_t parts = deferred < options_.fewest_to_share
                             ? 1
                             : std::clamp<size_t>(workers().load(), 1, typers_.size());
    if (options_.rounds != nullptr) {
      options_.rounds->rounds++;
      options_.rounds->shared += shared || parts > 1 ? 1 : 0;
    }
    team_.run(parts, workers(), [&](unsigned w, size_t part) {
      for (const size_t c : chunks) typers_[w]->applyDeferred(shared_.deferred[c], part, parts);
    });
    for (const size_t c : chunks) DeferredAssigns().swap(shared_.deferred[c]);
  }

  // How many threads may work now; it may grow during a round.
  const std::atomic<unsigned>& workers() const {
    return options_.threads_now != nullptr ? *options_.threads_now : all_threads_;
  }

  TypingState& shared_;
  std::vector<Typer*> typers_;  // one per worker of the team; [0] runs the seeds
  WorkerTeam& team_;
  const TypingOptions& options_;
  const std::atomic<unsigned> all_threads_{options_.threads};
};

void Typer::drain() {
  rounds_->drain();
  evidence_ = TypeEvidence::Table;
}

void Typer::pointerWords(TypeId t, uint64_t base, int depth, std::vector<uint64_t>& out) {
  if (t == kNoType || depth > kMaxDepth || !hasPointers(t) || out.size() > kMaxMaskWords) return;
  const TypeId r = dw_.resolve(t);
  switch (kindOf(t)) {
    case GoKind::Interface:
      // The compiler's mask leaves out the type or itab word, which points
      // at no heap object (cmd/compile's typebits.Set).
      out.push_back(base + ptr());
      return;
    case GoKind::Map:
    case GoKind::Chan:
    case GoKind::Func:
    case GoKind::Pointer:
    case GoKind::UnsafePointer:
    case GoKind::String:
    case GoKind::Slice:
      out.push_back(base);
      return;
    case GoKind::Array: {
      if (r == kNoType) return;
      const uint64_t esize = sizeOf(dw_.type(r).elem);
      for (uint64_t i = 0; i < dw_.type(r).count && i < kMaxMaskWords && esize > 0; i++) {
        pointerWords(dw_.type(r).elem, base + i * esize, depth + 1, out);
      }
      return;
    }
    case GoKind::Struct:
      if (r == kNoType) return;
      for (const bin::Field& f : dw_.fields(dw_.type(r))) {
        pointerWords(f.type, base + f.offset, depth + 1, out);
      }
      return;
    default:
      return;
  }
}

void Typer::inferByShape() {
  // Candidates: the table's real Go types (those with a descriptor) that
  // hold pointers, by (size class, pointer words).
  std::map<std::pair<uint64_t, std::vector<uint64_t>>, std::vector<TypeId>> by_shape;
  std::vector<uint64_t> words;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.runtime_type == 0 || ty.tag == DwarfTag::Typedef || ty.size == 0) continue;
    if (ty.kind != GoKind::Struct && ty.kind != GoKind::Array) continue;
    const bool runtime =
        ty.name.starts_with("runtime.") || ty.name.starts_with("internal/runtime/");
    if (neverAllocatedAlone(ty.name) || isShapeType(ty.name)) continue;
    const uint64_t slot = sizeClassOf(ty.size);
    if (slot == 0) continue;
    words.clear();
    pointerWords(t, 0, 0, words);
    // The runtime's own structs (its g, m and p on Go 1.21 and before,
    // which have no malloc header) only by a mask of their own: one of a
    // few words could be many a program's.
    if (words.empty() || words.size() > kMaxMaskWords || (runtime && words.size() < 4)) continue;
    by_shape[{slot, words}].push_back(t);
  }
  if (by_shape.empty()) return;
  // Element shapes: any object might be the backing array of a slice of
  // some element type, whose descriptor the table need not have as an
  // array ([]*T's [cap]*T): a mask such an array explains is ambiguous.
  // The element types by their size and pointer mask.
  std::map<uint64_t, std::map<std::vector<uint64_t>, std::vector<TypeId>>> elements;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    // Named types are typedefs in DWARF: the structs are not, the named
    // interfaces are, and an array of them is as plausible as of any.
    if (ty.runtime_type == 0 || (ty.tag == DwarfTag::Typedef && ty.kind != GoKind::Interface)) {
      continue;
    }
    const uint64_t size = sizeOf(t);
    if (size == 0 || size > 16384) continue;
    words.clear();
    pointerWords(t, 0, 0, words);
    if (!words.empty() && words.size() <= kMaxMaskWords) elements[size][words].push_back(t);
  }
  // The element types E and sizes of the arrays [k]E (k >= 2, the last
  // element holding the last pointer word) whose mask is `mask`: the first
  // element's mask repeated k times. Adds them to `out`.
  using Candidate = std::pair<TypeId, uint64_t>;  // a type, and its size if an element type
  auto explainedByArray = [&](uint64_t object_size, const std::vector<uint64_t>& mask,
                              std::vector<uint64_t>& first, std::vector<Candidate>& out) {
    for (const auto& [esize, masks] : elements) {
      const uint64_t k = mask.back() / esize + 1;
      if (k < 2 || k * esize > object_size || mask.size() % k != 0) continue;
      const size_t per = mask.size() / k;
      first.assign(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(per));
      auto it = masks.find(first);
      if (it == masks.end()) continue;
      bool same = true;
      for (size_t i = per; i < mask.size() && same; i++) {
        same = mask[i] == mask[i - per] + esize;
      }
      if (!same) continue;
      for (TypeId e : it->second) out.emplace_back(e, esize);
    }
  };
  const uint64_t header_threshold =
      runtime_.malloc_header_size != 0 ? uint64_t{ptr()} * ptr() * 8 : UINT64_MAX;
  // First the candidates of every untyped object: they depend on its own
  // bytes and the table alone (and this loop types nothing), so they are
  // found on every thread, in parts of the heap put back in order.
  struct Shaped {
    NodeId object;
    uint32_t first, count;  // its candidates in the part's list
  };
  struct Part {
    std::vector<Shaped> objects;
    std::vector<Candidate> candidates;
  };
  const size_t n = heap_.objectCount();
  std::vector<Part> parts(std::min<size_t>(64, n / 4096 + 1));
  rounds_->forEachPart(parts.size(), [&](Typer& self, size_t p) {
    std::vector<uint64_t> mask, first;
    Part& part = parts[p];
    for (NodeId o = static_cast<NodeId>(n * p / parts.size()); o < n * (p + 1) / parts.size();
         o++) {
      if (self.of(o).form != TypeForm::None || !holdsPointers(o)) continue;
      const uint64_t size = d_.objects.size[o];
      if (size > header_threshold || size > 32768) continue;  // headers name those
      mask.clear();
      d_.forEachObjectSlot(o, [&](uint64_t off) { mask.push_back(off); });
      std::sort(mask.begin(), mask.end());
      // Candidates: the structs of this shape, and the element types of
      // the arrays whose mask it is (a slice's backing array).
      const size_t before = part.candidates.size();
      if (auto it = by_shape.find({size, mask}); it != by_shape.end()) {
        for (TypeId t : it->second) part.candidates.emplace_back(t, 0);
      }
      explainedByArray(size, mask, first, part.candidates);
      const size_t count = part.candidates.size() - before;
      // A closure's context starts with its function's entry: no Go type.
      if (count == 0 || exe_.functionEntry(words_.read(d_.objectData(o))) != nullptr) {
        part.candidates.resize(before);
        continue;
      }
      part.objects.push_back({o, static_cast<uint32_t>(before), static_cast<uint32_t>(count)});
    }
  });
  // Then, in id order, the one whose pointer fields agree with what they
  // point at: the types of those objects, some typed by this loop.
  evidence_ = TypeEvidence::Inferred;
  std::vector<Candidate> candidates;
  for (const Part& part : parts) {
    for (const Shaped& shaped : part.objects) {
      const NodeId o = shaped.object;
      const uint64_t size = d_.objects.size[o];
      candidates.assign(part.candidates.begin() + shaped.first,
                        part.candidates.begin() + shaped.first + shaped.count);
      // Several fit: keep the one whose pointer fields (the first
      // element's, for an array) agree with the objects they point at
      // (their types, or their shapes), when exactly one does.
      if (candidates.size() > 1) {
        std::erase_if(candidates,
                      [&](const auto& c) { return targetsAgree(o, c.first) != Agreement::Agrees; });
      } else if (targetsAgree(o, candidates.front().first) == Agreement::Contradicts) {
        continue;  // one fits, but what it points at says otherwise
      }
      if (candidates.size() != 1) continue;
      const auto [chosen, esize] = candidates.front();
      if (esize == 0) {
        assign(d_.objects.addr[o] + of(o).data_offset, chosen, chosen, 0, TypeForm::Value);
      } else {
        // Only arrays of structs: a mask of pointers or strings repeated
        // is any slice's of them.
        if (kindOf(chosen) != GoKind::Struct || neverAllocatedAlone(dw_.type(chosen).name)) {
          continue;
        }
        assign(d_.objects.addr[o], chosen, chosen, size / esize, TypeForm::Array,
               /*approximate=*/true);
      }
      if (of(o).form != TypeForm::None) counts_.inferred_objects++;
    }
  }
  evidence_ = TypeEvidence::Table;
}

bool Typer::fitsObject(NodeId o, TypeId t, uint64_t n) {
  const uint64_t size = d_.objects.size[o];
  const uint64_t esize = sizeOf(t);
  if (esize == 0 || n == 0 || n > size / esize) return false;
  const uint64_t need = esize * n;
  // A small object takes the smallest size class that holds it; a large
  // one, whole pages.
  constexpr uint64_t kPage = 8192;
  if (need <= kSizeClasses[std::size(kSizeClasses) - 1] ? sizeClassOf(need) != size
                                                        : size - need >= kPage) {
    return false;
  }
  std::vector<uint64_t> want, got;
  uint64_t covered = 0;  // the bytes `want` describes
  for (uint64_t i = 0; i < n && want.size() <= kMaxMaskWords; i++, covered += esize) {
    pointerWords(t, i * esize, 0, want);
  }
  d_.forEachObjectSlot(o, [&](uint64_t off) {
    if (off < covered) got.push_back(off);
  });
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  std::erase_if(want, [&](uint64_t off) { return off >= covered; });
  return want == got;
}

void Typer::seedGlobalsFromCode() {
  if (!dw_.globals().empty()) return;  // the symbols typed them
  // The global words pointing at objects nothing has typed.
  const uint64_t bias = exe_.loadBias();
  std::vector<uint64_t> wanted, slots;  // link-time; run-time
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const uint8_t* bytes = d_.bytes(seg->contents).data();
    d_.forEachSlot(seg->layout, [&](uint64_t off) {
      if (off + ptr() > seg->contents.size) return;
      slots.push_back(seg->addr + off);
      const NodeId o = objectAt(words_.read(bytes + off));
      // Untyped, or an array whose count a malloc header left to guess.
      const bool open = o != kNoNode && (of(o).form == TypeForm::None || of(o).count_guessed != 0);
      if (open) wanted.push_back(seg->addr + off - bias);
    });
  }
  if (wanted.empty()) return;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::sort(slots.begin(), slots.end());
  const std::vector<bin::GlobalStore> seen = bin::findGlobalStores(exe_.binary(), wanted);

  // What each sighting says of the object the global points at: one t, an
  // array of t, or (a map or chan) the global's own value is a t; or (a
  // method's receiver) the global is a t, a struct.
  enum class How : uint8_t { Object, Array, Direct, Global };
  auto claimOf = [&](const bin::GlobalStore& g) -> std::optional<std::pair<TypeId, How>> {
    if (g.what == bin::StoredValue::Receiver) {
      const TypeId t = dw_.typeByName(g.type_name);
      if (t == kNoType || !hasPointers(t)) return std::nullopt;
      return std::pair{t, How::Global};
    }
    const TypeId t = typeAtRuntimeAddress(g.type + bias);
    // Generic code compiled for a shape names the shape, not a value's type.
    if (t == kNoType || isShapeType(dw_.type(t).name)) {
      return std::nullopt;
    }
    switch (g.what) {
      case bin::StoredValue::NewObject:
        return std::pair{t, How::Object};
      case bin::StoredValue::NewArray:
        return std::pair{t, How::Array};
      case bin::StoredValue::Receiver:
        return std::nullopt;
      case bin::StoredValue::Value: {
        const GoKind k = kindOf(t);
        if (k == GoKind::Map || k == GoKind::Chan) return std::pair{t, How::Direct};
        const TypeId r = dw_.resolve(t);
        if (k == GoKind::Pointer && r != kNoType && dw_.type(r).elem != kNoType) {
          return std::pair{dw_.type(r).elem, How::Object};
        }
        return std::nullopt;
      }
    }
    return std::nullopt;
  };
  const Memory segments[] = {{d_.bytes(d_.data.contents).data(),
                              d_.data.addr,
                              d_.data.present ? d_.data.contents.size : 0,
                              nullptr,
                              {}},
                             {d_.bytes(d_.bss.contents).data(),
                              d_.bss.addr,
                              d_.bss.present ? d_.bss.contents.size : 0,
                              nullptr,
                              {}}};
  evidence_ = TypeEvidence::Inferred;
  for (size_t i = 0, j = 0; i < seen.size(); i = j) {
    // Every sighting of a global must say the same. A slice that one
    // sighting grows (an array of T) and another fills with a composite
    // literal (one [N]T) says the same: an array of T.
    std::vector<std::optional<std::pair<TypeId, How>>> claims;
    for (j = i; j < seen.size() && seen[j].global == seen[i].global; j++) {
      claims.push_back(claimOf(seen[j]));
    }
    for (const auto& grown : claims) {
      if (!grown || grown->second != How::Array) continue;
      for (auto& c : claims) {
        if (!c || c->second != How::Object || kindOf(c->first) != GoKind::Array) continue;
        const TypeId r = dw_.resolve(c->first);
        if (r != kNoType && dw_.resolve(dw_.type(r).elem) == dw_.resolve(grown->first)) {
          c = grown;
        }
      }
    }
    const auto claim = claims.front();
    const bool agree = claim.has_value() && std::all_of(claims.begin(), claims.end(),
                                                        [&](const auto& c) { return c == claim; });
    if (!agree) continue;
    const uint64_t addr = seen[i].global + bias;
    const Memory* m = nullptr;
    for (const Memory& s : segments) {
      if (readable(s, addr, ptr())) m = &s;
    }
    if (m == nullptr) continue;
    const auto [t, how] = *claim;
    if (how == How::Global) {
      // The global's pointer words (its GC mask) must be t's.
      std::vector<uint64_t> words;
      pointerWords(t, 0, 0, words);
      const bool fits =
          readable(*m, addr, sizeOf(t)) && std::all_of(words.begin(), words.end(), [&](uint64_t w) {
            return std::binary_search(slots.begin(), slots.end(), addr + w);
          });
      if (fits) scanValue(*m, addr, t, t, 0);
      continue;
    }
    const uint64_t target = pointerAt(*m, addr);
    const NodeId o = objectAt(target);
    if (o == kNoNode) continue;
    // An array a malloc header typed, its count guessed from the slot: the
    // slice's capacity says how many.
    const TypeAssignment& had = of(o);
    if (how == How::Array && had.form == TypeForm::Array && had.count_guessed != 0 &&
        target == d_.objects.addr[o] + had.data_offset &&
        dw_.resolve(had.layout) == dw_.resolve(t)) {
      const uint64_t cap = uintAt(*m, addr + 2 * ptr(), ptr());
      if (cap > 0 && cap <= had.count) assign(target, t, t, cap, TypeForm::Array);
      continue;
    }
    if (had.form != TypeForm::None || target != d_.objects.addr[o]) continue;
    if (how == How::Object) {
      if (fitsObject(o, t, 1)) assign(target, t, t, 0, TypeForm::Value);
    } else if (how == How::Array) {
      // A slice: its capacity two words on.
      const uint64_t cap = uintAt(*m, addr + 2 * ptr(), ptr());
      if (fitsObject(o, t, cap)) assign(target, t, t, cap, TypeForm::Array);
    } else {
      const TypeId r = dw_.resolve(t);
      const TypeId header = r == kNoType ? kNoType : dw_.type(r).elem;
      if (header != kNoType && fitsObject(o, header, 1)) scanValue(*m, addr, t, t, 0);
    }
  }
  evidence_ = TypeEvidence::Table;
}

const Memory* Typer::globalMemory(uint64_t addr) const {
  for (const Memory& m : segments_) {
    if (readable(m, addr, 1)) return &m;
  }
  return nullptr;
}

bool Typer::seedPointedGlobals() {
  std::vector<TypingState::GlobalTarget> targets;
  {
    std::lock_guard<std::mutex> lock(shared_.global_targets_lock);
    targets.swap(shared_.global_targets);
  }
  // In a fixed order, whichever thread found them first; each (address,
  // type) once, with its best evidence.
  std::sort(targets.begin(), targets.end());
  bool any = false;
  for (size_t i = 0; i < targets.size(); i++) {
    const TypingState::GlobalTarget& t = targets[i];
    if (i > 0 && targets[i - 1].addr == t.addr && targets[i - 1].type == t.type) continue;
    if (!scanned_globals_.emplace(t.addr, t.type).second) continue;
    const Memory* m = globalMemory(t.addr);
    if (m == nullptr || !readable(*m, t.addr, std::max<uint64_t>(sizeOf(t.type), 1))) continue;
    evidence_ = t.evidence;
    scanValue(*m, t.addr, t.type, t.type, 0);
    any = true;
  }
  evidence_ = TypeEvidence::Table;
  return any;
}

void Typer::assignAllocated(NodeId o, TypeId t, bin::Allocated what, std::optional<uint64_t> cap) {
  if (t == kNoType && what != bin::Allocated::StringBytes) return;
  // Generic code is compiled once per shape: a shape's descriptor there is
  // no value's type (the value's own comes from the dictionary at run time).
  if (t != kNoType && isShapeType(dw_.type(t).name)) return;
  const uint64_t addr = d_.objects.addr[o];
  switch (what) {
    case bin::Allocated::Object:
      if (fitsObject(o, t, 1)) assign(addr, t, t, 0, TypeForm::Value);
      return;
    case bin::Allocated::Array: {
      // With pointers, the mask's last word is in the last element;
      // without, the size class bounds the count.
      const uint64_t esize = sizeOf(t);
      if (esize == 0) return;
      uint64_t last = 0;
      d_.forEachObjectSlot(o, [&](uint64_t off) { last = std::max(last, off); });
      if (cap && fitsObject(o, t, *cap)) {
        assign(addr, t, t, *cap, TypeForm::Array);
        return;
      }
      const bool exact = hasPointers(t);
      const uint64_t n = exact ? last / esize + 1 : d_.objects.size[o] / esize;
      if (fitsObject(o, t, n)) assign(addr, t, t, n, TypeForm::Array, !exact);
      return;
    }
    case bin::Allocated::Header: {
      const TypeId r = dw_.resolve(t);
      const TypeId header = r == kNoType ? kNoType : dw_.type(r).elem;
      if (header != kNoType && fitsObject(o, header, 1))
        assign(addr, header, t, 0, TypeForm::Value);
      return;
    }
    case bin::Allocated::StringBytes:
      if (!holdsPointers(o)) assignWeak(addr, TypeForm::StringBytes);
      return;
  }
}

void Typer::seedFramesFromCode() {
  if (!dw_.functions().empty()) return;  // DWARF typed the frames
  const uint64_t bias = exe_.loadBias();
  // The frames by function, each function's code read once.
  std::map<const bin::Func*, std::vector<uint32_t>> frames_of;
  for (uint32_t i = 0; i < d_.frames.size(); i++) {
    const model::StackFrame& fr = d_.frames[i];
    if (fr.pc == fr.entry_pc || fr.layout == model::PointerLayouts::kNoPointers) continue;
    if (const bin::Func* f = exe_.functionAt(fr.pc)) frames_of[f].push_back(i);
  }
  evidence_ = TypeEvidence::Inferred;
  std::vector<uint64_t> pcs, live;
  for (const auto& [f, frames] : frames_of) {
    pcs.clear();
    for (uint32_t i : frames) pcs.push_back(d_.frames[i].pc - bias);
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
    const std::vector<bin::StackSlotValue> slots = bin::findStackSlotValues(exe_.binary(), *f, pcs);
    if (slots.empty()) continue;
    for (uint32_t i : frames) {
      const model::StackFrame& fr = d_.frames[i];
      live.clear();
      d_.forEachSlot(fr.layout, [&](uint64_t off) { live.push_back(off); });
      std::sort(live.begin(), live.end());
      const uint8_t* bytes = d_.bytes(fr.contents).data();
      for (const bin::StackSlotValue& v : slots) {
        if (v.return_pc != fr.pc - bias || v.sp_offset < 0) continue;
        const auto off = static_cast<uint64_t>(v.sp_offset);
        // Only a pointer word the stack map says is live.
        if (!std::binary_search(live.begin(), live.end(), off) || off + ptr() > fr.contents.size) {
          continue;
        }
        const uint64_t target = words_.read(bytes + off);
        const NodeId o = objectAt(target);
        if (o == kNoNode || target != d_.objects.addr[o] || of(o).form != TypeForm::None) continue;
        // A slice's capacity, when the frame holds its whole header.
        std::optional<uint64_t> cap;
        if (v.what == bin::Allocated::Array && off + 3 * ptr() <= fr.contents.size &&
            !std::binary_search(live.begin(), live.end(), off + 2 * ptr())) {
          cap = words_.read(bytes + off + 2 * ptr());
        }
        assignAllocated(o, typeAtRuntimeAddress(v.type + bias), v.what, cap);
        if (of(o).form != TypeForm::None) counts_.inferred_objects++;
      }
    }
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedAllocationSites() {
  if (d_.alloc_samples.empty()) return;
  std::unordered_map<uint64_t, const model::ProfileBucket*> buckets;
  for (const model::ProfileBucket& b : d_.buckets) buckets.emplace(b.id, &b);
  // Per function: its allocation calls, with where each is in the source:
  // the call's line, and the line of the return address itself, which a
  // stack's first frame names (runtime/heapdump.go's dumpmemprof steps
  // back from the return addresses of the frames after the first only).
  struct LineCall {
    bin::SourceFrame call_at, return_at;
    bin::AllocationCall call;
  };
  std::unordered_map<const bin::Func*, std::vector<LineCall>> calls_of;
  auto callsOf = [&](const bin::Func* f) -> const std::vector<LineCall>& {
    auto [it, fresh] = calls_of.try_emplace(f);
    if (!fresh) return it->second;
    for (const bin::AllocationCall& c : bin::findAllocationCalls(exe_.binary(), *f)) {
      Expected<std::vector<bin::SourceFrame>> call_at = exe_.binary().symbolize(c.return_pc);
      Expected<std::vector<bin::SourceFrame>> return_at = exe_.binary().symbolize(c.return_pc + 1);
      if (call_at && !call_at->empty() && return_at && !return_at->empty()) {
        it->second.push_back({call_at->front(), return_at->front(), c});
      }
    }
    return it->second;
  };
  const uint64_t bias = exe_.loadBias();
  evidence_ = TypeEvidence::AllocationSite;
  for (const model::AllocSample& sample : d_.alloc_samples) {
    const NodeId o = objectAt(sample.addr);
    if (o == kNoNode || sample.addr != d_.objects.addr[o] || of(o).form != TypeForm::None) continue;
    auto b = buckets.find(sample.bucket_id);
    if (b == buckets.end() || b->second->frame_count == 0) continue;
    // The site: the first frame outside the runtime. Go 1.26 and later
    // record the allocator's frames too: then the one before it is the
    // runtime function the site called. Before, the stack starts at the
    // site when the site called the allocator itself.
    const model::ProfileBucket& bucket = *b->second;
    auto frameAt = [&](uint32_t i) -> const model::ProfileFrame& {
      return d_.profile_frames[bucket.first_frame + i];
    };
    uint32_t site = 0;
    while (site < bucket.frame_count && frameAt(site).function.starts_with("runtime.")) site++;
    if (site == bucket.frame_count) continue;
    const std::string_view via = site > 0 ? frameAt(site - 1).function : std::string_view();
    const model::ProfileFrame& frame = frameAt(site);
    const bin::Func* f = exe_.functionNamed(frame.function);
    if (f == nullptr) continue;
    // The allocations at the frame's line (through the runtime function
    // the stack shows, when it shows one): they must all say the same.
    std::optional<bin::AllocationCall> call;
    bool agree = true;
    for (const LineCall& c : callsOf(f)) {
      const bin::SourceFrame& at = site == 0 ? c.return_at : c.call_at;
      if (at.line != static_cast<int64_t>(frame.line) || at.file != frame.file) continue;
      if (!via.empty() && c.call.callee != via) continue;
      if (call && (call->type != c.call.type || call->what != c.call.what)) agree = false;
      call = c.call;
    }
    if (!call || !agree) continue;
    const TypeId t = call->what == bin::Allocated::StringBytes
                         ? kNoType
                         : typeAtRuntimeAddress(call->type + bias);
    assignAllocated(o, t, call->what, std::nullopt);
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedGlobalStrings() {
  if (!dw_.globals().empty()) return;  // the symbols typed them
  const TypeId byte_type = dw_.typeByName("uint8");
  // Whether an object of `size` bytes is what allocating n bytes gives.
  constexpr uint64_t kPage = 8192;
  auto slotFor = [&](uint64_t n, uint64_t size) {
    if (n == 0 || n > size) return false;
    const uint64_t c = sizeClassOf(n);
    return c != 0 ? c == size : size - n < kPage;
  };
  evidence_ = TypeEvidence::Inferred;
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const uint8_t* bytes = d_.bytes(seg->contents).data();
    std::vector<uint64_t> slots;
    d_.forEachSlot(seg->layout, [&](uint64_t off) { slots.push_back(off); });
    std::sort(slots.begin(), slots.end());
    auto isSlot = [&](uint64_t off) { return std::binary_search(slots.begin(), slots.end(), off); };
    for (const uint64_t off : slots) {
      if (off + 2 * ptr() > seg->contents.size || isSlot(off + ptr())) continue;
      const uint64_t data = words_.read(bytes + off);
      const NodeId o = objectAt(data);
      // Tiny blocks (16 bytes and less) pack several values: no guess.
      if (o == kNoNode || data != d_.objects.addr[o] || of(o).form != TypeForm::None ||
          holdsPointers(o) || d_.objects.size[o] <= 16) {
        continue;
      }
      const uint64_t size = d_.objects.size[o];
      const uint64_t len = words_.read(bytes + off + ptr());
      if (!slotFor(len, size)) continue;
      // A byte slice's capacity, which made the object.
      const bool has_cap = off + 3 * ptr() <= seg->contents.size && !isSlot(off + 2 * ptr());
      const uint64_t cap = has_cap ? words_.read(bytes + off + 2 * ptr()) : 0;
      if (cap >= len && slotFor(cap, size) && byte_type != kNoType) {
        assign(data, byte_type, byte_type, cap, TypeForm::Array);
      } else {
        assignWeak(data, TypeForm::StringBytes);
      }
      if (of(o).form != TypeForm::None) counts_.inferred_objects++;
    }
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedChannels() {
  // chan T by T's name, for the bidirectional chans (what make creates),
  // and the fields every hchan<T> shares.
  std::unordered_map<std::string_view, TypeId> chan_of;
  TypeId hchan = kNoType;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.kind != GoKind::Chan || !ty.name.starts_with("chan ") || ty.elem == kNoType) continue;
    const TypeId r = dw_.resolve(t);
    if (r == kNoType || dw_.type(r).tag != DwarfTag::Pointer || dw_.type(r).elem == kNoType) {
      continue;
    }
    chan_of.emplace(dw_.type(ty.elem).name, t);
    hchan = dw_.type(r).elem;
  }
  if (hchan == kNoType) return;
  const bin::Field* elemtype = dw_.fieldNamed(hchan, "elemtype");
  const bin::Field* elemsize = dw_.fieldNamed(hchan, "elemsize");
  const bin::Field* dataqsiz = dw_.fieldNamed(hchan, "dataqsiz");
  const bin::Field* qcount = dw_.fieldNamed(hchan, "qcount");
  const bin::Field* buf = dw_.fieldNamed(hchan, "buf");
  const uint64_t header = dw_.type(hchan).size;
  if (elemtype == nullptr || elemsize == nullptr || dataqsiz == nullptr || qcount == nullptr ||
      buf == nullptr || header == 0) {
    return;
  }
  evidence_ = TypeEvidence::Header;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (size < header || of(o).form != TypeForm::None || d_.objects.isSpanMetadata(o)) continue;
    const uint64_t addr = d_.objects.addr[o];
    const Memory m{d_.objectData(o), addr, size, nullptr, {}};
    const TypeId elem = typeAtRuntimeAddress(uintAt(m, addr + elemtype->offset, ptr()));
    if (elem == kNoType) continue;
    const uint64_t esize = uintAt(m, addr + elemsize->offset, sizeOf(elemsize->type));
    const uint64_t n = uintAt(m, addr + dataqsiz->offset, sizeOf(dataqsiz->type));
    const uint64_t queued = uintAt(m, addr + qcount->offset, sizeOf(qcount->type));
    const uint64_t b = uintAt(m, addr + buf->offset, ptr());
    if (esize != sizeOf(elem) || queued > n) continue;
    // makechan: no buffer bytes point at the buf field itself; elements
    // without pointers follow the header in the same object; others are
    // an object of their own.
    const bool fits = n == 0 || esize == 0 ? b == addr + buf->offset
                      : hasPointers(elem)  ? b != 0 && objectAt(b) != o
                                           : b == addr + header && n * esize <= size - header;
    if (!fits) continue;
    auto it = chan_of.find(dw_.type(elem).name);
    if (it == chan_of.end()) continue;
    const TypeId layout = dw_.type(dw_.resolve(it->second)).elem;
    assign(addr, layout, it->second, 0, TypeForm::Value);
  }
  evidence_ = TypeEvidence::Table;
}

NodeId Typer::groupsOfMap(const Memory& m, TypeId header) {
  const std::string_view name = dw_.type(header).name;
  auto target = [&](uint64_t p) {
    const NodeId o = objectAt(p);
    return o != kNoNode && d_.objects.addr[o] + of(o).data_offset == p ? o : kNoNode;
  };
  if (name.starts_with("hash<")) {
    const bin::Field* buckets = dw_.fieldNamed(header, "buckets");
    return buckets == nullptr ? kNoNode : target(pointerAt(m, m.base + buckets->offset));
  }
  const bin::Field* dir = dw_.fieldNamed(header, "dirPtr");
  const bin::Field* len = dw_.fieldNamed(header, "dirLen");
  if (dir == nullptr || len == nullptr) return kNoNode;
  const uint64_t p = pointerAt(m, m.base + dir->offset);
  if (uintAt(m, m.base + len->offset, sizeOf(len->type)) == 0) return target(p);
  // A directory of tables: the first table's groups.
  const NodeId directory = target(p);
  if (directory == kNoNode) return kNoNode;
  const NodeId table = target(words_.read(d_.objectData(directory) + of(directory).data_offset));
  const TypeId table_type = dw_.typeByName("table" + std::string(name.substr(3)));
  if (table == kNoNode || table_type == kNoType) return kNoNode;
  const bin::Field* groups = dw_.fieldNamed(table_type, "groups");
  const bin::Field* data = groups == nullptr ? nullptr : dw_.fieldNamed(groups->type, "data");
  if (data == nullptr) return kNoNode;
  const Memory t{d_.objectData(table), d_.objects.addr[table], d_.objects.size[table], nullptr, {}};
  return target(pointerAt(t, t.base + of(table).data_offset + groups->offset + data->offset));
}

Typer::Agreement Typer::targetsAgree(NodeId o, TypeId t) {
  const uint8_t* bytes = d_.objectData(o) + of(o).data_offset;
  const uint64_t size = d_.objects.size[o] - of(o).data_offset;
  std::vector<uint64_t> want, got;
  size_t checked = 0;
  for (const ScanOp& op : layoutOf(t)) {
    if (op.kind != ScanOp::Leaf || op.offset + ptr() > size) continue;
    const GoKind kind = kindOf(op.type);
    if (kind == GoKind::Interface && op.offset + 2 * ptr() <= size) {
      // The type or itab word: nil with a nil data word, else one the
      // table or the heap's itabs know (when the itabs could be read).
      const uint64_t word = words_.read(bytes + op.offset);
      const uint64_t data = words_.read(bytes + op.offset + ptr());
      const bool known = itab_type_.contains(word) || typeAtRuntimeAddress(word) != kNoType;
      if (word == 0 ? data != 0 : !known && !itab_type_.empty()) return Agreement::Contradicts;
      checked += word != 0;
      continue;
    }
    if (kind == GoKind::Map || kind == GoKind::Chan) {
      // A typed map or chan object must be of this header (map<K,V>,
      // hchan<T>).
      const NodeId to = objectAt(words_.read(bytes + op.offset));
      const TypeId r = dw_.resolve(op.type);
      if (to == kNoNode || of(to).form != TypeForm::Value || r == kNoType) continue;
      checked++;
      if (dw_.type(r).tag != DwarfTag::Pointer ||
          dw_.resolve(dw_.type(r).elem) != dw_.resolve(of(to).layout)) {
        return Agreement::Contradicts;
      }
      continue;
    }
    if (kind != GoKind::Pointer && kind != GoKind::String) continue;
    const NodeId to = objectAt(words_.read(bytes + op.offset));
    if (to == kNoNode) continue;
    checked++;
    if (kind == GoKind::String) {  // a string's bytes hold no pointers
      if (holdsPointers(to)) return Agreement::Contradicts;
      continue;
    }
    const TypeId r = dw_.resolve(op.type);
    const TypeId elem = r == kNoType ? kNoType : dw_.type(r).elem;
    if (elem == kNoType) return Agreement::Contradicts;
    if (of(to).form == TypeForm::Value) {
      if (dw_.resolve(of(to).layout) != dw_.resolve(elem) && !startsWith(of(to).layout, elem)) {
        return Agreement::Contradicts;
      }
      continue;
    }
    if (sizeClassOf(sizeOf(elem)) != d_.objects.size[to]) return Agreement::Contradicts;
    want.clear();
    pointerWords(elem, 0, 0, want);
    std::sort(want.begin(), want.end());
    got.clear();
    d_.forEachObjectSlot(to, [&](uint64_t off) { got.push_back(off); });
    std::sort(got.begin(), got.end());
    if (want != got) return Agreement::Contradicts;
  }
  return checked > 0 ? Agreement::Agrees : Agreement::Unchecked;
}

void Typer::inferMaps() {
  // The map types the table has, by their group (bucket) type; the header
  // types' pointer words (the same for every map of a release).
  struct MapType {
    TypeId map, header, group;
  };
  std::vector<MapType> maps;
  std::unordered_map<TypeId, std::vector<size_t>> by_group;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.kind != GoKind::Map || !ty.name.starts_with("map[")) continue;
    const TypeId r = dw_.resolve(t);
    if (r == kNoType || dw_.type(r).tag != DwarfTag::Pointer) continue;
    const TypeId header = dw_.type(r).elem;
    if (header == kNoType) continue;
    TypeId group = kNoType;
    if (dw_.type(header).name.starts_with("map<")) {
      group = groupTypeOfMap(header);
    } else if (const bin::Field* b = dw_.fieldNamed(header, "buckets")) {
      const TypeId p = dw_.resolve(b->type);
      group = p == kNoType ? kNoType : dw_.type(p).elem;
    }
    if (group == kNoType || sizeOf(group) == 0) continue;
    by_group[dw_.resolve(group)].push_back(maps.size());
    maps.push_back({t, header, group});
  }
  if (maps.empty()) return;
  const TypeId header = maps.front().header;
  const uint64_t header_size = sizeClassOf(sizeOf(header));
  std::vector<uint64_t> header_words, words, group_words;
  pointerWords(header, 0, 0, header_words);
  std::sort(header_words.begin(), header_words.end());
  // Group shapes: (group size, pointer words of one group) -> map types.
  std::map<std::pair<uint64_t, std::vector<uint64_t>>, std::vector<size_t>> by_shape;
  for (size_t i = 0; i < maps.size(); i++) {
    group_words.clear();
    pointerWords(maps[i].group, 0, 0, group_words);
    std::sort(group_words.begin(), group_words.end());
    by_shape[{sizeOf(maps[i].group), group_words}].push_back(i);
  }
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None || d_.objects.size[o] != header_size) continue;
    words.clear();
    d_.forEachObjectSlot(o, [&](uint64_t off) { words.push_back(off); });
    std::sort(words.begin(), words.end());
    if (words != header_words) continue;
    const Memory m{d_.objectData(o), d_.objects.addr[o], d_.objects.size[o], nullptr, {}};
    const NodeId g = groupsOfMap(m, header);
    if (g == kNoNode) continue;
    size_t chosen = SIZE_MAX;
    if (of(g).form != TypeForm::None) {
      // Typed already (a malloc header names large group arrays).
      auto it = by_group.find(dw_.resolve(of(g).layout));
      if (it == by_group.end() || it->second.size() != 1) continue;
      chosen = it->second.front();
      evidence_ =
          of(g).evidence == TypeEvidence::Inferred ? TypeEvidence::Inferred : TypeEvidence::Header;
    } else {
      // By the first group's pointer words, and a size that holds whole
      // groups; among several map types, the one whose keys and values
      // agree with what they point at.
      const uint64_t gsize = d_.objects.size[g];
      std::vector<size_t> fits;
      for (const auto& [shape, candidates] : by_shape) {
        // Small objects are rounded up to their size class, large ones
        // (Go 1.19-1.21's bucket arrays have no header) to a page.
        const uint64_t group_size = shape.first;
        const uint64_t n = group_size == 0 ? 0 : gsize / group_size;
        const bool whole =
            n != 0 && (n * group_size == gsize || sizeClassOf(n * group_size) == gsize ||
                       (gsize > 32768 && gsize - n * group_size < 8192));
        if (!whole) continue;
        group_words.clear();
        d_.forEachObjectSlot(g, [&](uint64_t off) {
          if (off < group_size) group_words.push_back(off);
        });
        std::sort(group_words.begin(), group_words.end());
        if (group_words == shape.second)
          fits.insert(fits.end(), candidates.begin(), candidates.end());
      }
      if (fits.size() > 1) {
        std::erase_if(
            fits, [&](size_t i) { return targetsAgree(g, maps[i].group) != Agreement::Agrees; });
      } else if (fits.size() == 1 &&
                 targetsAgree(g, maps[fits.front()].group) == Agreement::Contradicts) {
        continue;
      }
      if (fits.size() != 1) continue;
      chosen = fits.front();
      evidence_ = TypeEvidence::Inferred;
    }
    assign(d_.objects.addr[o], maps[chosen].header, maps[chosen].map, 0, TypeForm::Value);
    if (of(o).form != TypeForm::None && evidence_ == TypeEvidence::Inferred) {
      counts_.inferred_objects++;
    }
    evidence_ = TypeEvidence::Table;
  }
}

void Typer::inferClosures() {
  evidence_ = TypeEvidence::Inferred;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    if (of(o).form != TypeForm::None || d_.objects.size[o] < ptr()) continue;
    if (d_.objects.isSpanMetadata(o)) continue;
    const bin::Func* f = exe_.functionEntry(words_.read(d_.objectData(o)));
    if (f == nullptr || !bin::isClosureName(f->name)) continue;
    assignWeak(d_.objects.addr[o], TypeForm::Closure);
    if (of(o).form != TypeForm::None) counts_.inferred_objects++;
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::inferInterfaceArrays() {
  const TypeId eface = dw_.typeByName("interface {}");
  if (types_base_ == 0) return;
  const auto& layout = exe_.binary().moduleLayout();
  if (!layout || layout->etypes <= layout->types) return;
  const uint64_t lo = layout->types + exe_.loadBias(), hi = layout->etypes + exe_.loadBias();
  const uint64_t pair = 2 * uint64_t{ptr()};
  // An itab's interface (itab.inter, its first word), for the itabs the
  // executable's file holds.
  auto interfaceOf = [&](uint64_t itab) {
    if (!itab_type_.contains(itab)) return kNoType;
    const auto inter = exe_.binary().container().pointerAt(itab - exe_.loadBias());
    return inter ? typeAtRuntimeAddress(*inter + exe_.loadBias()) : kNoType;
  };
  std::vector<uint64_t> slots;
  evidence_ = TypeEvidence::Inferred;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (of(o).form != TypeForm::None || size < 2 * pair || !holdsPointers(o)) continue;
    slots.clear();
    d_.forEachObjectSlot(o, [&](uint64_t off) { slots.push_back(off); });
    std::sort(slots.begin(), slots.end());
    // The collector skips an interface's type or itab word (neither is in
    // the heap): the data word of every element is a pointer slot, and
    // nothing else is.
    const uint64_t n = slots.back() / pair + 1;
    if (slots.size() != n || n * pair > size) continue;
    TypeId elem = kNoType;
    bool all = true;
    uint64_t used = 0;
    for (uint64_t i = 0; i < n && all; i++) {
      all = slots[i] == i * pair + ptr();
      const uint64_t word = words_.read(d_.objectData(o) + i * pair);
      if (!all || word == 0) continue;
      // Every element an eface (a type descriptor), or every one an iface
      // of the same interface (an itab).
      TypeId t = word >= lo && word < hi && typeAtRuntimeAddress(word) != kNoType ? eface : kNoType;
      if (t == kNoType) t = interfaceOf(word);
      all = t != kNoType && (elem == kNoType || elem == t);
      elem = t;
      used++;
    }
    if (!all || used < 2 || elem == kNoType) continue;
    assign(d_.objects.addr[o], elem, elem, n, TypeForm::Array, /*approximate=*/true);
    if (of(o).form != TypeForm::None) counts_.inferred_objects++;
  }
  evidence_ = TypeEvidence::Table;
}

// Splits "K,V" at its top-level comma.
std::pair<std::string_view, std::string_view> splitPair(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    const char c = s[i];
    if (c == '<' && i + 1 < s.size() && s[i + 1] == '-') continue;  // chan<-
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') continue;
    if (c == '<' || c == '[' || c == '(' || c == '{') depth++;
    if (c == '>' || c == ']' || c == ')' || c == '}') depth--;
    if (c == ',' && depth == 0) return {s.substr(0, i), s.substr(i + 1)};
  }
  return {s, {}};
}

}  // namespace

// Table's name is "descriptor", or "dwarf" with DWARF.
constexpr std::array<std::string_view, 5> kEvidenceNames = {"descriptor", "header", "interface",
                                                            "inferred", "allocation_site"};
static_assert(namesEveryValue(kEvidenceNames, TypeEvidence::AllocationSite));

std::string_view typeEvidenceName(TypeEvidence e, bool dwarf) {
  if (e == TypeEvidence::Table && dwarf) return "dwarf";
  return enumName(e, kEvidenceNames, "");
}

GoKind goKind(const bin::DebugInfo& dwarf, TypeId t) {
  // A typedef names Go's kind (map, chan, interface, a named struct); the
  // runtime's synthesized types have none and are told apart by their tag.
  for (int hops = 0; t != kNoType && hops < 16; hops++) {
    const bin::Type& ty = dwarf.type(t);
    if (ty.kind != GoKind::Invalid) return ty.kind;
    switch (ty.tag) {
      case DwarfTag::Pointer:
        return GoKind::Pointer;
      case DwarfTag::Struct:
        return GoKind::Struct;
      case DwarfTag::Array:
        return GoKind::Array;
      case DwarfTag::Subroutine:
        return GoKind::Func;
      case DwarfTag::Typedef:
        t = ty.elem;
        continue;
      default:
        return GoKind::Invalid;
    }
  }
  return GoKind::Invalid;
}

uint64_t typeSize(const bin::DebugInfo& dwarf, TypeId t, uint32_t ptr_size) {
  if (t == kNoType) return 0;
  const TypeId r = dwarf.resolve(t);
  if (r == kNoType) return 0;
  const bin::Type& rt = dwarf.type(r);
  if (rt.size == 0 && rt.tag == DwarfTag::Pointer) return ptr_size;
  return rt.size;
}

std::string goTypeName(std::string_view n) {
  // Pointer and array prefixes of a synthesized type: "*table<K,V>".
  if (n.starts_with("*")) return std::string(1, '*').append(goTypeName(n.substr(1)));
  if (n.starts_with("[") && n.ends_with(">")) {
    const size_t close = n.find(']');
    if (close != std::string_view::npos) {
      return std::string(n.substr(0, close + 1)) + goTypeName(n.substr(close + 1));
    }
  }
  if (n.starts_with("noalg.")) n.remove_prefix(6);
  auto inner = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (!n.starts_with(prefix) || !n.ends_with(">")) return std::nullopt;
    return n.substr(prefix.size(), n.size() - prefix.size() - 1);
  };
  // The runtime's map types, written as Go writes map types.
  static constexpr std::pair<std::string_view, std::string_view> kMapTypes[] = {
      {"hash<", "map["}, {"map<", "map["}, {"bucket<", "map.bucket["}, {"table<", "map.table["}};
  for (const auto& [synthesized, go] : kMapTypes) {
    if (auto in = inner(synthesized)) {
      auto [k, v] = splitPair(*in);
      return std::string(go) + std::string(k) + "]" + std::string(v);
    }
  }
  if (auto in = inner("hchan<")) return "chan " + std::string(*in);
  return std::string(n);
}

HeapTypes typeHeap(const model::HeapModel& dump, const graph::Heap& heap,
                   const binding::BoundExecutable& exe, const bin::DebugInfo& dwarf,
                   const TypingOptions& options) {
  TypingState shared(heap.objectCount(), options.objects_per_chunk);
  const unsigned threads = std::max(1u, options.threads);
  std::vector<std::unique_ptr<Typer>> typers;
  std::vector<Typer*> workers;
  for (unsigned w = 0; w < threads; w++) {
    typers.push_back(std::make_unique<Typer>(dump, heap, exe, dwarf, shared));
    workers.push_back(typers.back().get());
  }
  WorkerTeam team(threads);
  TypingRounds rounds(shared, workers, team, options);
  Typer& typer = *typers[0];
  typer.drainWith(rounds);
  typer.seedMallocHeaders();
  typer.run();
  HeapTypes out;
  finishAssignments(shared.assignments, shared.table, out);
  const TypingCounts& counts = typer.counts();
  out.typed_objects = counts.typed_objects;
  out.conflicts = counts.conflicts;
  out.typed_from_roots = counts.typed_from_roots;
  out.typed_from_headers = counts.typed_from_headers;
  out.inferred_objects = counts.inferred_objects;
  return out;
}

std::string typeName(const HeapTypes& t, NodeId o, const bin::DebugInfo& dwarf,
                     const binding::BoundExecutable& exe, const model::HeapModel& dump) {
  switch (t.form(o)) {
    case TypeForm::None:
      return {};
    case TypeForm::StringBytes:
      return "string";
    case TypeForm::Closure: {
      const uint64_t fn = dump.words().read(dump.objectData(o));
      const bin::Func* f = exe.functionEntry(fn);
      return f == nullptr ? "closure" : "closure " + std::string(f->name);
    }
    case TypeForm::Value:
      return goTypeName(dwarf.type(t.shown(o)).name);
    case TypeForm::Array:
      return formatIndex(t.count(o)) + goTypeName(dwarf.type(t.shown(o)).name);
  }
  return {};
}

}  // namespace goheap::typing
