// The heap a reader found, source-neutral, as columns: objects, roots,
// goroutines, frames and the rest, with their bytes in regions the model
// owns. dump/ (a heap dump file) and core/ (an ELF core file) are its two
// readers; nothing here knows about the object graph, nor, past the reader,
// where the model came from: an object is an address, a size, the location
// of its bytes (a region and an offset in it) and a pointer layout
// (model/pointer_layouts.h). A heap dump fills it with one region, the mapped
// file; a core adds one region per run of loaded segments. Strings are views
// into a region too.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/heap_dump_facts.h"
#include "model/pointer_layouts.h"
#include "model/process_memory.h"
#include "util/column.h"
#include "util/mapped_file.h"
#include "util/packed_column.h"
#include "util/word_reader.h"

namespace goheap::model {

// Bytes the model holds: `size` bytes from `offset` in region `region`.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t region = 0;
};

struct Params {
  bool big_endian = false;
  uint32_t ptr_size = 8;
  uint64_t heap_start = 0;
  uint64_t heap_end = 0;
  std::string_view arch;        // GOARCH
  std::string_view go_version;  // go1.7 header: "go1.24.4" in recent Go; empty if unknown
  std::string_view experiment;  // GOEXPERIMENT, when the dump says it
  uint64_t ncpu = 0;
};

// Byte offsets into regions, one an object. Four bytes each while every
// offset is below 4 GiB (any dump smaller than that), six beyond: a region
// is mapped memory, far below 2^48 bytes.
class OffsetColumn {
 public:
  uint64_t operator[](size_t i) const {
    return wide_ ? uint64_t{high_[i]} << 32 | low_[i] : low_[i];
  }
  size_t size() const { return low_.size(); }
  bool empty() const { return low_.empty(); }
  uint64_t ownedBytes() const { return low_.ownedBytes() + high_.ownedBytes(); }
  bool operator==(const OffsetColumn& other) const = default;

  void push_back(uint64_t offset) {
    if (offset > UINT32_MAX && !wide_) widen();
    low_.push_back(static_cast<uint32_t>(offset));
    if (wide_) high_.push_back(static_cast<uint16_t>(offset >> 32));
  }
  // n offsets by their halves: bits 0 to 31, and 32 to 47, which are all
  // zero unless `any_high`.
  void append(const uint32_t* low, const uint16_t* high, size_t n, bool any_high);
  // from[first, first + count).
  void append(const OffsetColumn& from, size_t first, size_t count);
  // Capacity for n offsets, in huge pages (util/large_vector.h).
  void reserve(size_t n);
  // Puts the offset of order[i] at i (object_order.cpp).
  void permute(const std::vector<uint32_t>& order);

  // The two halves as stored (the index cache keeps them): bits 0 to 31,
  // and bits 32 to 47, empty unless some offset needs them.
  const Column<uint32_t>& lowHalves() const { return low_; }
  const Column<uint16_t>& highHalves() const { return high_; }
  // Offsets from their halves; `high` empty or as long as `low`.
  static OffsetColumn fromHalves(Column<uint32_t> low, Column<uint16_t> high) {
    OffsetColumn c;
    c.wide_ = !high.empty();
    c.low_ = std::move(low);
    c.high_ = std::move(high);
    return c;
  }

 private:
  void widen();  // gives every offset its high half

  bool wide_ = false;
  Column<uint32_t> low_;
  Column<uint16_t> high_;  // once wide_: bits 32 to 47
};

// Objects in the order the source gave them (the graph sorts them by
// address). HeapModel::objectBytes gives an object's bytes.
struct Objects {
  // Both packed to 4 bytes an object once sorted (packObjectColumns).
  PackedColumn addr;
  PackedColumn size;    // contents length: the size-class slot
  OffsetColumn offset;  // where the contents start in their region
  // The region of each object's contents; empty when all are in region 0
  // (a heap dump's), so that such a model spends no memory on it.
  Column<uint32_t> region;
  // Into HeapModel::layouts: the words of the contents that may hold pointers.
  // Packed to 2 bytes an object once sorted, when under 65536 layouts.
  PackedIds layout;
  // Per object in address order, set by markSpanMetadata (span_metadata.h):
  // non-zero for a record over the runtime's own bytes at the end of a span
  // (its SpanMetadataBits), not an object. Empty when the dump has none.
  Column<uint8_t> span_metadata;

