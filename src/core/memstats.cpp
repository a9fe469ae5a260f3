#include "core/memstats.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>

namespace goheap::core {
namespace {

using model::MemStat;
using Value = std::optional<uint64_t>;
// More globals than core::tableDebugInfo gives: a real DWARF.
constexpr size_t kTableGlobals = 16;

// Where a field lies in the process, and its type.
struct Place {
  uint64_t addr = 0;
  bin::TypeId type = bin::kNoType;
};

// Field `path` ("heapStats.stats", dotted) of the struct at `base`, read
// from `dwarf`; `owner` names the struct for the error.
Expected<Place> fieldPlace(const bin::DebugInfo& dwarf, std::string_view owner, Place base,
                           std::string_view path) {
  Place at = base;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string_view name = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    const bin::TypeId t = at.type == bin::kNoType ? at.type : dwarf.resolve(at.type);
    const bin::Field* field = nullptr;
    if (t != bin::kNoType && dwarf.type(t).tag == bin::DwarfTag::Struct) {
      for (const bin::Field& f : dwarf.fields(dwarf.type(t))) {
        if (f.name == name) field = &f;
      }
    }
    if (field == nullptr) return Error(std::string(owner) + " has no field " + std::string(name));
    at = {at.addr + field->offset, field->type};
  }
  return at;
}

// The global `name` of the executable `dwarf` describes, at its link-time
// address and with its type.
Expected<Place> globalPlace(const bin::DebugInfo& dwarf, std::string_view name) {
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == name) return Place{g.address, g.type};
  }
  // Without DWARF, the layout table's few globals (core/runtime_globals.h).
  return Error(
      "the executable's DWARF has no global " + std::string(name) +
      (dwarf.globals().size() < kTableGlobals ? ", and it has no anchor without DWARF" : ""));
}

// The fields of one runtime global, by their dotted path in its type
// ("heapStats.stats"), so that a release moving a field within its struct
// is followed and one dropping it is named.
class GlobalFields {
 public:
  static Expected<GlobalFields> of(const MemoryImage& mem, const bin::DebugInfo& dwarf,
                                   std::string_view name) {
    GOHEAP_TRY(Place global, globalPlace(dwarf, name));
    return GlobalFields(mem, dwarf, name, global.addr + mem.bias(), global.type);
  }

  // Field `path` of the struct at `base`, of type `type`.
  Expected<Place> place(std::string_view path, Place base) const {
    return fieldPlace(dwarf_, name_, base, path);
  }
  Expected<Place> place(std::string_view path) const { return place(path, {addr_, type_}); }

  // The unsigned integer at `p`: 4 or 8 bytes (an atomic.Uint64 is a struct
  // of 8 whose value is all of it), in the process's byte order.
  Expected<uint64_t> uint(Place p, std::string_view path) const {
    const bin::TypeId t = p.type == bin::kNoType ? p.type : dwarf_.resolve(p.type);
    const uint64_t size = t == bin::kNoType ? 0 : dwarf_.type(t).size;
    if (size != 4 && size != 8) {
      return Error(name_ + "." + std::string(path) + " is " + std::to_string(size) +
                   " bytes wide, not an integer read here");
    }
    return mem_.readUint(p.addr, static_cast<uint32_t>(size));
  }
  Expected<uint64_t> uint(std::string_view path) const {
    GOHEAP_TRY(auto p, place(path));
    return uint(p, path);
  }

  // The array at `path`: where its elements start, their type and count.
  Expected<std::pair<Place, uint64_t>> array(std::string_view path) const {
    GOHEAP_TRY(auto p, place(path));
    const bin::TypeId t = p.type == bin::kNoType ? p.type : dwarf_.resolve(p.type);
    if (t == bin::kNoType || dwarf_.type(t).tag != bin::DwarfTag::Array) {
      return Error(name_ + "." + std::string(path) + " is not an array");
    }
    return std::pair{Place{p.addr, dwarf_.type(t).elem}, dwarf_.type(t).count};
  }

  // The size of type `t`, following typedefs.
  uint64_t sizeOf(bin::TypeId t) const {
    const bin::TypeId r = t == bin::kNoType ? t : dwarf_.resolve(t);
    return r == bin::kNoType ? 0 : dwarf_.type(r).size;
  }

 private:
  GlobalFields(const MemoryImage& mem, const bin::DebugInfo& dwarf, std::string_view name,
               uint64_t addr, bin::TypeId type)
      : mem_(mem), dwarf_(dwarf), name_(name), addr_(addr), type_(type) {}

  const MemoryImage& mem_;
  const bin::DebugInfo& dwarf_;
  std::string name_;
  uint64_t addr_;
  bin::TypeId type_;
};

// Reads fields of the runtime's globals, each failure a warning and an
// unknown value, so that one missing field loses only what depends on it.
class MemStatsReader {
 public:
  MemStatsReader(const MemoryImage& mem, const bin::DebugInfo& dwarf, Sink& told)
      : mem_(mem), dwarf_(dwarf), told_(told) {}

