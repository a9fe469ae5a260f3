// The --json documents of the analysis commands (docs/cli-json.md), written
// by one function each so that `goheap CMD --json` and the HTTP API of
// `goheap serve` (docs/web-api.md) give the same answer by construction.
// Each question is a small query struct with the CLI's defaults; running it
// gives the analysis result, which the JSON renderer (or the command's text
// renderer) turns into output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diff.h"
#include "analysis/duplicates.h"
#include "analysis/flame.h"
#include "analysis/queries.h"
#include "analysis/snapshot.h"
#include "analysis/suspects.h"
#include "analysis/waste.h"
#include "util/error.h"

namespace goheap::cli {

// A query that names an object by an address in it can fail in two ways the
// server answers differently: nothing is there (404), or the object cannot
// answer that question (400).
struct QueryError {
  enum class Kind : uint8_t { NotFound, BadRequest };
  Kind kind;
  Error error;
};

// The object containing `address`, or a NotFound error saying so.
std::optional<NodeId> findObject(const analysis::Snapshot& snap, uint64_t address,
                                 std::optional<QueryError>& error);

// ---- summary ----
std::string summaryJson(const analysis::Summary& s);

// ---- top ----
struct TopQuery {
  std::string by = "auto";        // auto, type, site, shape
  std::string sort = "retained";  // retained, shallow, count
  uint64_t limit = 20;            // 0: all
  uint64_t offset = 0;            // rows skipped before the first one shown
  std::string filter;             // only groups whose name contains this (any case)
};
struct TopResult {
  std::string by;                 // "auto" resolved
  analysis::Histogram histogram;  // groups counts the groups the filter keeps
};
// `q.by` and `q.sort` must be among the values above (the caller checks).
TopResult queryTop(const analysis::Snapshot& snap, const TopQuery& q);
std::string topJson(const TopQuery& q, const TopResult& r);

// ---- dom ----
struct DomQuery {
  std::optional<uint64_t> from;  // an address in the start object; none: the super-root
  // Or the start node by its number (the `node` of JSON labels): a root,
  // which has no address, can be expanded too.
  std::optional<uint64_t> from_node;
  uint64_t depth = 4;
  uint64_t min_bytes = 64 * 1024;
  uint64_t max_children = 10;
};
std::optional<std::vector<analysis::DomRow>> queryDom(const analysis::Snapshot& snap,
                                                      const DomQuery& q,
                                                      std::optional<QueryError>& error);
std::string domJson(const analysis::Snapshot& snap, const std::vector<analysis::DomRow>& rows);

// ---- flame (the web UI's flame graph of retained bytes by chain of types) ----
std::string flameJson(const analysis::Snapshot& snap, const analysis::Flame& flame);

// ---- search (the web UI's search box) ----
// An object at `q` when it is an address, the groups whose name contains it
// (as `top --filter`), and the global variables whose name contains it.
std::string searchJson(const analysis::Snapshot& snap, const std::string& q, uint64_t limit);

// ---- paths ----
std::string pathsJson(const analysis::Snapshot& snap, NodeId target,
                      const std::vector<analysis::Path>& paths);

// ---- obj ----
// `max_bytes`: how much of the contents to show.
std::string objJson(const analysis::Snapshot& snap, const analysis::ObjectInfo& info,
                    uint64_t max_bytes);

// ---- goroutines ----
struct GoroutinesQuery {
  std::string sort = "id";  // id, retained
  bool user = false;        // hide the runtime's goroutines
  bool frames = true;
};
std::vector<analysis::GoroutineInfo> queryGoroutines(const analysis::Snapshot& snap,
                                                     const GoroutinesQuery& q);
// When a GC first saw the earliest-blocked goroutine blocked (0: none did):
// wait times are shown relative to it.
uint64_t earliestWaitSince(const std::vector<analysis::GoroutineInfo>& gs);
std::string goroutinesJson(const std::vector<analysis::GoroutineInfo>& gs, bool frames);

// ---- suspects (json_suspects.cpp) ----
struct SuspectsQuery {
  double threshold = 10;  // percent of the reachable heap, above 0 and at most 100
  uint64_t limit = 10;    // suspects shown; 0: all
  uint64_t accumulation = analysis::kAccumulationPercent;  // 50 to 100 (the caller checks)
};
// "10", "2.5", "10%": a share of the heap in percent, above 0 and at most 100.
Expected<double> parsePercent(std::string_view text);
analysis::SuspectReport querySuspects(const analysis::Snapshot& snap, const SuspectsQuery& q);
std::string suspectsJson(const analysis::SuspectReport& r);
// ---- diff (OLD and NEW: what grew, and the objects new since OLD) ----
struct DiffQuery {
  std::string by = "auto";  // auto (type when both dumps are typed, else site), type, site, shape
  std::string sort = "retained";  // retained, shallow, count: the growth the groups are sorted by
  uint64_t limit = 20;            // rows of each table; 0: all
  uint64_t offset = 0;            // rows of each table skipped before the first one shown
  std::string filter;             // only groups (and new objects' groups) whose name contains this
  bool unchanged = false;         // also the groups whose count and sizes did not change
};
struct DiffResult {
  std::string by;  // "auto" resolved
  std::string old_file, new_file;
  uint64_t old_count = 0, old_bytes = 0, new_count = 0, new_bytes = 0;  // reachable objects
  std::vector<std::string> warnings;
  uint64_t groups = 0;  // rows the filter keeps, before offset and limit
  std::vector<analysis::DiffGroupRow> rows;
  // Rows cut as `rows` and without their members; count and bytes of all.
  analysis::NewSince new_objects;
  uint64_t new_rows = 0;  // new_objects rows the filter keeps, before the cut
  // Per shown new_objects row: what reaches an object holder from a root.
  std::vector<std::optional<analysis::NodeLabel>> reached_from;
};
// The grouping `q.by` stands for with these two dumps.
typing::GroupKind diffGrouping(const analysis::Snapshot& old_snap,
                               const analysis::Snapshot& new_snap, const DiffQuery& q);
// `q.by` and `q.sort` must be among the values above (the caller checks).
// `new_since`, when given, is newSince(old_snap, new_snap, diffGrouping(...))
// computed before (a server keeps it across requests); else it is computed.
DiffResult queryDiff(const analysis::Snapshot& old_snap, const analysis::Snapshot& new_snap,
                     const DiffQuery& q, const analysis::NewSince* new_since = nullptr);
std::string diffJson(const DiffQuery& q, const DiffResult& r);
// ---- dups (json_dups.cpp) ----
struct DupsQuery {
  std::string kind = "all";  // strings, bytes, objects, all
  uint64_t limit = 20;       // groups shown (0: all)
  uint64_t min_wasted = 0;   // groups wasting less are left out
};
// `q.kind` must be among the values above (the caller checks).
analysis::Duplicates queryDups(const analysis::Snapshot& snap, const DupsQuery& q);
std::string dupsJson(const analysis::Snapshot& snap, const DupsQuery& q,
                     const analysis::Duplicates& d);

// ---- waste (json_waste.cpp) ----
struct WasteQuery {
  uint64_t limit = 20;  // rows per section (0: all)
};
analysis::Waste queryWaste(const analysis::Snapshot& snap, const WasteQuery& q);
std::string wasteJson(const analysis::Snapshot& snap, const WasteQuery& q,
                      const analysis::Waste& w);

}  // namespace goheap::cli