  size_t count() const { return addr.size(); }
  bool isSpanMetadata(size_t i) const { return !span_metadata.empty() && span_metadata[i] != 0; }
};

struct TypeRecord {
  uint64_t addr = 0;
  uint64_t size = 0;
  std::string_view name;
  bool data_is_pointer = false;  // an interface holding this type stores a pointer
  // go1.3 only: the pointer slots of one value (its field list), into
  // HeapModel::layouts.
  uint32_t layout = PointerLayouts::kNoPointers;
};

struct ItabRecord {
  uint64_t addr = 0;
  uint64_t type_addr = 0;        // dynamic type (go1.4+); 0 in go1.3
  bool data_is_pointer = false;  // go1.3 only
};

// A large object's type (over 32 KiB, Go 1.22+): a core reads it from the
// span (mspan.largeType), as the collector does; a heap dump has none.
struct LargeObjectType {
  uint64_t addr = 0;
  uint64_t type_addr = 0;  // the *_type, in the process's addresses
};

struct OtherRoot {
  std::string_view description;
  uint64_t addr = 0;
};

struct Goroutine {
  uint64_t addr = 0;  // the g
  uint64_t sp = 0;
  uint64_t goid = 0;
  uint64_t gopc = 0;
  uint64_t status = 0;  // 1 runnable, 3 syscall, 4 waiting
  bool is_system = false;
  bool is_background = false;
  uint64_t wait_since = 0;  // nanoseconds, runtime clock
  std::string_view wait_reason;
  uint64_t ctxt = 0;
  uint64_t m_addr = 0;
  uint64_t top_defer = 0;
  uint64_t top_panic = 0;
  uint32_t first_frame = 0;  // index into HeapModel::frames
  uint32_t frame_count = 0;
};

struct StackFrame {
  uint64_t sp = 0;
  uint64_t depth = 0;
  uint64_t child_sp = 0;
  ByteRange contents;  // sp .. fp
  uint64_t entry_pc = 0;
  uint64_t pc = 0;
  uint64_t continpc = 0;
  std::string_view function;
  // Into HeapModel::layouts: its live pointer words (the stack map), within
  // the contents.
  uint32_t layout = PointerLayouts::kNoPointers;
  uint32_t goroutine =
      UINT32_MAX;  // index into HeapModel::goroutines; frames follow their goroutine
};

struct Finalizer {
  uint64_t obj = 0;
  uint64_t fn_val = 0;  // the FuncVal (closure)
  uint64_t fn_pc = 0;
  uint64_t arg_type = 0;
  uint64_t obj_type = 0;
  bool queued = false;  // tag 11: already queued to run
};

struct OsThread {
  uint64_t addr = 0;
  uint64_t id = 0;
  uint64_t procid = 0;
};

// The data or bss segment of the first module.
struct Segment {
  uint64_t addr = 0;
  ByteRange contents;
  uint32_t layout = PointerLayouts::kNoPointers;  // into HeapModel::layouts, within the contents
  bool present = false;
};

struct Defer {
  uint64_t addr = 0;
  uint64_t goroutine = 0;  // g address
  uint64_t sp = 0;
  uint64_t pc = 0;
  uint64_t fn_val = 0;
  uint64_t fn_pc = 0;
  uint64_t link = 0;
};

struct Panic {
  uint64_t addr = 0;
  uint64_t goroutine = 0;
  uint64_t eface_type = 0;
  uint64_t eface_data = 0;
  uint64_t link = 0;
};