  // Global `name`, or nullopt after a warning saying which of memstats'
  // fields (`needed_for`) go unknown.
  std::optional<GlobalFields> global(std::string_view name, std::string_view needed_for) {
    auto g = GlobalFields::of(mem_, dwarf_, name);
    if (g) return *g;
    told_.warning("memstats: " + std::string(needed_for) + " unknown: " + g.error().message());
    return std::nullopt;
  }

  Value field(const std::optional<GlobalFields>& g, std::string_view path) {
    if (!g) return std::nullopt;
    return known(g->uint(path));
  }

  // The sum over the elements of array `path` of their field `field`: the
  // consistent heap stats' generations, which together hold the totals. A
  // field the release does not have is 0 with `absent_is_zero` (Go 1.26
  // dropped inPtrScalarBits with GC programs), else unknown.
  Value sumOver(const std::optional<GlobalFields>& g, std::string_view path, std::string_view field,
                bool absent_is_zero = false) {
    if (!g) return std::nullopt;
    auto arr = g->array(path);
    if (!arr) return known(Expected<uint64_t>(arr.error()));
    const auto [first, count] = *arr;
    const uint64_t stride = g->sizeOf(first.type);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < count; i++) {
      auto at = g->place(field, {first.addr + i * stride, first.type});
      if (!at && absent_is_zero) return 0;
      if (!at) return known(Expected<uint64_t>(at.error()));
      Value v = known(g->uint(*at, field));
      if (!v) return std::nullopt;
      sum += *v;  // int64 deltas: their wrapped sum is the total
    }
    return sum;
  }

 private:
  Value known(Expected<uint64_t> v) {
    if (v) return *v;
    told_.warning("memstats: " + v.error().message());
    return std::nullopt;
  }

  const MemoryImage& mem_;
  const bin::DebugInfo& dwarf_;
  Sink& told_;
};

// The sum of `parts`, unknown if any is.
Value sum(std::initializer_list<Value> parts) {
  uint64_t total = 0;
  for (const Value& p : parts) {
    if (!p) return std::nullopt;
    total += *p;
  }
  return total;
}

// gcController.heapGoal() without a memory limit: the GOGC goal, moved up to
// keep the sweep's minimum distance, and to at least 64 KiB past the point
// the current cycle was triggered at (runtime/mgcpacer.go, heapGoalInternal).
Value heapGoal(Value gc_percent_goal, Value sweep_dist_min_trigger, Value triggered,
               Value memory_limit) {
  if (!gc_percent_goal || !sweep_dist_min_trigger || !triggered || !memory_limit) {
    return std::nullopt;
  }
  // A memory limit's goal depends on the heap's totals, which the mcaches
  // hold back: not derived.
  if (*memory_limit != static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  constexpr uint64_t kMinRunway = 64 << 10;
  uint64_t goal = std::max(*gc_percent_goal, *sweep_dist_min_trigger);
  if (*triggered != ~uint64_t{0} && goal < *triggered + kMinRunway) goal = *triggered + kMinRunway;
  return goal;
}

void set(model::MemStats& m, MemStat f, uint64_t& into, Value v) {
  if (v) {
    into = *v;
  } else {
    m.setUnknown(f);
  }
}

}  // namespace

Expected<RuntimeField> runtimeField(const bin::DebugInfo& dwarf, std::string_view global,
                                    std::string_view path) {
  GOHEAP_TRY(Place g, globalPlace(dwarf, global));
  GOHEAP_TRY(Place at, fieldPlace(dwarf, global, g, path));
  const bin::TypeId t = at.type == bin::kNoType ? at.type : dwarf.resolve(at.type);
  const uint64_t size = t == bin::kNoType ? 0 : dwarf.type(t).size;
  if (size != 4 && size != 8) {
    return Error(std::string(global) + "." + std::string(path) + " is " + std::to_string(size) +
                 " bytes wide, not an integer");
  }
  return RuntimeField{at.addr, static_cast<uint32_t>(size)};
}

