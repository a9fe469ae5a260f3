// The SQL schema, declared once: each table's and table-valued function's
// columns, in order, with their SQL type and what they hold. Everything else
// comes from here: the column numbers the tables' code reads (the enums,
// which a static_assert ties to the arrays), SQLite's declaration of each
// table (createTableSql) and the schema section of docs/sql.md
// (schemaMarkdown, printed by `goheap sql --schema`; a test fails when the
// doc differs).
//
// To add a column: add it to the table's enum and, at the same place, to its
// array; make the table's cursor return it; then regenerate docs/sql.md as
// the test says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace goheap::sql {

enum class SqlType : uint8_t { Integer, Text, Blob };

// What a query can do with a column besides reading it.
enum class ColumnUse : uint8_t {
  Plain,
  Indexed,   // `= value` or `IN (...)` reads an index instead of scanning
  Argument,  // a table-valued function's argument: a HIDDEN column, last
};

struct Column {
  int number;  // its place in the table: the enum's value (see numberedInOrder)
  std::string_view name;
  SqlType type;
  std::string_view doc;  // one line of markdown
  ColumnUse use = ColumnUse::Plain;
};

struct TableSchema {
  std::string_view name;
  std::string_view doc;  // markdown: what a row is
  std::span<const Column> columns;
  bool function = false;  // a table-valued function: name(arguments)
};

// Short names for the declarations below.
inline constexpr SqlType kInteger = SqlType::Integer;
inline constexpr SqlType kText = SqlType::Text;
inline constexpr SqlType kBlob = SqlType::Blob;
inline constexpr ColumnUse kIndexed = ColumnUse::Indexed;
inline constexpr ColumnUse kArgument = ColumnUse::Argument;

// True when there are `count` columns and the i-th is numbered i: what makes
// a table's enum and its array one declaration.
template <size_t N>
constexpr bool numberedInOrder(const Column (&columns)[N], int count) {
  if (static_cast<int>(N) != count) return false;
  for (size_t i = 0; i < N; i++) {
    if (columns[i].number != static_cast<int>(i)) return false;
  }
  return true;
}
// True when a function has an argument and its arguments come after every
// other column (where SQLite's planner and the cursors expect them).
template <size_t N>
constexpr bool argumentsLast(const Column (&columns)[N]) {
  size_t first = N;
  for (size_t i = 0; i < N; i++) {
    if (columns[i].use == ColumnUse::Argument && first == N) first = i;
    if (columns[i].use != ColumnUse::Argument && first != N) return false;
  }
  return first < N;
}

// ---- objects ---------------------------------------------------------------

enum ObjectColumn : int {
  kObjId,
  kObjAddress,
  kObjSize,
  kObjType,
  kObjSource,
  kObjSite,
  kObjShape,
  kObjRetained,
  kObjDominator,
  kObjReachable,
  kObjTyped,
  kObjContents,
  kObjTypeEvidence,
  kObjColumnCount
};
inline constexpr Column kObjectColumns[] = {
    {kObjId, "id", kInteger, "the object's id", kIndexed},
    {kObjAddress, "address", kInteger, "where the object starts", kIndexed},
    {kObjSize, "size", kInteger, "its size in bytes (the size class's slot)"},
    {kObjType, "type", kText,
     "the Go type with the executable (`main.Session`, `[]string`); else, and for objects no "
     "typed pointer reaches, the name `goheap top --by type` gives: the allocation site "
     "(`main.load main.go:42`), a closure, an interface's type or the shape",
     kIndexed},
    {kObjSource, "source", kText,
     "where `type` comes from: `type`, `site`, `closure`, `interface` or `shape`"},
    {kObjSite, "site", kText,
     "the allocation site (the first frame outside the runtime of the object's alloc sample), "
     "or NULL when the object was not sampled",
     kIndexed},
    {kObjShape, "shape", kText, "`64 B [ptr 0,8]`: slot size and pointer offsets", kIndexed},
    {kObjRetained, "retained", kInteger, "bytes only this object keeps alive (0 when unreachable)"},
    {kObjDominator, "dominator", kInteger,
     "the node that dominates it: an object's id, or a root's node; NULL when unreachable",
     kIndexed},
    {kObjReachable, "reachable", kInteger, "1 when a root reaches it, 0 for garbage"},
    {kObjTyped, "typed", kInteger,
     "1 when `type` is a Go type (from DWARF or, stripped, the runtime's type descriptors)"},
    {kObjContents, "contents", kBlob, "its bytes"},
    {kObjTypeEvidence, "type_evidence", kText,
     "how a typed object's type was found: `dwarf` or `descriptor` (from a typed root or "
     "pointer), `header` (its malloc header), `interface` (an interface's type word), "
     "`inferred` (its size and pointer layout fit one type only: a guess); NULL when untyped"},
};
static_assert(numberedInOrder(kObjectColumns, kObjColumnCount));
inline constexpr TableSchema kObjectsTable{
    "objects",
    "One row per heap object, reachable or not (the runtime's span metadata records are left "
    "out).",
    kObjectColumns};