// The fields of MemStats, as bits of MemStats::known.
enum class MemStat : uint32_t {
  Alloc,
  TotalAlloc,
  Sys,
  Lookups,
  Mallocs,
  Frees,
  HeapAlloc,
  HeapSys,
  HeapIdle,
  HeapInuse,
  HeapReleased,
  HeapObjects,
  StackInuse,
  StackSys,
  MSpanInuse,
  MSpanSys,
  MCacheInuse,
  MCacheSys,
  BuckHashSys,
  GCSys,
  OtherSys,
  NextGC,
  LastGC,
  PauseTotalNs,
  PauseNs,
  NumGC,
  Count
};

// Whether `known`, a MemStats::known mask, has field `f`.
constexpr bool memStatKnown(uint32_t known, MemStat f) {
  return (known >> static_cast<uint32_t>(f) & 1) != 0;
}

// runtime.MemStats, as the dump writes it.
struct MemStats {
  static constexpr uint32_t kAllKnown = (uint32_t{1} << static_cast<uint32_t>(MemStat::Count)) - 1;
  bool present = false;
  // Which fields hold the runtime's value: a heap dump has them all; a core
  // (core/memstats.h) only those it can derive, the others read as 0 and
  // are shown as unknown rather than as a wrong number.
  uint32_t known = kAllKnown;
  bool has(MemStat f) const { return memStatKnown(known, f); }
  void setUnknown(MemStat f) { known &= ~(uint32_t{1} << static_cast<uint32_t>(f)); }
  uint64_t alloc = 0, total_alloc = 0, sys = 0, lookups = 0, mallocs = 0, frees = 0;
  uint64_t heap_alloc = 0, heap_sys = 0, heap_idle = 0, heap_inuse = 0, heap_released = 0;
  uint64_t heap_objects = 0, stack_inuse = 0, stack_sys = 0, mspan_inuse = 0, mspan_sys = 0;
  uint64_t mcache_inuse = 0, mcache_sys = 0, buck_hash_sys = 0, gc_sys = 0, other_sys = 0;
  uint64_t next_gc = 0, last_gc = 0, pause_total_ns = 0;
  std::array<uint64_t, 256> pause_ns{};
  uint64_t num_gc = 0;
};

struct ProfileFrame {
  std::string_view function;
  std::string_view file;
  uint64_t line = 0;
};

// A memory profile bucket (tag 16): one allocation stack, leaf first.
struct ProfileBucket {
  uint64_t id = 0;  // the bucket's address, referenced by alloc samples
  uint64_t size = 0;
  uint32_t first_frame = 0;  // index into HeapModel::profile_frames
  uint32_t frame_count = 0;
  uint64_t allocs = 0;
  uint64_t frees = 0;
};

struct AllocSample {
  uint64_t addr = 0;
  uint64_t bucket_id = 0;
};

class HeapModel {
 public:
  // A model whose region 0 is `file`, all of it.
  explicit HeapModel(MappedFile file) : file_(std::move(file)), regions_{file_.bytes()} {}
  HeapModel(HeapModel&&) = default;
  HeapModel& operator=(HeapModel&&) = default;

  // The file the model was read from: for its identity (checkUnchanged) and
  // name. Its bytes are region 0; read them through the accessors below.
  const MappedFile& file() const { return file_; }
  // What the heap is called where it is shown (a summary's "file", diff's
  // OLD and NEW): origin when set, else the file's path.
  const std::string& name() const { return origin.empty() ? file_.path() : origin; }

  // The byte regions the model's contents lie in, each mapped for as long
  // as the HeapModel lives.
  uint32_t regionCount() const { return static_cast<uint32_t>(regions_.size()); }
  std::span<const uint8_t> region(uint32_t r) const { return regions_[r]; }
  // For readers: adds a region of memory the HeapModel owns (a part of its file).
  uint32_t addRegion(std::span<const uint8_t> bytes) {
    regions_.push_back(bytes);
    return regionCount() - 1;
  }

