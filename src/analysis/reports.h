// The reports the commands ask of a Snapshot (summary, top, dom, paths, obj,
// goroutines): the analyses behind questions/queries.h. Each returns plain data; the
// CLI renders it as a table, JSON or CSV (one result, several renderers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/process_memory.h"
#include "analysis/snapshot.h"
#include "typing/names.h"
#include "typing/values.h"

namespace goheap::analysis {

struct GoroutineLeaks;  // goroutine_leaks.h

// A node as a person reads it: an object's name, or a root's description.
struct NodeLabel {
  NodeId node = kNoNode;
  std::string kind;        // "object", or a root kind ("goroutine", "stack frame", ...)
  std::string name;        // object: its group name; root: what it is
  std::string short_name;  // a root's name for narrow columns; empty if `name` is short
  std::string source;      // object: "site" / "closure" / "interface" / "shape"; root: empty
  // A typed object: how its type was found ("dwarf", "descriptor", "header",
  // "interface" or "inferred"); empty otherwise.
  std::string type_evidence;
  uint64_t address = 0;  // object address; 0 for roots
  // A data or bss root seen through one of its words, with the executable:
  // the global variable holding that word ("main.cache"), and the word's
  // offset within it.
  std::string global;
  uint64_t global_offset = 0;
};
NodeLabel labelNode(const Snapshot& s, NodeId n);
// The same, for the holder of the word at `slot_address`: a data or bss
// segment becomes the global variable there, when the executable names it.
NodeLabel labelHolder(const Snapshot& s, NodeId n, uint64_t slot_address);
// With DWARF types: what the word at `offset` (address `slot_address`) of
// node n is, as PathStep::field; empty when unknown or without types.
std::string slotField(const Snapshot& s, NodeId n, uint64_t offset, uint64_t slot_address);

// ---- summary ---------------------------------------------------------------

struct Retainer {
  NodeLabel object;
  uint64_t retained = 0;
  uint64_t shallow = 0;
  NodeLabel held_by;  // the root (or super-root) that immediately dominates it
  // Where in the root the pointer is: offset within the frame or segment and
  // the word's address (a global variable's address, for data and bss).
  std::optional<uint64_t> held_at_offset;
  uint64_t held_at_address = 0;
  // Held by several roots: the ones pointing at it directly ("global
  // main.server", "goroutine 18", "bss 0x5a2230"), at most kMaxRootHolders;
  // when none does, the ones reaching it through other objects, nearest
  // first, at most kMaxIndirectRootHolders.
  std::vector<std::string> root_holders;
  uint64_t more_root_holders = 0;  // beyond those
  bool root_holders_through_objects = false;
  // False when the search through objects stopped before it saw every root
  // (more_root_holders is then a lower bound).
  bool root_holders_complete = true;
};
inline constexpr size_t kMaxRootHolders = 4;
inline constexpr size_t kMaxIndirectRootHolders = 3;
// "global main.server and 2 goroutines": a retainer's direct root holders,
// globals by name, the other roots counted by kind; empty when none.
std::string rootHoldersText(const Retainer& r);

// The executable given with the dump: what it is and how well it matched.
struct ExecutableSummary {
  std::string path;
  bool used = false;
  std::string problem;  // why it is not used
  std::string go_version, container, arch, pclntab_layout;
  uint64_t load_bias = 0;
  uint64_t frames_checked = 0, frames_matched = 0;
  bool has_symbols = false;  // false: stripped, globals stay unnamed
  // The separate debug file the DWARF came from (query/debug_file.h) and how
  // it was found; empty when the DWARF is the executable's own, or none.
  std::string debug_file, debug_file_found_by;
  // Why there are no types from the executable's DWARF; empty when there are.
  std::string dwarf_problem;
};

struct Summary {
  // Where the process's memory is (goheap memory): a core's mappings, or a
  // dump's memstats.
  ProcessMemoryView process_memory;
  std::string file;
  uint64_t file_size = 0;
  std::string format_version;  // a heap dump's "go1.7" ..., or "core" for a core file
  std::string go_version;      // "go1.24.4" when the dump says it
  std::string arch;
  uint32_t ptr_size = 0;
  bool big_endian = false;
  uint64_t objects = 0, bytes = 0;  // reachable + garbage
  uint64_t reachable_objects = 0, reachable_bytes = 0;
  uint64_t garbage_objects = 0, garbage_bytes = 0;
  // Records of the runtime's span metadata (model/span_metadata.h), which
  // the dump writes as objects: in none of the counts above.
  uint64_t metadata_objects = 0, metadata_bytes = 0;
  uint64_t pointers = 0, non_heap_pointers = 0;
  uint64_t goroutines = 0, stack_frames = 0, finalizers = 0, roots = 0;
  // Goroutines blocked forever, and what they keep alive together
  // (analysis/goroutine_leaks.h).
  uint64_t leaked_goroutines = 0, leaked_retained = 0;
  bool have_memstats = false;
  uint64_t heap_alloc = 0, heap_sys = 0, heap_inuse = 0, heap_objects = 0, sys = 0;
  uint64_t stack_inuse = 0, next_gc = 0, num_gc = 0, pause_total_ns = 0;
  // Which memstats a core could not give (model::MemStats::known).
  uint32_t memstats_known = model::MemStats::kAllKnown;
  bool memstatKnown(model::MemStat f) const { return model::memStatKnown(memstats_known, f); }
  std::vector<Retainer> top_retainers;
  std::vector<std::string> warnings;
  std::optional<ExecutableSummary> executable;  // when one was given
  // With types (from DWARF or the runtime's type descriptors): how much of
  // the reachable heap they cover, and how much of that was inferred by
  // shape (counted in typed_* too).
  bool typed = false;
  std::string type_source;                      // "DWARF" or "type descriptors"
  uint64_t typed_objects = 0, typed_bytes = 0;  // reachable ones
  uint64_t inferred_objects = 0, inferred_bytes = 0;
  uint64_t type_conflicts = 0;
};
// Top retainers: the objects dominated directly by a root, biggest first:
// where retention enters the heap.
Summary summarize(const Snapshot& s, size_t top_n);
// The same with the goroutine leak analysis done before (query::Session
// keeps it): it is the costly part on a heap of many goroutines.
Summary summarize(const Snapshot& s, size_t top_n, const GoroutineLeaks& leaks);

// ---- histogram (top) -------------------------------------------------------

enum class SortKey : uint8_t { Retained, Shallow, Count };

struct HistogramRow {
  std::string name;
  std::string source;
  uint64_t count = 0;
  uint64_t inferred_count = 0;  // members typed by shape alone (source "type")
  uint64_t shallow = 0;
  // Bytes the group retains: retained sizes of its members that no other
  // member dominates (so nothing is counted twice).
  uint64_t retained = 0;
};

struct Histogram {
  std::vector<HistogramRow> rows;  // sorted, cut to the requested number
  uint64_t groups = 0;             // before the cut
  uint64_t total_count = 0, total_shallow = 0;
};
Histogram histogram(const Snapshot& s, typing::GroupKind by, SortKey sort, size_t limit);
// Every group with its totals, unsorted: what a server keeps (query::Session)
// to answer each sort, filter and page without grouping again.
Histogram groupTotals(const Snapshot& s, typing::GroupKind by);
// `all` (groupTotals) sorted by `sort` and cut to `limit` rows.
Histogram histogram(const Histogram& all, SortKey sort, size_t limit);

// ---- dominator tree --------------------------------------------------------

struct DomRow {
  NodeLabel node;
  uint32_t depth = 0;
  uint64_t retained = 0;
  uint64_t shallow = 0;
  uint64_t children = 0;         // in the dominator tree
  uint64_t hidden_children = 0;  // below --min-bytes or beyond --max-children
};
// Pre-order walk from the super-root, `max_depth` levels, skipping subtrees
// retaining less than `min_bytes`, at most `max_children` per node.
std::vector<DomRow> dominatorRows(const Snapshot& s, uint32_t max_depth, uint64_t min_bytes,
                                  uint32_t max_children, NodeId start = kNoNode);

// ---- paths -----------------------------------------------------------------

struct PathStep {
  NodeLabel node;
  // The reference to the next step: byte offset within this node's contents
  // (object, frame, data or bss), or nothing for root-to-root links.
  std::optional<uint64_t> offset;
  uint64_t slot_address = 0;  // address of that word, when the node has one
  // With DWARF types: what that word is in the node: a field path in an
  // object (".User.Tags", "[3]"), a global's ("main.cache.items"), a
  // frame's local or parameter ("local buf"). Empty when unknown.
  std::string field;
};
struct Path {
  std::vector<PathStep> steps;  // root first, the target last
};
// Up to `limit` shortest paths from distinct roots to `target`.
std::vector<Path> pathsToRoots(const Snapshot& s, NodeId target, size_t limit);

// ---- one object ------------------------------------------------------------

struct Reference {
  // Within the holder; none when the holder has no contents (a goroutine's
  // g, a finalizer, defer or panic record).
  std::optional<uint64_t> offset;
  uint64_t slot_address = 0;  // address of the pointer word, with offset
  uint64_t value = 0;         // the pointer word (pointers out only)
  NodeLabel target;           // kind "non-heap" when it points outside the heap
  std::string field;          // with DWARF types: the word in the holder, as PathStep::field
};
// A frame of an allocation stack, as the dump records it, and with the
// executable the line where its function starts.
struct AllocFrame {
  std::string_view function;
  std::string_view file;
  uint64_t line = 0;
  int64_t function_start_line = 0;  // 0: unknown
  // With the executable: the frame is a call inlined into the function the
  // dump names (`function` is then the inlined one).
  bool inlined = false;
};

struct ObjectInfo {
  NodeLabel label;
  std::string type;                        // with DWARF types: "main.Session"; else empty
  std::vector<typing::FieldValue> fields;  // with DWARF types: its fields, decoded
  uint64_t size = 0;
  uint64_t retained = 0;
  bool reachable = false;
  bool runtime_metadata = false;  // a span's bitmaps, not an object (Snapshot::isRuntimeMetadata)
  NodeLabel idom;
  std::string shape;
  std::vector<Reference> pointers;      // out of this object, in offset order
  std::vector<Reference> referrers;     // into it: holder label and offset in the holder
  uint64_t referrer_count = 0;          // before any cut
  std::vector<AllocFrame> alloc_stack;  // leaf first; empty when not sampled
};
// The object containing `address`, or nullopt.
std::optional<NodeId> objectAt(const Snapshot& s, uint64_t address);
ObjectInfo objectInfo(const Snapshot& s, NodeId object, size_t max_referrers,
                      size_t max_fields = 64);

// ---- goroutines ------------------------------------------------------------

// A source position, from the executable's pclntab.
struct SourceLine {
  std::string function;
  std::string file;
  int64_t line = 0;
};

struct FrameInfo {
  std::string function;
  std::string file;  // with the executable: where in `function` the frame is
  int64_t line = 0;
  // With the executable: the calls inlined into `function` that the frame's
  // PC is in, innermost first (they have no frame of their own).
  std::vector<SourceLine> inlined;
  uint64_t pc = 0;
  uint64_t depth = 0;
  uint64_t frame_size = 0;
  uint64_t retained = 0;  // bytes only this frame keeps alive
};
struct GoroutineInfo {
  uint32_t record = 0;  // index into HeapModel::goroutines
  uint64_t id = 0;
  uint64_t status = 0;
  std::string status_name;  // "waiting", "runnable", "syscall"
  std::string wait_reason;
  uint64_t wait_since = 0;
  bool is_system = false;
  // Blocked forever: nothing that can run reaches what it waits on
  // (analysis/goroutine_leaks.h).
  bool leaked = false;
  // Blocked for good by the program's types, but not called leaked: why
  // (GoroutineLeaks::not_leaked_because). Empty for the others.
  std::string not_leaked_because;
  // The innermost frame outside runtime and sync (blockingFunction).
  std::string blocked_in;
  uint64_t retained = 0;  // bytes only this goroutine's stack keeps alive
  uint64_t g_addr = 0;
  uint64_t created_pc = 0;  // of the go statement that started it (0: none)
  // With the executable: the function with the go statement, at its line.
  std::optional<SourceLine> created_by;
  std::vector<FrameInfo> frames;  // innermost first
};
std::vector<GoroutineInfo> goroutines(const Snapshot& s);
std::vector<GoroutineInfo> goroutines(const Snapshot& s, const GoroutineLeaks& leaks);

}  // namespace goheap::analysis
