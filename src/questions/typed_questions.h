// The questions' typed parts, for code that asks one directly rather than
// through the table (goheap report's sections, tests): the struct each
// question's parameters are read into, with its defaults, the function that
// computes its result from a Session, and its JSON document (docs/cli-json.md).
// Each is defined in the question's own file (top.cpp, ...), which also
// declares its parameters and its text; a new question need not be here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diff.h"
#include "analysis/dominator_rows.h"
#include "analysis/duplicates.h"
#include "analysis/flame.h"
#include "analysis/goroutine_info.h"
#include "analysis/goroutine_leaks.h"
#include "analysis/histogram.h"
#include "analysis/object_info.h"
#include "analysis/paths.h"
#include "analysis/process_memory.h"
#include "analysis/summary.h"
#include "analysis/suspects.h"
#include "analysis/waste.h"
#include "query/params.h"
#include "query/session.h"
#include "util/error.h"
#include "util/json_writer.h"

namespace goheap::questions {

using query::ParamValues;
using query::Session;

// ---- summary ----
struct SummaryQuery {
  uint64_t top = 10;  // top retainers listed
};
analysis::Summary querySummary(const Session& session, const SummaryQuery& q);
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
TopResult queryTop(const Session& session, const TopQuery& q);
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
Expected<std::vector<analysis::DomRow>> queryDom(const Session& session, const DomQuery& q);
std::string domJson(const analysis::Snapshot& snap, const std::vector<analysis::DomRow>& rows);

// ---- paths ----
struct PathsQuery {
  uint64_t addr = 0;  // an address in the object
  uint64_t limit = 5;
};
struct PathsResult {
  NodeId target = kNoNode;
  std::vector<analysis::Path> paths;
};
Expected<PathsResult> queryPaths(const Session& session, const PathsQuery& q);
std::string pathsJson(const analysis::Snapshot& snap, const PathsResult& r);

// ---- obj ----
struct ObjQuery {
  uint64_t addr = 0;
  uint64_t bytes = 256;  // how much of the contents to show
  uint64_t referrers = 20;
};
Expected<analysis::ObjectInfo> queryObj(const Session& session, const ObjQuery& q);
std::string objJson(const analysis::Snapshot& snap, const analysis::ObjectInfo& info,
                    uint64_t max_bytes);

// ---- goroutines ----
struct GoroutinesQuery {
  std::string sort = "id";  // id, retained
  bool user = false;        // hide the runtime's goroutines
  bool frames = true;
  bool leaked = false;  // only the goroutines blocked forever
  bool group = false;   // counts and jointly retained bytes by blocking function
};
std::string goroutineGroupsJson(const std::vector<analysis::GoroutineGroup>& groups);
std::vector<analysis::GoroutineInfo> queryGoroutines(const Session& session,
                                                     const GoroutinesQuery& q);
std::string goroutinesJson(const std::vector<analysis::GoroutineInfo>& gs, bool frames);

// ---- suspects (suspects.cpp) ----
struct SuspectsQuery {
  double threshold = 10;  // percent of the reachable heap, above 0 and at most 100
  uint64_t limit = 10;    // suspects shown; 0: all
  uint64_t accumulation = analysis::kAccumulationPercent;  // 50 to 100
};
analysis::SuspectReport querySuspects(const Session& session, const SuspectsQuery& q);
std::string suspectsJson(const analysis::SuspectReport& r);

// ---- diff (diff.cpp: OLD and NEW, what grew, and the objects new since OLD) ----
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
DiffResult queryDiff(const Session& old_session, const Session& new_session, const DiffQuery& q);
std::string diffJson(const DiffQuery& q, const DiffResult& r);

// ---- dups (dups.cpp) ----
struct DupsQuery {
  std::string kind = "all";  // strings, bytes, objects, all
  uint64_t limit = 20;       // groups shown (0: all)
  uint64_t min_wasted = 0;   // groups wasting less are left out
};
analysis::Duplicates queryDups(const Session& session, const DupsQuery& q);
std::string dupsJson(const analysis::Snapshot& snap, const DupsQuery& q,
                     const analysis::Duplicates& d);

// ---- waste (waste.cpp) ----
struct WasteQuery {
  uint64_t limit = 20;  // rows per section (0: all)
};
analysis::Waste queryWaste(const Session& session, const WasteQuery& q);
std::string wasteJson(const analysis::Snapshot& snap, const WasteQuery& q,
                      const analysis::Waste& w);

// ---- memory (where every mapped byte of the process is) ----
struct MemoryQuery {
  bool mappings = false;  // list every mapping with its categories' bytes
};
// The fields of a ProcessMemoryView's JSON (memory --json, and summary's
// process_memory), written into the object `j` has open; with `mappings`,
// the mappings too.
void writeProcessMemoryFields(JsonWriter& j, const analysis::ProcessMemoryView& v, bool mappings);
// The text of `goheap memory`.
std::string processMemoryText(const analysis::ProcessMemoryView& v, bool mappings, size_t width);
// One line for summary: "1.75 GiB mapped (kernel core): heap 17 MiB, ...".
std::string processMemoryLine(const analysis::ProcessMemoryView& v);

// ---- flame (the web UI's flame graph of retained bytes by chain of types) ----
struct FlameQuery {
  std::optional<uint64_t> min_bytes;  // none: 1/1000 of the reachable heap
  uint64_t max_depth = analysis::kMaxFlameDepth;
};
analysis::Flame queryFlame(const Session& session, const FlameQuery& q);
std::string flameJson(const analysis::Snapshot& snap, const analysis::Flame& flame);

// ---- search (the web UI's search box) ----
struct SearchQuery {
  std::string q;
  uint64_t limit = 20;
};
// An object at `q` when it is an address, the groups whose name contains it
// (as `top --filter`), and the global variables whose name contains it.
std::string searchJson(const Session& session, const SearchQuery& q);

}  // namespace goheap::questions