  // For readers whose bytes or strings are in no mapped file (a core's
  // function names are the executable's; its data segment may straddle two
  // of the core's segments): the HeapModel keeps them, at a stable address.
  uint32_t addOwnedRegion(std::vector<uint8_t> bytes) {
    return addRegion(owned_bytes_.emplace_back(std::move(bytes)));
  }
  // Bytes `owner` keeps mapped (a snap core's zero pages): the HeapModel keeps the
  // owner alive with the region.
  uint32_t addSharedRegion(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes) {
    shared_owners_.push_back(std::move(owner));
    return addRegion(bytes);
  }
  std::string_view keepString(std::string s) { return kept_strings_.emplace_back(std::move(s)); }

  std::span<const uint8_t> bytes(const ByteRange& r) const {
    return regions_[r.region].subspan(r.offset, r.size);
  }

  // Object i's contents: objects.size[i] bytes.
  const uint8_t* objectData(size_t i) const {
    const uint32_t r = objects.region.empty() ? 0 : objects.region[i];
    return regions_[r].data() + objects.offset[i];
  }
  std::span<const uint8_t> objectBytes(size_t i) const {
    return {objectData(i), static_cast<size_t>(objects.size[i])};
  }

  WordReader words() const { return WordReader(params.ptr_size, params.big_endian); }

  // Calls fn(offset) for every offset of a word that may hold a pointer in
  // memory of pointer layout `layout` (a frame's or a segment's), in the
  // order the source listed them. For interfaces both words are reported
  // (the itab or type word points outside the heap). Every reported word
  // lies within the memory the layout is for.
  template <class Fn>
  void forEachSlot(uint32_t layout, Fn&& fn) const {
    layouts.forEachOffset(layout, fn);
  }
  // The same for object `i`.
  template <class Fn>
  void forEachObjectSlot(size_t i, Fn&& fn) const {
    layouts.forEachOffset(objects.layout[i], fn);
  }
  bool objectHasPointers(size_t i) const {
    return objects.layout[i] != PointerLayouts::kNoPointers;
  }

  // The format the heap was read from, as the summary names it: a heap
  // dump's header version ("go1.7"), or "core". For the user only.
  std::string_view format;
  // Where the heap came from when file() is goheap's own temporary copy of
  // it: the URL it was downloaded from. Empty for a file the user gave.
  std::string origin;
  Params params;
  Objects objects;
  PointerLayouts layouts;
  uint64_t total_field_entries = 0;  // pointer slots over all objects: bounds the edge count
  std::vector<TypeRecord> types;
  std::vector<ItabRecord> itabs;
  std::vector<LargeObjectType> large_object_types;  // by address
  std::vector<OtherRoot> other_roots;
  std::vector<Goroutine> goroutines;
  std::vector<StackFrame> frames;
  std::vector<Finalizer> finalizers;
  std::vector<OsThread> threads;
  Segment data;
  Segment bss;
  // Whether the frames' layouts already hold the pointer words of the stack
  // objects the collector would scan (a core's stack maps say which), so
  // that the graph need not guess them (graph::BuildOptions::conservative_stacks).
  bool stack_objects_in_layouts = false;
  std::vector<Defer> defers;
  std::vector<Panic> panics;
  MemStats memstats;
  // A core's: where every mapped byte of the process is (`goheap memory`).
  std::optional<ProcessMemory> process_memory;
  std::vector<ProfileBucket> buckets;
  std::vector<ProfileFrame> profile_frames;
  std::vector<AllocSample> alloc_samples;
  // What only a heap dump says of itself (its header version, record
  // counts, go1.3's type columns); absent for any other source. Kept for the
  // index cache and the reader's tests: nothing that analyses the heap reads it.
  std::optional<HeapDumpFacts> heap_dump;
  // Oddities that did not stop the read (a frame's field beyond its contents...).
  std::vector<std::string> warnings;

 private:
  MappedFile file_;
  std::vector<std::span<const uint8_t>> regions_;
  // Moving a deque keeps its elements where they are, and a vector's or a
  // long string's buffer moves with it; a short string's characters live in
  // the element itself.
  std::deque<std::vector<uint8_t>> owned_bytes_;
  std::vector<std::shared_ptr<const void>> shared_owners_;
  std::deque<std::string> kept_strings_;
};

}  // namespace goheap::model
