#include "sql/tables.h"

#include <algorithm>
#include <array>

#include "analysis/labels.h"
#include "analysis/paths.h"
#include "sql/built_tables.h"
#include "sql/schema.h"
#include "sql/virtual_table.h"
#include "typing/values.h"

namespace goheap::sql {

namespace {

// Where the bytes at [address, address + length) are: inside one object,
// in the data or bss segment, or (a literal) in the executable's read-only
// data. Null when neither the dump nor the executable has them (a stack,
// freed memory). They live as long as the Snapshot.
const uint8_t* bytesAt(const analysis::Snapshot& s, uint64_t address, uint64_t length) {
  const model::HeapModel& d = s.model;
  const NodeId o = s.heap.addresses().find(address);
  if (o != kNoNode) {
    const uint64_t start = d.objects.addr[o], size = d.objects.size[o];
    if (length > size - (address - start)) return nullptr;
    return d.objectData(o) + (address - start);
  }
  for (const model::Segment* seg : {&d.data, &d.bss}) {
    if (!seg->present || address < seg->addr) continue;
    const uint64_t off = address - seg->addr;
    if (off > seg->contents.size || length > seg->contents.size - off) continue;
    return d.bytes(seg->contents).data() + off;
  }
  if (s.exe && address >= s.exe->loadBias()) {
    if (auto b = s.exe->binary().container().readAt(address - s.exe->loadBias(), length)) {
      return b->bytes().data();
    }
  }
  return nullptr;
}

// A node id as SQL gives it: NULL for none.
void resultNode(sqlite3_context* ctx, NodeId n) {
  if (n == kNoNode) {
    sqlite3_result_null(ctx);
  } else {
    resultInt(ctx, n);
  }
}

// "object", or the root's kind ("stack frame", "bss segment", ...).
std::string_view nodeKindName(const analysis::Snapshot& s, NodeId n) {
  return s.heap.isObject(n) ? std::string_view("object") : graph::rootKindName(s.heap.rootKind(n));
}

// The heap of a table's schema, or an Error naming it.
Expected<const SqlHeap*> heapOf(const HeapForSchema& heaps, std::string_view schema) {
  const SqlHeap* h = heaps(schema);
  if (h == nullptr) {
    return Error("no heap for schema '" + std::string(schema) +
                 "' (the tables live in main, and in old with --base)");
  }
  return h;
}

// True when `lookups` search exactly the columns `table` declares Indexed
// (what docs/sql.md says reads an index).
constexpr bool searchesIndexedColumns(std::span<const Lookup> lookups, const TableSchema& table) {
  size_t indexed = 0;
  for (const Column& c : table.columns) indexed += c.use == ColumnUse::Indexed ? 1 : 0;
  if (lookups.size() != indexed) return false;
  for (const Lookup& l : lookups) {
    if (l.column < 0 || static_cast<size_t>(l.column) >= table.columns.size() ||
        table.columns[static_cast<size_t>(l.column)].use != ColumnUse::Indexed) {
      return false;
    }
  }
  return true;
}

// A table searched by equality on some columns (`lookups`), else scanned:
// refs, fields and strings. `scan_rows` estimates a scan's rows (its cost,
// for SQLite's planner) from the heap.
template <class CursorType>
class LookupTable final : public Table {
 public:
  using ScanRows = double (*)(const analysis::Snapshot&);
  LookupTable(const SqlHeap& heap, ScanCounter& counter, const TableSchema& schema,
              std::span<const Lookup> lookups, ScanRows scan_rows)
      : heap_(heap), counter_(counter), schema_(schema), lookups_(lookups), scan_rows_(scan_rows) {}
  const TableSchema& schema() const override { return schema_; }
  int plan(sqlite3_index_info& info) const override {
    planLookup(info, lookups_, scan_rows_(heap_.snapshot()));
    return SQLITE_OK;
  }
  std::unique_ptr<Cursor> open() const override {
    return std::make_unique<CursorType>(heap_, counter_);
  }