// ---- refs ------------------------------------------------------------------

enum RefColumn : int { kRefFrom, kRefTo, kRefOffset, kRefAddress, kRefField, kRefColumnCount };
inline constexpr Column kRefColumns[] = {
    {kRefFrom, "from", kInteger,
     "the node holding the pointer (`\"from\"` and `\"to\"` are SQL words: quote them)", kIndexed},
    {kRefTo, "to", kInteger, "the node it points to", kIndexed},
    {kRefOffset, "offset", kInteger, "of the pointer in `from`'s contents"},
    {kRefAddress, "address", kInteger, "of the pointer word"},
    {kRefField, "field", kText,
     "with the executable: the field path in `from` (`.User.Name`, `[3]`, `[\"key\"]`), the "
     "global (`main.cache.items`), or the frame's local"},
};
static_assert(numberedInOrder(kRefColumns, kRefColumnCount));
inline constexpr TableSchema kRefsTable{
    "refs",
    "One row per pointer between nodes: every pointer slot of an object, frame or global that "
    "points into a heap object, and the references roots hold without a slot (a goroutine's, a "
    "finalizer's), with NULL offsets.",
    kRefColumns};

// ---- fields ----------------------------------------------------------------

enum FieldColumn : int {
  kFieldObject,
  kFieldName,
  kFieldType,
  kFieldOffset,
  kFieldValue,
  kFieldPointer,
  kFieldTarget,
  kFieldColumnCount
};
inline constexpr Column kFieldColumns[] = {
    {kFieldObject, "object", kInteger, "the object's id", kIndexed},
    {kFieldName, "name", kText, "the field path: `ID`, `User.Name`, `Points[2].Y`"},
    {kFieldType, "type", kText, "the field's Go type"},
    {kFieldOffset, "offset", kInteger, "of the field in the object"},
    {kFieldValue, "value", kText,
     "as text: `42`, `true`, `\"a string\"`'s contents, `len 3, cap 4, 0xc000...` for a slice"},
    {kFieldPointer, "pointer", kInteger, "a pointer's value (NULL for nil and non-pointers)"},
    {kFieldTarget, "target", kInteger, "the object it points into"},
};
static_assert(numberedInOrder(kFieldColumns, kFieldColumnCount));
inline constexpr TableSchema kFieldsTable{
    "fields",
    "One row per leaf field of a typed object, as `goheap obj` shows them (empty without the "
    "executable). Join it on `fields.object = objects.id` after filtering objects: decoding "
    "every object's fields is slow on a large heap.",
    kFieldColumns};

// ---- strings ---------------------------------------------------------------

