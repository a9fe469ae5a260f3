// Every query's parameters and the rules they follow, for the command line
// and the HTTP API alike (params.h).
#include "query/queries.h"

namespace goheap::query {

namespace {

using K = ParamKind;

const ParamSpec kLimit20{"limit", K::Uint, "20", {}, "N", "how many rows to show (0 = all)", 'n'};

ParamSpec limit(std::string_view fallback, std::string_view help) {
  ParamSpec p = kLimit20;
  p.fallback = fallback;
  p.help = help;
  return p;
}

const ParamSpec kBy{"by",
                    K::Choice,
                    "auto",
                    {"auto", "type", "site", "shape"},
                    {},
                    "how to group objects; auto: by type when the executable has DWARF, else by "
                    "site"};
const ParamSpec kSort{"sort", K::Choice,          "retained", {"retained", "shallow", "count"},
                      {},     "order of the rows"};
const ParamSpec kFilter{"filter", K::Text, "",
                        {},       "TEXT",  "only groups whose name contains TEXT (any case)"};
const ParamSpec kAddr{"addr", K::Address, "",
                      {},     "ADDR",     "an address inside the object (hex 0x... or decimal)",
                      0,      "ADDR"};

}  // namespace

// ---- summary ----

const std::vector<ParamSpec>& summaryParams() {
  static const std::vector<ParamSpec> params = {
      {"top", K::Uint, "10", {}, "N", "how many top retainers to list", 'n'},
  };
  return params;
}

std::optional<QueryError> readSummary(const ParamValues& values, SummaryQuery& q) {
  ParamReader r(values);
  q.top = r.number("top");
  return r.error();
}

// ---- top ----

const std::vector<ParamSpec>& topParams() {
  static const std::vector<ParamSpec> params = {
      kBy,
      kSort,
      kLimit20,
      {"offset", K::Uint, "0", {}, "N", "skip this many rows first (to page through the groups)"},
      kFilter,
  };
  return params;
}

std::optional<QueryError> readTop(const ParamValues& values, TopQuery& q) {
  ParamReader r(values);
  q.by = r.choice("by");
  q.sort = r.choice("sort");
  q.limit = r.number("limit");
  q.offset = r.number("offset");
  q.filter = r.text("filter");
  return r.error();
}

// ---- dom ----

const std::vector<ParamSpec>& domParams() {
  static const std::vector<ParamSpec> params = {
      {"depth", K::Uint, "4", {}, "D", "levels to show below the start", 'd'},
      {"min_bytes", K::ByteSize, "64K", {}, "SIZE", "hide subtrees retaining less than this"},
      {"max_children", K::Uint, "10", {}, "N", "at most this many children per node"},
      {"from", K::Address, "", {}, "ADDR", "start at the object containing ADDR"},
      {"node",
       K::Uint,
       "",
       {},
       "N",
       "start at node N (a label's \"node\" in --json output: roots have no address)",
       0,
       "from-node"},
  };
  return params;
}

std::optional<QueryError> readDom(const ParamValues& values, DomQuery& q) {
  ParamReader r(values);
  if (r.has("from")) q.from = r.number("from");
  if (r.has("node")) q.from_node = r.number("node");
  if (r.has("from") && r.has("node")) r.failBoth("from", "node");
  q.depth = r.number("depth");
  q.min_bytes = r.number("min_bytes");
  q.max_children = r.number("max_children");
  return r.error();
}

// ---- paths ----

const std::vector<ParamSpec>& pathsParams() {
  static const std::vector<ParamSpec> params = {
      kAddr,
      limit("5", "at most this many paths"),
  };
  return params;
}

std::optional<QueryError> readPaths(const ParamValues& values, PathsQuery& q) {
  ParamReader r(values);
  r.require("addr");
  q.addr = r.number("addr");
  q.limit = r.number("limit");
  return r.error();
}

// ---- obj ----

const std::vector<ParamSpec>& objParams() {
  static const std::vector<ParamSpec> params = {
      kAddr,
      {"bytes", K::ByteSize, "256", {}, "SIZE", "show at most this much of the contents in hex"},
      {"referrers", K::Uint, "20", {}, "N", "list at most this many referrers"},
  };
  return params;
}

std::optional<QueryError> readObj(const ParamValues& values, ObjQuery& q) {
  ParamReader r(values);
  r.require("addr");
  q.addr = r.number("addr");
  q.bytes = r.number("bytes");
  q.referrers = r.number("referrers");
  return r.error();
}

// ---- goroutines ----

const std::vector<ParamSpec>& goroutinesParams() {
  static const std::vector<ParamSpec> params = {
      {"sort", K::Choice, "id", {"id", "retained"}, {}, "order of the goroutines"},
      {"user", K::Flag, "false", {}, {}, "hide the runtime's own goroutines"},
      {"frames",
       K::Flag,
       "true",
       {},
       {},
       "one line per goroutine, without its frames",
       0,
       "no-frames"},
  };
  return params;
}

std::optional<QueryError> readGoroutines(const ParamValues& values, GoroutinesQuery& q) {
  ParamReader r(values);
  q.sort = r.choice("sort");
  q.user = r.flag("user");
  q.frames = r.flag("frames");
  return r.error();
}

// ---- suspects ----

const std::vector<ParamSpec>& suspectsParams() {
  static const std::vector<ParamSpec> params = {
      {"threshold",
       K::Percent,
       "10",
       {},
       "PERCENT",
       "the share of the reachable heap a suspect retains at least (above 0, at most 100)"},
      {"accumulation",
       K::Uint,
       "80",
       {},
       "PERCENT",
       "where memory accumulates: go down the dominator tree while one child keeps at least "
       "this share of its parent (50 to 100)"},
      limit("10", "how many suspects to show (0 = all)"),
  };
  return params;
}

std::optional<QueryError> readSuspects(const ParamValues& values, SuspectsQuery& q) {
  ParamReader r(values);
  q.threshold = r.percent("threshold");
  q.limit = r.number("limit");
  q.accumulation = r.number("accumulation");
  if (q.accumulation < 50 || q.accumulation > 100) r.fail("accumulation", "must be from 50 to 100");
  return r.error();
}

// ---- diff ----

const std::vector<ParamSpec>& diffParams() {
  static const std::vector<ParamSpec> params = {
      {"by",
       K::Choice,
       "auto",
       {"auto", "type", "site", "shape"},
       {},
       "how to group objects; auto: by type when both dumps are typed, else by site"},
      {"sort",
       K::Choice,
       "retained",
       {"retained", "shallow", "count"},
       {},
       "which growth orders the rows"},
      limit("20", "how many rows of each table to show (0 = all)"),
      {"offset", K::Uint, "0", {}, "N", "skip this many rows of each table first"},
      kFilter,
      {"unchanged",
       K::Flag,
       "false",
       {},
       {},
       "also list the groups whose count and sizes did not change"},
  };
  return params;
}

std::optional<QueryError> readDiff(const ParamValues& values, DiffQuery& q) {
  ParamReader r(values);
  q.by = r.choice("by");
  q.sort = r.choice("sort");
  q.limit = r.number("limit");
  q.offset = r.number("offset");
  q.filter = r.text("filter");
  q.unchanged = r.flag("unchanged");
  return r.error();
}

// ---- dups ----

const std::vector<ParamSpec>& dupsParams() {
  static const std::vector<ParamSpec> params = {
      {"kind",
       K::Choice,
       "all",
       {"all", "strings", "bytes", "objects"},
       {},
       "which duplicates to look for"},
      limit("20", "how many groups to show (0 = all)"),
      {"min_wasted", K::ByteSize, "0", {}, "BYTES", "leave out groups wasting less than this"},
  };
  return params;
}

std::optional<QueryError> readDups(const ParamValues& values, DupsQuery& q) {
  ParamReader r(values);
  q.kind = r.choice("kind");
  q.limit = r.number("limit");
  q.min_wasted = r.number("min_wasted");
  return r.error();
}

// ---- waste ----

const std::vector<ParamSpec>& wasteParams() {
  static const std::vector<ParamSpec> params = {limit("20", "rows per section (0 = all)")};
  return params;
}

std::optional<QueryError> readWaste(const ParamValues& values, WasteQuery& q) {
  ParamReader r(values);
  q.limit = r.number("limit");
  return r.error();
}

// ---- flame (the API only) ----

const std::vector<ParamSpec>& flameParams() {
  static const std::vector<ParamSpec> params = {
      {"min_bytes",
       K::ByteSize,
       "",
       {},
       "SIZE",
       "fold frames retaining less into their parents (default: 1/1000 of the heap)",
       0,
       {},
       true},
      {"max_depth", K::Uint, "64", {}, "N", "longest chain of frames (1 to 1024)", 0, {}, true},
  };
  return params;
}

std::optional<QueryError> readFlame(const ParamValues& values, FlameQuery& q) {
  ParamReader r(values);
  if (r.has("min_bytes")) q.min_bytes = r.number("min_bytes");
  q.max_depth = r.number("max_depth");
  if (q.max_depth == 0 || q.max_depth > 1024) r.fail("max_depth", "must be between 1 and 1024");
  return r.error();
}

// ---- search (the API only) ----

const std::vector<ParamSpec>& searchParams() {
  static const std::vector<ParamSpec> params = {
      {"q", K::Text, "", {}, "TEXT", "an address or part of a name", 0, {}, true},
      {"limit", K::Uint, "20", {}, "N", "at most this many of each kind (0: 20)", 'n', {}, true},
  };
  return params;
}

std::optional<QueryError> readSearch(const ParamValues& values, SearchQuery& q) {
  ParamReader r(values);
  r.require("q");
  q.limit = r.number("limit");
  if (q.limit == 0) q.limit = 20;
  q.q = r.text("q");
  if (r.has("q") && q.q.empty()) r.fail("q", "is empty: search for an address or a name");
  return r.error();
}

}  // namespace goheap::query