 private:
  const SqlHeap& heap_;
  ScanCounter& counter_;
  const TableSchema& schema_;
  std::span<const Lookup> lookups_;
  ScanRows scan_rows_;
};

// ---- objects ---------------------------------------------------------------

// The lookups plan() may choose, numbered as in kObjectLookups (idxNum - 1).
enum ObjectLookup : int { kById, kByAddress, kByDominator, kByType, kBySite, kByShape };
constexpr Lookup kObjectLookups[] = {
    {kObjId, 1},      {kObjAddress, 1}, {kObjDominator, 4},
    {kObjType, 1000}, {kObjSite, 1000}, {kObjShape, 2000},
};
static_assert(searchesIndexedColumns(kObjectLookups, kObjectsTable));
// idxNum bits 8 and up: a scan in the order of a grouping's names.
constexpr int kOrderShift = 8;

typing::GroupKind groupKindOfColumn(int column) {
  switch (column) {
    case kObjSite:
      return typing::GroupKind::Site;
    case kObjShape:
      return typing::GroupKind::Shape;
    default:
      return typing::GroupKind::Type;
  }
}

class ObjectsCursor final : public Cursor {
 public:
  ObjectsCursor(const SqlHeap& heap, ScanCounter& counter)
      : heap_(heap), s_(heap.snapshot()), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    list_ = {};
    pos_ = 0;
    single_ = kNoNode;
    const int lookup = (r.plan & 0xff) - 1;
    const int order = r.plan >> kOrderShift;
    range_ = false;
    switch (lookup) {
      case -1:
        if (order != 0) {
          list_ = heap_.groups(groupKindOfColumn(order)).members;
        } else {
          range_ = true;
          end_ = s_.heap.objectCount();
        }
        break;
      case kById:
        if (auto id = unsignedArg(r.args[0]); id && *id < s_.heap.objectCount()) {
          single_ = static_cast<NodeId>(*id);
        }
        break;
      case kByAddress:
        if (auto a = unsignedArg(r.args[0])) {
          const NodeId o = s_.heap.addresses().find(*a);
          if (o != kNoNode && s_.model.objects.addr[o] == *a) single_ = o;
        }
        break;
      case kByDominator:
        if (auto d = unsignedArg(r.args[0]); d && *d < s_.heap.nodeCount()) {
          list_ = s_.dominatorChildren().neighbors(static_cast<NodeId>(*d));
        }
        break;
      default: {
        const typing::GroupKind kind = lookup == kBySite    ? typing::GroupKind::Site
                                       : lookup == kByShape ? typing::GroupKind::Shape
                                                            : typing::GroupKind::Type;
        list_ = heap_.groups(kind).membersNamed(textArg(r.args[0]));
        break;
      }
    }
    if (single_ != kNoNode) {
      list_ = std::span<const uint32_t>(&single_, 1);
    }
    skipRejected();
    return Status::success();
  }
  void next() override {
    pos_++;
    skipRejected();
  }
  bool eof() const override { return range_ ? pos_ >= end_ : pos_ >= list_.size(); }
  int64_t rowid() const override { return current(); }

  void column(sqlite3_context* ctx, int col) override {
    const NodeId o = current();
    switch (col) {
      case kObjId:
        resultInt(ctx, o);
        break;
      case kObjAddress:
        resultInt(ctx, s_.model.objects.addr[o]);
        break;
      case kObjSize:
        resultInt(ctx, s_.model.objects.size[o]);
        break;
      case kObjType:
      case kObjSource:
      case kObjSite:
      case kObjShape: {
        const GroupIndex& g = heap_.groups(groupKindOfColumn(col));
        const uint32_t group = g.grouping.group_of[o];
        const typing::NameSource source = g.grouping.sources[group];
        if (col == kObjSource) {
          resultText(ctx, typing::nameSourceName(source), true);
        } else if (col == kObjSite && source != typing::NameSource::Site) {
          sqlite3_result_null(ctx);
        } else {
          resultText(ctx, g.grouping.names[group], true);
        }
        break;
      }
      case kObjRetained:
        resultInt(ctx, s_.reachable(o) ? s_.retained[o] : 0);
        break;
      case kObjDominator:
        resultNode(ctx, s_.dom.idom[o]);
        break;
      case kObjReachable:
        sqlite3_result_int(ctx, s_.reachable(o) ? 1 : 0);
        break;
      case kObjTyped:
        sqlite3_result_int(ctx, s_.types && s_.types->typed(o) ? 1 : 0);
        break;
      case kObjContents:
        resultBlob(ctx, s_.model.objectData(o), s_.model.objects.size[o], true);
        break;
      case kObjTypeEvidence:
        if (s_.types && s_.types->typed(o)) {
          resultText(ctx,
                     typing::typeEvidenceName(s_.types->evidence(o),
                                              s_.exe && s_.exe->typeTableSource() == "DWARF"),
                     true);
        } else {
          sqlite3_result_null(ctx);
        }
        break;
      default:
        sqlite3_result_null(ctx);
    }
  }

 private:
  NodeId current() const { return range_ ? static_cast<NodeId>(pos_) : list_[pos_]; }
  // Span metadata records are not objects; a dominator's children may be
  // roots' (only objects are rows).
  void skipRejected() {
    while (!eof()) {
      const NodeId o = current();
      if (s_.heap.isObject(o) && !s_.isRuntimeMetadata(o)) break;
      pos_++;
    }
    if (!eof()) counter_.rows++;
  }

  const SqlHeap& heap_;
  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  bool range_ = false;
  size_t end_ = 0;
  std::span<const uint32_t> list_;
  size_t pos_ = 0;
  NodeId single_ = kNoNode;
};

class ObjectsTable final : public Table {
 public:
  ObjectsTable(const SqlHeap& heap, ScanCounter& counter) : heap_(heap), counter_(counter) {}
  const TableSchema& schema() const override { return kObjectsTable; }