enum StringColumn : int {
  kStrHolder,
  kStrOffset,
  kStrField,
  kStrKind,
  kStrAddress,
  kStrLength,
  kStrObject,
  kStrValue,
  kStrColumnCount
};
inline constexpr Column kStringColumns[] = {
    {kStrHolder, "holder", kInteger, "the node holding the header", kIndexed},
    {kStrOffset, "offset", kInteger, "of the header in the holder"},
    {kStrField, "field", kText, "the header's field path in the holder, as in `refs`"},
    {kStrKind, "kind", kText, "`string` or `bytes`"},
    {kStrAddress, "address", kInteger, "of the bytes"},
    {kStrLength, "length", kInteger, "in bytes"},
    {kStrObject, "object", kInteger,
     "the object holding the bytes, NULL for a literal in the executable", kIndexed},
    {kStrValue, "value", kBlob,
     "the contents: text for a string, a blob for `[]byte`; NULL when neither the dump nor the "
     "executable has them"},
};
static_assert(numberedInOrder(kStringColumns, kStrColumnCount));
inline constexpr TableSchema kStringsTable{
    "strings",
    "One row per string and `[]byte` header in typed memory (objects and globals; empty without "
    "the executable).",
    kStringColumns};

// ---- roots -----------------------------------------------------------------

enum RootColumn : int {
  kRootRoot,
  kRootKind,
  kRootName,
  kRootObject,
  kRootOffset,
  kRootAddress,
  kRootField,
  kRootColumnCount
};
inline constexpr Column kRootColumns[] = {
    {kRootRoot, "root", kInteger, "the root's node", kIndexed},
    {kRootKind, "kind", kText,
     "`data segment`, `bss segment`, `goroutine`, `stack frame`, `finalizer`, ...", kIndexed},
    {kRootName, "name", kText,
     "for a global, its name (`main.sessions`); else the root's description", kIndexed},
    {kRootObject, "object", kInteger, "the object's id", kIndexed},
    {kRootOffset, "offset", kInteger, "of the pointer in the root, as in `refs`"},
    {kRootAddress, "address", kInteger, "of the pointer word"},
    {kRootField, "field", kText, "as in `refs`"},
};
static_assert(numberedInOrder(kRootColumns, kRootColumnCount));
inline constexpr TableSchema kRootsTable{"roots", "One row per pointer a root holds.",
                                         kRootColumns};

// ---- goroutines ------------------------------------------------------------

enum GoroutineColumn : int {
  kGoroutineId,
  kGoroutineStatus,
  kGoroutineWaitReason,
  kGoroutineWaitSince,
  kGoroutineSystem,
  kGoroutineRetained,
  kGoroutineAddress,
  kGoroutineCreatedBy,
  kGoroutineCreatedFile,
  kGoroutineCreatedLine,
  kGoroutineNode,
  kGoroutineFrames,
  kGoroutineLeaked,
  kGoroutineBlockedIn,
  kGoroutineColumnCount
};
inline constexpr Column kGoroutineColumns[] = {
    {kGoroutineId, "id", kInteger, "the goroutine's id", kIndexed},
    {kGoroutineStatus, "status", kText, "`running`, `runnable`, `waiting`, `syscall`, ..."},
    {kGoroutineWaitReason, "wait_reason", kText, "why it waits (`chan receive`), else NULL"},
    {kGoroutineWaitSince, "wait_since", kInteger,
     "nanotime when the GC first saw it blocked (0: not blocked)"},
    {kGoroutineSystem, "system", kInteger, "1 for a runtime goroutine"},
    {kGoroutineRetained, "retained", kInteger, "bytes only its stack keeps alive"},
    {kGoroutineAddress, "address", kInteger, "of its `g`"},
    {kGoroutineCreatedBy, "created_by", kText, "the function whose `go` statement started it"},
    {kGoroutineCreatedFile, "created_file", kText, "the `go` statement's file"},
    {kGoroutineCreatedLine, "created_line", kInteger, "and line"},
    {kGoroutineNode, "node", kInteger, "the goroutine's root node", kIndexed},
    {kGoroutineFrames, "frames", kInteger, "the frames on its stack"},
    {kGoroutineLeaked, "leaked", kInteger,
     "1 when blocked forever (`goheap goroutines --leaked`), else 0"},
    {kGoroutineBlockedIn, "blocked_in", kText,
     "its innermost function outside runtime and sync, else NULL"},
};
static_assert(numberedInOrder(kGoroutineColumns, kGoroutineColumnCount));
inline constexpr TableSchema kGoroutinesTable{"goroutines", "One row per goroutine.",
                                              kGoroutineColumns};

