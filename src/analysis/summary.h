// What `goheap summary` says of a heap: its sizes, memstats, types, the
// executable, and the top retainers with the roots holding them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/labels.h"
#include "analysis/process_memory.h"
#include "analysis/snapshot.h"

namespace goheap::analysis {

struct GoroutineLeaks;  // goroutine_leaks.h

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
  // first (counting the objects on the way that roots share), at most
  // kMaxIndirectRootHolders; there a goroutine's frames count as the
  // goroutine, which holds them.
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

}  // namespace goheap::analysis