  int plan(sqlite3_index_info& info) const override {
    const double objects = heap_.snapshot().heap.objectCount();
    const int chosen = planLookup(info, kObjectLookups, objects);
    // A scan can come in name order of the type, site or shape: what GROUP
    // BY and ORDER BY on that column read without sorting.
    if (chosen < 0 && info.nOrderBy == 1 && !info.aOrderBy[0].desc) {
      const int col = info.aOrderBy[0].iColumn;
      if (col == kObjType || col == kObjSite || col == kObjShape) {
        info.idxNum = col << kOrderShift;
        info.orderByConsumed = 1;
      }
    }
    return SQLITE_OK;
  }
  std::unique_ptr<Cursor> open() const override {
    return std::make_unique<ObjectsCursor>(heap_, counter_);
  }

 private:
  const SqlHeap& heap_;
  ScanCounter& counter_;
};

// ---- refs ------------------------------------------------------------------

constexpr Lookup kRefLookups[] = {{kRefFrom, 4}, {kRefTo, 4}};
static_assert(searchesIndexedColumns(kRefLookups, kRefsTable));

class RefsCursor final : public Cursor {
 public:
  RefsCursor(const SqlHeap& heap, ScanCounter& counter) : s_(heap.snapshot()), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    sources_.clear();
    only_to_ = kNoNode;
    next_source_ = 0;
    rowid_ = 0;
    scan_all_ = false;
    switch (r.plan) {
      case 0:
        scan_all_ = true;
        break;
      case 1:  // from
        if (auto n = unsignedArg(r.args[0]); n && *n < s_.heap.nodeCount()) {
          sources_.push_back(static_cast<NodeId>(*n));
        }
        break;
      case 2:  // to
        if (auto n = unsignedArg(r.args[0]); n && *n < s_.heap.nodeCount()) {
          only_to_ = static_cast<NodeId>(*n);
          for (NodeId p : s_.heap.predecessors().neighbors(only_to_)) {
            if (sources_.empty() || sources_.back() != p) sources_.push_back(p);
          }
        }
        break;
    }
    loadNextSource();
    return Status::success();
  }
  void next() override {
    pos_++;
    rowid_++;
    skipRejected();
  }
  bool eof() const override { return pos_ >= rows_.size() && exhausted_; }
  int64_t rowid() const override { return static_cast<int64_t>(rowid_); }

  void column(sqlite3_context* ctx, int col) override {
    const RefRow& row = rows_[pos_];
    switch (col) {
      case kRefFrom:
        resultInt(ctx, from_);
        break;
      case kRefTo:
        resultInt(ctx, row.to);
        break;
      case kRefOffset:
        if (row.offset) {
          resultInt(ctx, *row.offset);
        } else {
          sqlite3_result_null(ctx);
        }
        break;
      case kRefAddress:
        if (row.offset) {
          resultInt(ctx, row.slot_address);
        } else {
          sqlite3_result_null(ctx);
        }
        break;
      case kRefField: {
        std::string field;
        if (row.offset) field = analysis::slotField(s_, from_, *row.offset, row.slot_address);
        if (field.empty()) {
          sqlite3_result_null(ctx);
        } else {
          resultText(ctx, field);
        }
        break;
      }
      default:
        sqlite3_result_null(ctx);
    }
  }

 private:
  // Moves to the first row of the next source with one.
  void loadNextSource() {
    rows_.clear();
    pos_ = 0;
    exhausted_ = false;
    skipRejected();
  }
  void skipRejected() {
    for (;;) {
      while (pos_ < rows_.size() && only_to_ != kNoNode && rows_[pos_].to != only_to_) pos_++;
      if (pos_ < rows_.size()) {
        counter_.rows++;
        return;
      }
      NodeId source = kNoNode;
      if (scan_all_) {
        if (next_source_ < s_.heap.nodeCount()) source = next_source_++;
      } else if (next_source_ < sources_.size()) {
        source = sources_[next_source_++];
      }
      if (source == kNoNode) {
        exhausted_ = true;
        return;
      }
      from_ = source;
      refsFrom(s_, source, rows_);
      pos_ = 0;
    }
  }

  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  bool scan_all_ = false;
  std::vector<NodeId> sources_;
  uint32_t next_source_ = 0;
  NodeId only_to_ = kNoNode;
  NodeId from_ = kNoNode;
  std::vector<RefRow> rows_;
  size_t pos_ = 0;
  bool exhausted_ = true;
  uint64_t rowid_ = 0;
};

// ---- fields ----------------------------------------------------------------

// Decoding every object's fields costs far more than reading a row.
constexpr Lookup kFieldLookups[] = {{kFieldObject, 8}};
static_assert(searchesIndexedColumns(kFieldLookups, kFieldsTable));