// ---- frames ----------------------------------------------------------------

enum FrameColumn : int {
  kFrameGoroutine,
  kFrameDepth,
  kFrameFunction,
  kFrameFile,
  kFrameLine,
  kFramePc,
  kFrameSize,
  kFrameRetained,
  kFrameNode,
  kFrameInlined,
  kFrameColumnCount
};
inline constexpr Column kFrameColumns[] = {
    {kFrameGoroutine, "goroutine", kInteger, "the goroutine's id", kIndexed},
    {kFrameDepth, "depth", kInteger, "0 for the innermost frame"},
    {kFrameFunction, "function", kText, "the function running in it", kIndexed},
    {kFrameFile, "file", kText, "the source file of its PC"},
    {kFrameLine, "line", kInteger, "and line"},
    {kFramePc, "pc", kInteger, "the frame's PC"},
    {kFrameSize, "size", kInteger, "the frame's size in bytes"},
    {kFrameRetained, "retained", kInteger, "bytes only this frame keeps alive"},
    {kFrameNode, "node", kInteger, "the frame's node: join `roots.root` for what it holds",
     kIndexed},
    {kFrameInlined, "inlined", kText, "the calls inlined at the PC, innermost first"},
};
static_assert(numberedInOrder(kFrameColumns, kFrameColumnCount));
inline constexpr TableSchema kFramesTable{"frames", "One row per frame of every goroutine's stack.",
                                          kFrameColumns};

// ---- globals ---------------------------------------------------------------

enum GlobalColumn : int {
  kGlobalName,
  kGlobalAddress,
  kGlobalSize,
  kGlobalType,
  kGlobalPointers,
  kGlobalRoot,
  kGlobalOffset,
  kGlobalColumnCount
};
inline constexpr Column kGlobalColumns[] = {
    {kGlobalName, "name", kText, "the variable's name (`main.sessions`)", kIndexed},
    {kGlobalAddress, "address", kInteger, "where it is", kIndexed},
    {kGlobalSize, "size", kInteger, "its size in bytes"},
    {kGlobalType, "type", kText, "its Go type"},
    {kGlobalPointers, "pointers", kInteger, "its words that point into the heap"},
    {kGlobalRoot, "root", kInteger, "the data or bss segment's node"},
    {kGlobalOffset, "offset", kInteger, "of the variable in that segment"},
};
static_assert(numberedInOrder(kGlobalColumns, kGlobalColumnCount));
inline constexpr TableSchema kGlobalsTable{
    "globals", "One row per global variable (empty without the executable).", kGlobalColumns};

// ---- types -----------------------------------------------------------------

enum TypeColumn : int {
  kTypeName,
  kTypeSource,
  kTypeCount,
  kTypeBytes,
  kTypeRetained,
  kTypeColumnCount
};
inline constexpr Column kTypeColumns[] = {
    {kTypeName, "name", kText, "the group's name, as `objects.type`", kIndexed},
    {kTypeSource, "source", kText, "as `objects.source`"},
    {kTypeCount, "count", kInteger, "its reachable objects"},
    {kTypeBytes, "bytes", kInteger, "their size"},
    {kTypeRetained, "retained", kInteger,
     "each member's retained size counted once: members that another member dominates are not "
     "added again"},
};
static_assert(numberedInOrder(kTypeColumns, kTypeColumnCount));
inline constexpr TableSchema kTypesTable{
    "types", "The totals `goheap top --by type` shows, one row per group: reachable objects only.",
    kTypeColumns};

