// goheap diff OLD NEW [EXE]: what grew between two heaps of the same
// program, by group, and the objects NEW has that OLD did not, by what
// holds them.
#include <algorithm>
#include <cctype>
#include <optional>

#include "questions/question.h"
#include "util/text.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "diff",
    .summary = "what grew between two dumps of one program, and what holds the new objects",
    .heaps = HeapsNeeded::OldAndNew,
    .csv = true,
    .command_line = true,
    .kept = true,
    .description =
        "Compares two heap dumps of the same program, OLD (earlier) and NEW (later), to find "
        "what leaks. The first table lists the groups (as `goheap top --by`) whose retained "
        "bytes, shallow bytes or count grew most, with their OLD and NEW totals; groups that "
        "shrank or are gone come last, with negative growth.\n"
        "\n"
        "The second lists the objects new since OLD, by what holds them. Go never moves heap "
        "objects, so an object of NEW is old when OLD had a reachable object at the same "
        "address with the same size, allocation site (or shape, without a sample) and, when "
        "both dumps are typed, the same Go type. New objects are gathered under their "
        "nearest old ancestor in NEW's dominator tree (an old object, a root, or several "
        "roots); frames of the same function make one holder, and a global variable names "
        "the objects it holds directly.\n"
        "\n"
        "EXE, the program's executable, applies to both dumps; goheap warns when it matches "
        "only one of them, or when the dumps look like they come from different executables.",
    .examples =
        {
            {"goheap diff before.dump after.dump ./server",
             "the Go types that grew most, and what holds the new objects"},
            {"goheap diff before.dump after.dump --by site --sort count",
             "the allocation sites whose object count grew most"},
            {"goheap diff before.dump after.dump --filter session -n 5",
             "only the groups named like *session*"},
            {"goheap diff before.dump after.dump --json > growth.json",
             "the same as JSON, for scripts"},
            {"goheap diff before.dump http://127.0.0.1:6060/debug/heapdump ./server",
             "what grew in a running service since before.dump (the capture package)"},
        },
};

std::string signedBytes(int64_t d) {
  const uint64_t magnitude = d < 0 ? 0 - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  std::string s = d < 0 ? "-" : d > 0 ? "+" : "";
  s += formatBytes(magnitude);
  return s;
}

std::string signedCount(int64_t d) {
  const uint64_t magnitude = d < 0 ? 0 - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  // Appended, not "+" + string: GCC 12's Release build takes the latter for
  // an overlapping copy (-Wrestrict).
  std::string out = d < 0 ? "-" : d > 0 ? "+" : "";
  out += formatCount(magnitude);
  return out;
}

// "held by map[uint64]*main.Session at 0xc000094120 (global main.sessions)"
std::string holderText(const analysis::NewObjectsRow& row,
                       const std::optional<analysis::NodeLabel>& reached) {
  const analysis::NodeLabel& h = row.holder;
  std::string text;
  if (row.holders > 1 && !row.function.empty()) {
    text = formatCount(row.holders) + (h.kind == "goroutine" ? " goroutines of " : " frames of ") +
           row.function;
  } else if (h.kind == "object") {
    text = h.name + " at " + formatHex(h.address);
  } else {
    text = h.name;
  }
  if (reached) text += " (" + reached->name + ")";
  return text;
}

std::string diffText(const Heaps& /*heaps*/, const DiffQuery& /*q*/, const DiffResult& r,
                     const TextStyle& style) {
  TextTable t;
  t.addColumns({"+retained", "+shallow", "+count", "old count", "new count", "new retained"},
               Align::Right);
  const size_t name_col = t.addColumn(r.by == "shape" ? "shape" : "group");
  t.setElastic(name_col, Elide::Middle, 24);
  for (const analysis::DiffGroupRow& row : r.rows) {
    if (style.csv) {
      t.addRow({std::to_string(row.retainedDelta()), std::to_string(row.shallowDelta()),
                std::to_string(row.countDelta()), std::to_string(row.old_count),
                std::to_string(row.new_count), std::to_string(row.new_retained), row.name});
    } else {
      t.addRow({signedBytes(row.retainedDelta()), signedBytes(row.shallowDelta()),
                signedCount(row.countDelta()), formatCount(row.old_count),
                formatCount(row.new_count), formatBytes(row.new_retained), row.name});
    }
  }
  if (style.csv) return t.renderCsv();
  std::string out = t.renderText(style.width);
  out += (formatCount(r.rows.size()) + " of " + formatCount(r.groups) + " groups; reachable: " +
          formatCount(r.old_count) + " objects, " + formatBytes(r.old_bytes) + " in OLD; " +
          formatCount(r.new_count) + " objects, " + formatBytes(r.new_bytes) + " in NEW\n\n");
  out += ("New since OLD: " + formatCount(r.new_objects.count) + " objects, " +
          formatBytes(r.new_objects.bytes) + "\n");
  for (size_t i = 0; i < r.new_objects.rows.size(); i++) {
    const analysis::NewObjectsRow& row = r.new_objects.rows[i];
    out += ("  " + formatBytes(row.bytes) + " in " + formatCount(row.count) + " new " + row.group +
            " held by " + holderText(row, r.reached_from[i]) + "\n");
  }
  if (r.new_objects.rows.size() < r.new_rows) {
    out += ("  (" + formatCount(r.new_rows - r.new_objects.rows.size()) +
            " more rows: --limit 0 shows all)\n");
  }
  return out;
}

const Parts<DiffQuery, DiffResult> kParts{
    .fields =
        {
            field<&DiffQuery::by>(choiceParam(
                "by", "auto", {"auto", "type", "site", "shape"},
                "how to group objects; auto: by type when both dumps are typed, else by site")),
            field<&DiffQuery::sort>(sortParam("which growth orders the rows")),
            field<&DiffQuery::limit>(
                limitParam("20", "how many rows of each table to show (0 = all)")),
            field<&DiffQuery::offset>(
                uintParam("offset", "0", "N", "skip this many rows of each table first")),
            field<&DiffQuery::filter>(filterParam()),
            field<&DiffQuery::unchanged>(flagParam(
                "unchanged", false, "also list the groups whose count and sizes did not change")),
        },
    .run = [](const Heaps& h, const DiffQuery& q) -> Expected<DiffResult> {
      // The question table gives diff both heaps (HeapsNeeded::OldAndNew).
      return queryDiff(*h.base, h.current, q);
    },
    .json = [](const Heaps& /*h*/, const DiffQuery& q,
               const DiffResult& r) { return diffJson(q, r); },
    .text = diffText,
    .warnings = [](const DiffResult& r) { return r.warnings; },
};

}  // namespace

const Question& diffQuestion() {
  return questionOf<kInfo, kParts>();
}

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
  return jsonDocument([&](JsonWriter& w) {
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
    w.arrayOfObjects("rows", r.rows, [&](const analysis::DiffGroupRow& row) {
      w.field("name", row.name).field("source", row.source);
      w.field("old_count", row.old_count).field("new_count", row.new_count);
      w.field("count_delta", row.countDelta());
      w.field("old_shallow", row.old_shallow).field("new_shallow", row.new_shallow);
      w.field("shallow_delta", row.shallowDelta());
      w.field("old_retained", row.old_retained).field("new_retained", row.new_retained);
      w.field("retained_delta", row.retainedDelta());
    });
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
  });
}

}  // namespace goheap::questions