// Fields decoded per object at most: an array's first elements.
constexpr size_t kFieldsPerObject = 4096;

class FieldsCursor final : public Cursor {
 public:
  FieldsCursor(const SqlHeap& heap, ScanCounter& counter)
      : s_(heap.snapshot()), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    fields_.clear();
    pos_ = 0;
    next_object_ = 0;
    last_object_ = 0;
    if (!s_.types) return Status::success();  // untyped: no fields
    if (r.plan == 1) {
      if (auto o = unsignedArg(r.args[0]); o && *o < s_.heap.objectCount()) {
        next_object_ = static_cast<NodeId>(*o);
        last_object_ = next_object_ + 1;
      }
    } else {
      last_object_ = s_.heap.objectCount();
    }
    advance();
    return Status::success();
  }
  void next() override {
    pos_++;
    advance();
  }
  bool eof() const override { return pos_ >= fields_.size(); }
  int64_t rowid() const override { return static_cast<int64_t>(rowid_); }

  void column(sqlite3_context* ctx, int col) override {
    const typing::FieldValue& f = fields_[pos_];
    switch (col) {
      case kFieldObject:
        resultInt(ctx, object_);
        break;
      case kFieldName:
        resultText(ctx, f.path);
        break;
      case kFieldType:
        resultText(ctx, f.type);
        break;
      case kFieldOffset:
        resultInt(ctx, f.offset);
        break;
      case kFieldValue:
        resultText(ctx, f.value);
        break;
      case kFieldPointer:
        if (f.points_to != 0) {
          resultInt(ctx, f.points_to);
        } else {
          sqlite3_result_null(ctx);
        }
        break;
      case kFieldTarget:
        resultNode(ctx, f.points_to != 0 ? s_.heap.addresses().find(f.points_to) : kNoNode);
        break;
      default:
        sqlite3_result_null(ctx);
    }
  }

 private:
  void advance() {
    while (pos_ >= fields_.size() && next_object_ < last_object_) {
      object_ = next_object_++;
      fields_.clear();
      pos_ = 0;
      if (!s_.types->typed(object_) || s_.isRuntimeMetadata(object_)) continue;
      fields_ = typing::decodeFields(s_.model, s_.heap, *s_.types, *s_.exe->typeTable(), *s_.exe,
                                     object_, kFieldsPerObject);
    }
    if (pos_ < fields_.size()) {
      counter_.rows++;
      rowid_++;
    }
  }

  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  std::vector<typing::FieldValue> fields_;
  size_t pos_ = 0;
  NodeId object_ = 0, next_object_ = 0, last_object_ = 0;
  uint64_t rowid_ = 0;
};

// ---- strings ---------------------------------------------------------------

constexpr Lookup kStringLookups[] = {{kStrHolder, 4}, {kStrObject, 2}};
static_assert(searchesIndexedColumns(kStringLookups, kStringsTable));