// ---- sites -----------------------------------------------------------------

enum SiteColumn : int {
  kSiteId,
  kSiteSite,
  kSiteFunction,
  kSiteFile,
  kSiteLine,
  kSiteStack,
  kSiteSize,
  kSiteAllocs,
  kSiteFrees,
  kSiteColumnCount
};
inline constexpr Column kSiteColumns[] = {
    {kSiteId, "id", kInteger, "the stack's number in the profile", kIndexed},
    {kSiteSite, "site", kText, "the name objects get (`objects.site`)", kIndexed},
    {kSiteFunction, "function", kText, "the first function outside the runtime"},
    {kSiteFile, "file", kText, "its file"},
    {kSiteLine, "line", kInteger, "and line"},
    {kSiteStack, "stack", kText, "every frame, leaf first, one per line"},
    {kSiteSize, "size", kInteger, "the profile record's allocation size"},
    {kSiteAllocs, "allocs", kInteger, "allocations the profile counted from the stack"},
    {kSiteFrees, "frees", kInteger, "and frees"},
};
static_assert(numberedInOrder(kSiteColumns, kSiteColumnCount));
inline constexpr TableSchema kSitesTable{
    "sites", "One row per allocation stack the dump's profile has.", kSiteColumns};

// ---- mappings ----------------------------------------------------------------

enum MappingColumn : int {
  kMappingAddress,
  kMappingSize,
  kMappingResident,
  kMappingPermissions,
  kMappingFile,
  kMappingCategory,
  kMappingColumnCount
};
inline constexpr Column kMappingColumns[] = {
    {kMappingAddress, "address", kInteger, "where the mapping starts"},
    {kMappingSize, "size", kInteger, "its bytes"},
    {kMappingResident, "resident", kInteger,
     "its resident bytes (Rss): known from a snap only, else NULL"},
    {kMappingPermissions, "permissions", kText,
     "`rw-p` as /proc/PID/maps writes them; a core does not say shared or private: `rw-?`"},
    {kMappingFile, "file", kText, "the file mapped, `[heap]` or `[stack]` in a snap; NULL if none"},
    {kMappingCategory, "category", kText,
     "the category of `goheap memory` that holds most of its bytes (`heap_free`, `c_heap`, ...)",
     kIndexed},
};
static_assert(numberedInOrder(kMappingColumns, kMappingColumnCount));
inline constexpr TableSchema kMappingsTable{
    "mappings",
    "One row per mapping of the process (a core's or a snap's; empty for a heap dump), as "
    "`goheap memory --mappings` lists them.",
    kMappingColumns};

// ---- paths(target [, max_paths]) --------------------------------------------

enum PathColumn : int {
  kPathPath,
  kPathStep,
  kPathNode,
  kPathKind,
  kPathName,
  kPathAddress,
  kPathOffset,
  kPathField,
  kPathTarget,
  kPathMaxPaths,
  kPathColumnCount
};
inline constexpr Column kPathColumns[] = {
    {kPathPath, "path", kInteger, "the path's number, from 0, shortest first"},
    {kPathStep, "step", kInteger, "the step's number in its path: 0 is the root"},
    {kPathNode, "node", kInteger, "the step's node"},
    {kPathKind, "kind", kText, "`object`, or the root's kind"},
    {kPathName, "name", kText, "an object's type (as `objects.type`), or what the root is"},
    {kPathAddress, "address", kInteger, "an object's address (NULL for a root)"},
    {kPathOffset, "offset", kInteger,
     "where this node holds the pointer to the next step (NULL for the last, and for a link "
     "without a slot)"},
    {kPathField, "field", kText, "what that pointer is in this node, as `refs.field`"},
    {kPathTarget, "target", kInteger, "the node whose paths are asked for", kArgument},
    {kPathMaxPaths, "max_paths", kInteger, "paths at most (default 5, at most 1,000)", kArgument},
};
static_assert(numberedInOrder(kPathColumns, kPathColumnCount));
static_assert(argumentsLast(kPathColumns));
inline constexpr TableSchema kPathsFunction{
    "paths", "The shortest paths from roots to node `target`: one row per step.", kPathColumns,
    true};