Expected<CoreMemStats> readMemStats(const MemoryImage& mem, const bin::DebugInfo& dwarf,
                                    const HeapObjects& heap, Sink& told) {
  // Heap objects: what the walk found, unless it had to skip spans.
  const bool whole_heap = heap.unreadable_spans == 0 && heap.unreadable_alloc_bits == 0 &&
                          heap.bad_spans == 0 && heap.missing_memory == 0;
  const Value heap_alloc = whole_heap ? Value(heap.bytes) : std::nullopt;
  auto memstats = GlobalFields::of(mem, dwarf, "runtime.memstats");
  if (!memstats) {
    // A stripped binary: the runtime's own counters cannot be found, but
    // what the heap holds is known from the walk itself.
    if (!whole_heap) return memstats.error();
    CoreMemStats out;
    model::MemStats& m = out.stats;
    m.present = true;
    m.known = 0;
    m.alloc = m.heap_alloc = *heap_alloc;
    m.heap_objects = heap.count();
    for (MemStat f : {MemStat::Alloc, MemStat::HeapAlloc, MemStat::HeapObjects}) {
      m.known |= uint32_t{1} << static_cast<uint32_t>(f);
    }
    told.warning("memstats: only HeapAlloc, Alloc and HeapObjects, from the heap walk (" +
                 memstats.error().message() + ")");
    return out;
  }
  CoreMemStats out;
  MemStatsReader r(mem, dwarf, told);
  const std::optional<GlobalFields> ms = *memstats;
  const std::optional<GlobalFields> gc = r.global(
      "runtime.gcController", "HeapInuse, HeapIdle, HeapReleased, HeapSys, Sys and NextGC");
  const std::optional<GlobalFields> mheap =
      r.global("runtime.mheap_", "MSpanInuse and MCacheInuse");

  const Value num_gc = r.field(ms, "numgc");
  if (!num_gc) return Error("runtime.memstats.numgc cannot be read");
  model::MemStats& m = out.stats;
  m.present = true;
  m.num_gc = *num_gc;
  set(m, MemStat::PauseTotalNs, m.pause_total_ns, r.field(ms, "pause_total_ns"));
  set(m, MemStat::LastGC, m.last_gc, r.field(ms, "last_gc_unix"));
  bool pauses = false;
  if (auto arr = memstats->array("pause_ns"); arr && arr->second == m.pause_ns.size()) {
    pauses = true;
    for (size_t i = 0; i < m.pause_ns.size() && pauses; i++) {
      auto v = mem.readUint(arr->first.addr + i * 8, 8);
      pauses = v.ok();
      if (v) m.pause_ns[i] = *v;
    }
  }
  if (!pauses) {
    m.setUnknown(MemStat::PauseNs);
    told.warning("memstats: runtime.memstats.pause_ns is not 256 readable words");
  }

  set(m, MemStat::HeapAlloc, m.heap_alloc, heap_alloc);
  set(m, MemStat::Alloc, m.alloc, heap_alloc);
  set(m, MemStat::HeapObjects, m.heap_objects, whole_heap ? Value(heap.count()) : std::nullopt);

  const Value in_use = r.field(gc, "heapInUse");
  const Value free = r.field(gc, "heapFree");
  const Value released = r.field(gc, "heapReleased");
  set(m, MemStat::HeapInuse, m.heap_inuse, in_use);
  set(m, MemStat::HeapReleased, m.heap_released, released);
  set(m, MemStat::HeapIdle, m.heap_idle, sum({free, released}));
  set(m, MemStat::HeapSys, m.heap_sys, sum({in_use, free, released}));

  const Value in_stacks = r.sumOver(ms, "heapStats.stats", "inStacks");
  const Value in_work_bufs = r.sumOver(ms, "heapStats.stats", "inWorkBufs");
  const Value in_ptr_bits = r.sumOver(ms, "heapStats.stats", "inPtrScalarBits", true);
  const Value stacks_sys = r.field(ms, "stacks_sys");
  const Value mspan_sys = r.field(ms, "mspan_sys");
  const Value mcache_sys = r.field(ms, "mcache_sys");
  const Value buckhash_sys = r.field(ms, "buckhash_sys");
  const Value gc_misc_sys = r.field(ms, "gcMiscSys");
  const Value other_sys = r.field(ms, "other_sys");
  set(m, MemStat::StackInuse, m.stack_inuse, in_stacks);
  set(m, MemStat::StackSys, m.stack_sys, sum({in_stacks, stacks_sys}));
  set(m, MemStat::MSpanSys, m.mspan_sys, mspan_sys);
  set(m, MemStat::MCacheSys, m.mcache_sys, mcache_sys);
  set(m, MemStat::BuckHashSys, m.buck_hash_sys, buckhash_sys);
  set(m, MemStat::GCSys, m.gc_sys, sum({gc_misc_sys, in_work_bufs, in_ptr_bits}));
  set(m, MemStat::OtherSys, m.other_sys, other_sys);
  set(m, MemStat::Sys, m.sys,
      sum({in_use, free, released, stacks_sys, mspan_sys, mcache_sys, buckhash_sys, gc_misc_sys,
           other_sys, in_stacks, in_work_bufs, in_ptr_bits}));
  set(m, MemStat::MSpanInuse, m.mspan_inuse, r.field(mheap, "spanalloc.inuse"));
  set(m, MemStat::MCacheInuse, m.mcache_inuse, r.field(mheap, "cachealloc.inuse"));
  set(m, MemStat::NextGC, m.next_gc,
      heapGoal(r.field(gc, "gcPercentHeapGoal"), r.field(gc, "sweepDistMinTrigger"),
               r.field(gc, "triggered"), r.field(gc, "memoryLimit")));

  // Cumulative counts the mcaches hold back a part of until flushed.
  m.setUnknown(MemStat::TotalAlloc);
  m.setUnknown(MemStat::Mallocs);
  m.setUnknown(MemStat::Frees);
  // Nothing counts lookups any more: readmemstats_m leaves it 0.
  m.lookups = 0;
  return out;
}

}  // namespace goheap::core