class StringsCursor final : public Cursor {
 public:
  StringsCursor(const SqlHeap& heap, ScanCounter& counter)
      : heap_(heap), s_(heap.snapshot()), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    const std::vector<analysis::Header>& headers = heap_.textHeaders();
    order_ = {};
    pos_ = end_ = 0;
    switch (r.plan) {
      case 0:
        end_ = headers.size();
        break;
      case 1:  // holder: headers come in holder order
        if (auto h = unsignedArg(r.args[0])) {
          auto range = std::equal_range(
              headers.begin(), headers.end(), *h,
              [](const auto& a, const auto& b) { return holderOf(a) < holderOf(b); });
          pos_ = static_cast<size_t>(range.first - headers.begin());
          end_ = static_cast<size_t>(range.second - headers.begin());
        }
        break;
      case 2:  // object: the headers whose bytes are in it
        if (auto o = unsignedArg(r.args[0]); o && *o < s_.heap.objectCount()) {
          const std::vector<uint32_t>& by_target = heap_.textHeadersByTarget();
          const uint64_t lo = s_.model.objects.addr[*o], hi = lo + s_.model.objects.size[*o];
          auto first =
              std::lower_bound(by_target.begin(), by_target.end(), lo,
                               [&](uint32_t i, uint64_t a) { return headers[i].data < a; });
          auto last = std::lower_bound(first, by_target.end(), hi,
                                       [&](uint32_t i, uint64_t a) { return headers[i].data < a; });
          order_ = std::span<const uint32_t>(by_target).subspan(
              static_cast<size_t>(first - by_target.begin()), static_cast<size_t>(last - first));
          end_ = order_.size();
        }
        break;
    }
    if (pos_ < end_) counter_.rows++;
    return Status::success();
  }
  void next() override {
    if (++pos_ < end_) counter_.rows++;
  }
  bool eof() const override { return pos_ >= end_; }
  int64_t rowid() const override { return index(); }

  void column(sqlite3_context* ctx, int col) override {
    const analysis::Header& h = heap_.textHeaders()[index()];
    switch (col) {
      case kStrHolder:
        resultInt(ctx, h.holder);
        break;
      case kStrOffset:
        resultInt(ctx, h.offset);
        break;
      case kStrField: {
        const std::string field = analysis::slotField(s_, h.holder, h.offset, h.slot_address);
        if (field.empty()) {
          sqlite3_result_null(ctx);
        } else {
          resultText(ctx, field);
        }
        break;
      }
      case kStrKind:
        resultText(ctx, h.kind == analysis::HeaderKind::String ? "string" : "bytes", true);
        break;
      case kStrAddress:
        resultInt(ctx, h.data);
        break;
      case kStrLength:
        resultInt(ctx, h.len);
        break;
      case kStrObject:
        resultNode(ctx, h.len == 0 ? kNoNode : s_.heap.addresses().find(h.data));
        break;
      case kStrValue: {
        const uint8_t* p = h.len == 0 ? nullptr : bytesAt(s_, h.data, h.len);
        if (h.len == 0) {
          if (h.kind == analysis::HeaderKind::String) {
            resultText(ctx, "", true);
          } else {
            resultBlob(ctx, nullptr, 0, true);
          }
        } else if (p == nullptr) {
          sqlite3_result_null(ctx);  // in neither the dump nor the executable
        } else if (h.kind == analysis::HeaderKind::String) {
          resultText(ctx, {reinterpret_cast<const char*>(p), h.len}, true);
        } else {
          resultBlob(ctx, p, h.len, true);
        }
        break;
      }
      default:
        sqlite3_result_null(ctx);
    }
  }

 private:
  static uint64_t holderOf(const analysis::Header& h) { return h.holder; }
  static uint64_t holderOf(uint64_t h) { return h; }
  size_t index() const { return order_.empty() ? pos_ : order_[pos_]; }

  const SqlHeap& heap_;
  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  std::span<const uint32_t> order_;
  size_t pos_ = 0, end_ = 0;
};

// ---- the built tables (roots, goroutines, frames, globals, types, sites) ----

class BuiltCursor final : public Cursor {
 public:
  BuiltCursor(const SqlHeap& heap, BuiltTable table, ScanCounter& counter)
      : heap_(heap), table_(table), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    const BuiltRows& built = heap_.rows(table_);
    rows_ = &built.rows;
    matches_.clear();
    pos_ = 0;
    all_ = r.plan == 0;
    if (!all_) {
      const int column = builtTableSpec(table_).indexed[static_cast<size_t>(r.plan - 1)];
      sqlite3_value* v = r.args[0];
      for (const auto& [c, index] : built.int_index) {
        if (c != column || sqlite3_value_type(v) != SQLITE_INTEGER) continue;
        auto [lo, hi] = index.equal_range(sqlite3_value_int64(v));
        for (auto it = lo; it != hi; ++it) matches_.push_back(it->second);
      }
      for (const auto& [c, index] : built.text_index) {
        if (c != column || sqlite3_value_type(v) == SQLITE_NULL) continue;
        auto [lo, hi] = index.equal_range(std::string(textArg(v)));
        for (auto it = lo; it != hi; ++it) matches_.push_back(it->second);
      }
      std::sort(matches_.begin(), matches_.end());
    }
    if (!eof()) counter_.rows++;
    return Status::success();
  }
  void next() override {
    if (++pos_, !eof()) counter_.rows++;
  }
  bool eof() const override { return pos_ >= (all_ ? rows_->size() : matches_.size()); }
  int64_t rowid() const override { return row(); }
  void column(sqlite3_context* ctx, int col) override {
    const Value& v = (*rows_)[row()][static_cast<size_t>(col)];
    if (const auto* i = std::get_if<int64_t>(&v)) {
      sqlite3_result_int64(ctx, *i);
    } else if (const auto* d = std::get_if<double>(&v)) {
      sqlite3_result_double(ctx, *d);
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      resultText(ctx, *s, true);
    } else {
      sqlite3_result_null(ctx);
    }
  }

 private:
  size_t row() const { return all_ ? pos_ : matches_[pos_]; }
  const SqlHeap& heap_;
  BuiltTable table_;
  ScanCounter& counter_;
  const std::vector<std::vector<Value>>* rows_ = nullptr;
  std::vector<uint32_t> matches_;
  size_t pos_ = 0;
  bool all_ = true;
};

class BuiltRowsTable final : public Table {
 public:
  BuiltRowsTable(const SqlHeap& heap, BuiltTable table, ScanCounter& counter)
      : heap_(heap), table_(table), counter_(counter) {}
  const TableSchema& schema() const override { return builtTableSpec(table_).schema; }
  int plan(sqlite3_index_info& info) const override {
    std::vector<Lookup> lookups;
    for (int c : builtTableSpec(table_).indexed) lookups.push_back({c, 4});
    // Not heap_.rows(): planning must not build the table.
    planLookup(info, lookups, 10000);
    return SQLITE_OK;
  }
  std::unique_ptr<Cursor> open() const override {
    return std::make_unique<BuiltCursor>(heap_, table_, counter_);
  }