// ---- subtree(node [, max_depth]) ---------------------------------------------

enum SubtreeColumn : int {
  kSubtreeId,
  kSubtreeDepth,
  kSubtreeDominator,
  kSubtreeRetained,
  kSubtreeSize,
  kSubtreeKind,
  kSubtreeNode,
  kSubtreeMaxDepth,
  kSubtreeColumnCount
};
inline constexpr Column kSubtreeColumns[] = {
    {kSubtreeId, "id", kInteger, "the node"},
    {kSubtreeDepth, "depth", kInteger, "levels below `node`"},
    {kSubtreeDominator, "dominator", kInteger, "the node that dominates it"},
    {kSubtreeRetained, "retained", kInteger, "bytes it keeps alive"},
    {kSubtreeSize, "size", kInteger, "its own size"},
    {kSubtreeKind, "kind", kText, "`object`, or the root's kind"},
    {kSubtreeNode, "node", kInteger, "the subtree's top", kArgument},
    {kSubtreeMaxDepth, "max_depth", kInteger, "levels below `node` at most (default: all)",
     kArgument},
};
static_assert(numberedInOrder(kSubtreeColumns, kSubtreeColumnCount));
static_assert(argumentsLast(kSubtreeColumns));
inline constexpr TableSchema kSubtreeFunction{
    "subtree",
    "The nodes `node` dominates, `node` first at depth 0, then depth first, biggest first.",
    kSubtreeColumns, true};

// ---- dominators(node) ------------------------------------------------------

enum DominatorColumn : int { kDomId, kDomDepth, kDomKind, kDomNode, kDomColumnCount };
inline constexpr Column kDominatorColumns[] = {
    {kDomId, "id", kInteger, "the dominator"},
    {kDomDepth, "depth", kInteger, "1 for the nearest"},
    {kDomKind, "kind", kText, "`object`, or the root's kind"},
    {kDomNode, "node", kInteger, "the node whose dominators are asked for", kArgument},
};
static_assert(numberedInOrder(kDominatorColumns, kDomColumnCount));
static_assert(argumentsLast(kDominatorColumns));
inline constexpr TableSchema kDominatorsFunction{
    "dominators", "The nodes that dominate `node`, nearest first.", kDominatorColumns, true};

// ---- the whole schema ------------------------------------------------------

// Every table, then every table-valued function, in the order they are
// created and documented.
inline constexpr const TableSchema* kSqlSchema[] = {
    &kObjectsTable,    &kRefsTable,     &kFieldsTable,     &kStringsTable,       &kRootsTable,
    &kGoroutinesTable, &kFramesTable,   &kGlobalsTable,    &kTypesTable,         &kSitesTable,
    &kMappingsTable,   &kPathsFunction, &kSubtreeFunction, &kDominatorsFunction,
};

std::string_view sqlTypeName(SqlType type);

// SQLite's declaration of a table (sqlite3_declare_vtab):
// CREATE TABLE x("id" INTEGER, ..., "node" INTEGER HIDDEN).
std::string createTableSql(const TableSchema& table);

// The numbers of a table's Indexed columns, in column order.
std::vector<int> indexedColumns(const TableSchema& table);

// docs/sql.md's schema section: each table of kSqlSchema as a heading, its
// doc and a table of its columns.
std::string schemaMarkdown();

}  // namespace goheap::sql
