// `goheap diff --json` and /api/diff: one query, one renderer.
#include <algorithm>
#include <cctype>
#include <optional>

#include "query/labels.h"
#include "query/queries.h"
#include "util/json_writer.h"
#include "util/text.h"

namespace goheap::query {

namespace {

// Drops `offset` rows, then keeps at most `limit` (0: all).
template <class T>
void page(std::vector<T>& rows, uint64_t offset, uint64_t limit) {
  rows.erase(rows.begin(),
             rows.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(offset, rows.size())));
  if (limit != 0 && rows.size() > limit) rows.resize(limit);
}

}  // namespace

namespace {

std::string resolvedBy(const analysis::Snapshot& old_snap, const analysis::Snapshot& new_snap,
                       const DiffQuery& q) {
  // Type names only compare with type names: auto groups by type when both
  // dumps are typed.
  return q.by == "auto" ? (old_snap.types && new_snap.types ? "type" : "site") : q.by;
}

typing::GroupKind groupKind(const std::string& by) {
  return by == "shape"  ? typing::GroupKind::Shape
         : by == "type" ? typing::GroupKind::Type
                        : typing::GroupKind::Name;
}

}  // namespace

DiffResult queryDiff(const Session& old_session, const Session& new_session, const DiffQuery& q) {
  const analysis::Snapshot& old_snap = old_session.snapshot();
  const analysis::Snapshot& new_snap = new_session.snapshot();
  DiffResult r;
  r.by = resolvedBy(old_snap, new_snap, q);
  const typing::GroupKind by = groupKind(r.by);
  analysis::SortKey sort = analysis::SortKey::Retained;
  if (q.sort == "shallow") sort = analysis::SortKey::Shallow;
  if (q.sort == "count") sort = analysis::SortKey::Count;

  r.old_file = old_snap.model.name();
  r.new_file = new_snap.model.name();
  r.old_count = old_snap.reachable_objects;
  r.old_bytes = old_snap.reachable_bytes;
  r.new_count = new_snap.reachable_objects;
  r.new_bytes = new_snap.reachable_bytes;
  r.warnings = analysis::diffWarnings(old_snap, new_snap);

  r.rows = analysis::diffGroups(old_session.groupTotals(by), new_session.groupTotals(by), sort);
  // A group that neither grew nor shrank says nothing about a leak; most of
  // a program's groups are such, and they would bury the ones that changed.
  std::erase_if(r.rows, [&](const analysis::DiffGroupRow& row) {
    const bool same = row.old_count == row.new_count && row.old_shallow == row.new_shallow &&
                      row.old_retained == row.new_retained;
    return (same && !q.unchanged) ||
           (!q.filter.empty() && !containsIgnoringCase(row.name, q.filter));
  });
  r.groups = r.rows.size();
  page(r.rows, q.offset, q.limit);

  const analysis::NewSince* new_since = &new_session.newSince(old_session, by);
  r.new_objects.count = new_since->count;
  r.new_objects.bytes = new_since->bytes;
  // Copies of the rows shown only, without their members (maybe millions).
  std::vector<analysis::NewObjectsRow>& rows = r.new_objects.rows;
  const uint64_t end =
      q.limit == 0 || q.offset > UINT64_MAX - q.limit ? UINT64_MAX : q.offset + q.limit;
  for (const analysis::NewObjectsRow& row : new_since->rows) {
    if (!q.filter.empty() && !containsIgnoringCase(row.group, q.filter)) continue;
    if (r.new_rows >= q.offset && r.new_rows < end) {
      analysis::NewObjectsRow& shown = rows.emplace_back();
      shown.holder = row.holder;
      shown.holders = row.holders;
      shown.function = row.function;
      shown.group = row.group;
      shown.source = row.source;
      shown.count = row.count;
      shown.bytes = row.bytes;
    }
    r.new_rows++;
  }
  // A shortest path per shown row only: each is a search of the graph.
  for (const analysis::NewObjectsRow& row : rows) {
    r.reached_from.push_back(analysis::reachedFrom(new_snap, row.holder.node));
  }
  return r;
}

std::string diffJson(const DiffQuery& q, const DiffResult& r) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("by", r.by).field("sort", q.sort);
  if (q.offset != 0) w.field("offset", q.offset);
  if (!q.filter.empty()) w.field("filter", q.filter);
  if (q.unchanged) w.field("unchanged", true);
  auto side = [&](const char* name, const std::string& file, uint64_t count, uint64_t bytes) {
    w.key(name).beginObject();
    w.field("file", file).field("reachable_count", count).field("reachable_bytes", bytes);
    w.endObject();
  };
  side("old", r.old_file, r.old_count, r.old_bytes);
  side("new", r.new_file, r.new_count, r.new_bytes);
  w.key("warnings").beginArray();
  for (const std::string& warning : r.warnings) w.value(warning);
  w.endArray();
  w.field("groups", r.groups);
  w.key("rows").beginArray();
  for (const analysis::DiffGroupRow& row : r.rows) {
    w.beginObject();
    w.field("name", row.name).field("source", row.source);
    w.field("old_count", row.old_count).field("new_count", row.new_count);
    w.field("count_delta", row.countDelta());
    w.field("old_shallow", row.old_shallow).field("new_shallow", row.new_shallow);
    w.field("shallow_delta", row.shallowDelta());
    w.field("old_retained", row.old_retained).field("new_retained", row.new_retained);
    w.field("retained_delta", row.retainedDelta());
    w.endObject();
  }
  w.endArray();
  w.key("new_objects").beginObject();
  w.field("count", r.new_objects.count).field("bytes", r.new_objects.bytes);
  w.field("groups", r.new_rows);
  w.key("rows").beginArray();
  for (size_t i = 0; i < r.new_objects.rows.size(); i++) {
    const analysis::NewObjectsRow& row = r.new_objects.rows[i];
    w.beginObject();
    w.key("holder");
    writeLabel(w, row.holder);
    w.field("holders", row.holders);
    if (!row.function.empty()) w.field("function", row.function);
    if (i < r.reached_from.size() && r.reached_from[i]) {
      w.key("reached_from");
      writeLabel(w, *r.reached_from[i]);
    }
    w.field("group", row.group).field("source", row.source);
    w.field("count", row.count).field("bytes", row.bytes);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.endObject();
  return out;
}

}  // namespace goheap::query