 private:
  const SqlHeap& heap_;
  BuiltTable table_;
  ScanCounter& counter_;
};

// ---- table-valued functions ------------------------------------------------

// Rows computed whole when the function is called: paths(). Its
// arguments are its last columns (schema.h), the first of them required.
class FunctionCursor : public Cursor {
 public:
  explicit FunctionCursor(ScanCounter& counter) : counter_(counter) {}
  Status filter(const ScanRequest& r) override {
    rows_.clear();
    pos_ = 0;
    args_.assign(r.args.begin(), r.args.end());
    Status st = compute(r.plan);
    counter_.rows += rows_.size();
    return st;
  }
  void next() override { pos_++; }
  bool eof() const override { return pos_ >= rows_.size(); }
  int64_t rowid() const override { return static_cast<int64_t>(pos_); }
  void column(sqlite3_context* ctx, int col) override {
    const size_t c = static_cast<size_t>(col);
    if (c >= rows_[pos_].size()) {
      // A hidden argument: what it was called with.
      const size_t a = c - rows_[pos_].size();
      if (a < args_.size()) {
        sqlite3_result_value(ctx, args_[a]);
      } else {
        sqlite3_result_null(ctx);
      }
      return;
    }
    const Value& v = rows_[pos_][c];
    if (const auto* i = std::get_if<int64_t>(&v)) {
      sqlite3_result_int64(ctx, *i);
    } else if (const auto* s = std::get_if<std::string>(&v)) {
      resultText(ctx, *s);
    } else {
      sqlite3_result_null(ctx);
    }
  }

 protected:
  // plan bit k: argument k + 1 is given (the first is always).
  virtual Status compute(int plan) = 0;
  std::optional<uint64_t> optionalArg(int plan, size_t k) const {
    if (k == 0) return unsignedArg(args_[0]);
    if (!(plan & (1 << (k - 1)))) return std::nullopt;
    // The given ones follow the first in argument order.
    size_t at = 1;
    for (size_t j = 1; j < k; j++) at += (plan >> (j - 1)) & 1;
    return unsignedArg(args_[at]);
  }
  std::vector<std::vector<Value>> rows_;
  std::vector<sqlite3_value*> args_;

 private:
  ScanCounter& counter_;
  size_t pos_ = 0;
};

// plan() for a function whose hidden columns start at `first_hidden`: the
// first is required, the others optional; each given one becomes an
// argument, in column order.
int planFunction(sqlite3_index_info& info, int first_hidden, int hidden_count) {
  int plan = 0, next_arg = 1;
  for (int k = 0; k < hidden_count; k++) {
    const int c = equalityConstraint(info, first_hidden + k);
    if (c < 0) {
      if (k == 0) return SQLITE_CONSTRAINT;
      continue;
    }
    info.aConstraintUsage[c].argvIndex = next_arg++;
    info.aConstraintUsage[c].omit = 1;
    if (k > 0) plan |= 1 << (k - 1);
  }
  info.idxNum = plan;
  info.estimatedCost = 100;
  info.estimatedRows = 100;
  return SQLITE_OK;
}

Expected<NodeId> nodeArg(const analysis::Snapshot& s, std::optional<uint64_t> v,
                         std::string_view function) {
  if (!v || *v >= s.heap.nodeCount()) {
    return Error(std::string(function) + "(): the first argument must be an object's id (" +
                 "objects.id) or a root's node");
  }
  return static_cast<NodeId>(*v);
}

constexpr size_t kDefaultPaths = 5;
constexpr uint64_t kMostPaths = 1000;

class PathsCursor final : public FunctionCursor {
 public:
  PathsCursor(const analysis::Snapshot& s, ScanCounter& counter) : FunctionCursor(counter), s_(s) {}

 private:
  Status compute(int plan) override {
    GOHEAP_TRY(NodeId target, nodeArg(s_, optionalArg(plan, 0), "paths"));
    uint64_t limit = optionalArg(plan, 1).value_or(kDefaultPaths);
    limit = std::min(limit, kMostPaths);
    const std::vector<analysis::Path> paths = analysis::pathsToRoots(s_, target, limit);
    for (size_t p = 0; p < paths.size(); p++) {
      const std::vector<analysis::PathStep>& steps = paths[p].steps;
      for (size_t k = 0; k < steps.size(); k++) {
        const analysis::PathStep& st = steps[k];
        Value address, offset, field;
        if (st.node.kind == "object") address = static_cast<int64_t>(st.node.address);
        if (st.offset) offset = static_cast<int64_t>(*st.offset);
        if (!st.field.empty()) field = st.field;
        std::string name = st.node.global.empty() ? st.node.name : "global " + st.node.global;
        rows_.push_back({static_cast<int64_t>(p), static_cast<int64_t>(k),
                         static_cast<int64_t>(st.node.node), st.node.kind, std::move(name), address,
                         offset, field});
      }
    }
    return Status::success();
  }
  const analysis::Snapshot& s_;
};

// subtree() and dominators() stream their rows: on a heap of millions of
// objects a subtree, or a long chain of dominators, is millions of rows.
class SubtreeCursor final : public Cursor {
 public:
  SubtreeCursor(const analysis::Snapshot& s, ScanCounter& counter) : s_(s), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    stack_.clear();
    row_ = 0;
    const std::optional<uint64_t> top = unsignedArg(r.args[0]);
    GOHEAP_TRY(NodeId node, nodeArg(s_, top, "subtree"));
    max_depth_ = UINT64_MAX;
    if ((r.plan & 1) != 0) {
      const std::optional<uint64_t> d = unsignedArg(r.args[1]);
      if (!d) return Error("subtree(): the depth must be a number of levels, 0 or more");
      max_depth_ = *d;
    }
    stack_.push_back({node, 0});
    counter_.rows++;
    return Status::success();
  }
  void next() override {
    const Item it = stack_.back();
    stack_.pop_back();
    row_++;
    if (it.depth < max_depth_) {
      const std::span<const NodeId> kids = s_.dominatorChildren().neighbors(it.node);
      // Biggest first: pushed in reverse.
      for (size_t k = kids.size(); k-- > 0;) stack_.push_back({kids[k], it.depth + 1});
    }
    if (!stack_.empty()) counter_.rows++;
  }
  bool eof() const override { return stack_.empty(); }
  int64_t rowid() const override { return static_cast<int64_t>(row_); }
  void column(sqlite3_context* ctx, int col) override {
    const Item& it = stack_.back();
    const NodeId n = it.node;
    switch (col) {
      case kSubtreeId:
        resultInt(ctx, n);
        break;
      case kSubtreeDepth:
        resultInt(ctx, it.depth);
        break;
      case kSubtreeDominator:
        resultNode(ctx, s_.dom.idom[n]);
        break;
      case kSubtreeRetained:
        resultInt(ctx, s_.retained[n]);
        break;
      case kSubtreeSize:
        resultInt(ctx, s_.shallowSize(n));
        break;
      case kSubtreeKind:
        resultText(ctx, nodeKindName(s_, n), true);
        break;
      default:
        sqlite3_result_null(ctx);  // the hidden arguments
    }
  }

 private:
  struct Item {
    NodeId node;
    uint64_t depth;
  };
  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  std::vector<Item> stack_;
  uint64_t max_depth_ = UINT64_MAX;
  uint64_t row_ = 0;
};

class DominatorsCursor final : public Cursor {
 public:
  DominatorsCursor(const analysis::Snapshot& s, ScanCounter& counter) : s_(s), counter_(counter) {}

  Status filter(const ScanRequest& r) override {
    GOHEAP_TRY(node_, nodeArg(s_, unsignedArg(r.args[0]), "dominators"));
    depth_ = 0;
    next();
    return Status::success();
  }
  void next() override {
    node_ = node_ == kNoNode ? kNoNode : s_.dom.idom[node_];
    if (node_ == s_.heap.superRoot()) node_ = kNoNode;
    depth_++;
    if (node_ != kNoNode) counter_.rows++;
  }
  bool eof() const override { return node_ == kNoNode; }
  int64_t rowid() const override { return static_cast<int64_t>(depth_); }
  void column(sqlite3_context* ctx, int col) override {
    switch (col) {
      case kDomId:
        resultInt(ctx, node_);
        break;
      case kDomDepth:
        resultInt(ctx, depth_);
        break;
      case kDomKind:
        resultText(ctx, nodeKindName(s_, node_), true);
        break;
      default:
        sqlite3_result_null(ctx);
    }
  }

 private:
  const analysis::Snapshot& s_;
  ScanCounter& counter_;
  NodeId node_ = kNoNode;
  uint64_t depth_ = 0;
};

template <class CursorType>
class FunctionTable final : public Table {
 public:
  FunctionTable(const SqlHeap& heap, ScanCounter& counter, const TableSchema& schema)
      : heap_(heap), counter_(counter), schema_(schema) {}
  const TableSchema& schema() const override { return schema_; }
  int plan(sqlite3_index_info& info) const override {
    int first_argument = 0, arguments = 0;
    for (const Column& c : schema_.columns) {
      if (c.use != ColumnUse::Argument) continue;
      if (arguments++ == 0) first_argument = c.number;
    }
    return planFunction(info, first_argument, arguments);
  }
  std::unique_ptr<Cursor> open() const override {
    return std::make_unique<CursorType>(heap_.snapshot(), counter_);
  }

 private:
  const SqlHeap& heap_;
  ScanCounter& counter_;
  const TableSchema& schema_;
};

// ---- scalar functions ------------------------------------------------------

// object_at(address): the id of the object containing the address, or NULL.
void objectAtFunction(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  const auto* heap = static_cast<const SqlHeap*>(sqlite3_user_data(ctx));
  const std::optional<uint64_t> a = unsignedArg(argv[0]);
  resultNode(ctx, a ? heap->snapshot().heap.addresses().find(*a) : kNoNode);
}

// hex(…) is SQLite's for blobs; addr(n) writes a number as Go prints an
// address: '0xc000123450'.
void addrFunction(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(sqlite3_value_int64(argv[0])));
  resultText(ctx, text);
}

}  // namespace

std::vector<std::string> heapTableNames() {
  std::vector<std::string> names;
  for (const TableSchema* t : kSqlSchema) {
    if (!t->function) names.emplace_back(t->name);
  }
  return names;
}

Status registerHeapModules(sqlite3* db, HeapForSchema heaps, ScanCounter& counter) {
  using Make = std::function<std::unique_ptr<Table>(const SqlHeap&)>;
  auto table = [&](const TableSchema& declared, Make make) {
    return registerModule(
        db, "goheap_" + std::string(declared.name),
        [heaps, make](std::string_view schema) -> Expected<std::unique_ptr<Table>> {
          GOHEAP_TRY(const SqlHeap* heap, heapOf(heaps, schema));
          return make(*heap);
        },
        /*eponymous=*/false);
  };
  ScanCounter* c = &counter;
  Status st =
      table(kObjectsTable, [c](const SqlHeap& h) { return std::make_unique<ObjectsTable>(h, *c); });
  if (st) {
    st = table(kRefsTable, [c](const SqlHeap& h) {
      return std::make_unique<LookupTable<RefsCursor>>(
          h, *c, kRefsTable, kRefLookups,
          [](const analysis::Snapshot& s) { return double(s.heap.successors.edgeCount()); });
    });
  }
  if (st) {
    st = table(kFieldsTable, [c](const SqlHeap& h) {
      return std::make_unique<LookupTable<FieldsCursor>>(
          h, *c, kFieldsTable, kFieldLookups,
          [](const analysis::Snapshot& s) { return 20.0 * s.heap.objectCount(); });
    });
  }
  if (st) {
    st = table(kStringsTable, [c](const SqlHeap& h) {
      return std::make_unique<LookupTable<StringsCursor>>(
          h, *c, kStringsTable, kStringLookups,
          [](const analysis::Snapshot& s) { return double(s.heap.objectCount()); });
    });
  }
  for (size_t t = 0; st && t < static_cast<size_t>(BuiltTable::Count); t++) {
    const auto which = static_cast<BuiltTable>(t);
    st = table(builtTableSpec(which).schema, [c, which](const SqlHeap& h) {
      return std::make_unique<BuiltRowsTable>(h, which, *c);
    });
  }
  if (!st) return st;

  // The table-valued functions read the current heap; old_paths() and the
  // like read the base.
  for (const std::string_view schema : {"main", "old"}) {
    const SqlHeap* heap = heaps(schema);
    if (heap == nullptr) continue;
    const std::string prefix = schema == "main" ? "" : "old_";
    auto function = [&](const TableSchema& declared, Make make) {
      return registerModule(
          db, prefix + std::string(declared.name),
          [heap, make](std::string_view) -> Expected<std::unique_ptr<Table>> {
            return make(*heap);
          },
          /*eponymous=*/true);
    };
    st = function(kPathsFunction, [c](const SqlHeap& h) {
      return std::make_unique<FunctionTable<PathsCursor>>(h, *c, kPathsFunction);
    });
    if (st)
      st = function(kSubtreeFunction, [c](const SqlHeap& h) {
        return std::make_unique<FunctionTable<SubtreeCursor>>(h, *c, kSubtreeFunction);
      });
    if (st)
      st = function(kDominatorsFunction, [c](const SqlHeap& h) {
        return std::make_unique<FunctionTable<DominatorsCursor>>(h, *c, kDominatorsFunction);
      });
    if (!st) return st;
    const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    if (sqlite3_create_function_v2(db, (prefix + "object_at").c_str(), 1, flags,
                                   const_cast<SqlHeap*>(heap), objectAtFunction, nullptr, nullptr,
                                   nullptr) != SQLITE_OK) {
      return Error(std::string("cannot register object_at(): ") + sqlite3_errmsg(db));
    }
  }
  if (sqlite3_create_function_v2(db, "addr", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                 addrFunction, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(std::string("cannot register addr(): ") + sqlite3_errmsg(db));
  }
  return Status::success();
}

}  // namespace goheap::sql
