// goheap top HEAP: a histogram of the reachable objects, grouped by Go type,
// allocation site or shape, by the memory each group keeps alive.
#include <algorithm>

#include "questions/question.h"
#include "util/text.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "top",
    .summary = "histogram of objects by type, allocation site or shape, by retained size",
    .heaps = HeapsNeeded::One,
    .csv = true,
    .command_line = true,
    .kept = false,
    .description =
        "Groups the reachable objects and lists the groups that use the most memory. --by "
        "type (the default when EXE, the program's executable, has DWARF) groups by Go type: "
        "main.Session, map[string]int, [64]main.Point, string; objects no typed pointer "
        "reaches are grouped as with --by site. --by site names each object by where it was "
        "allocated (the dump's allocation sample: the first frame outside the runtime), else "
        "by the type an interface pointing at it gives, else by its shape; --by shape groups "
        "by slot size and pointer offsets only.\n"
        "\n"
        "A group's retained size counts each member's retained bytes once: members dominated "
        "by another member of the same group are not added again. Allocation sites are "
        "recorded for every object only when the program set runtime.MemProfileRate = 1; by "
        "default Go samples one allocation per 512 KiB.",
    .examples =
        {
            {"goheap top heap.dump", "the 20 allocation sites that keep the most memory alive"},
            {"goheap top heap.dump --by shape --sort count -n 50",
             "the 50 most numerous object shapes"},
            {"goheap top heap.dump --csv -n 0 > sites.csv", "every group, for a spreadsheet"},
            {"goheap top heap.dump --filter session --offset 20",
             "the groups named like *session*, from the 21st on"},
            {"goheap top heap.dump ./server", "the 20 Go types that keep the most memory alive"},
        },
};

std::string topText(const Heaps& /*heaps*/, const TopQuery& /*q*/, const TopResult& result,
                    const TextStyle& style) {
  const analysis::Histogram& h = result.histogram;
  TextTable t;
  t.addColumns({"retained", "shallow", "count"}, Align::Right);
  t.addColumn("from");
  size_t name_col = t.addColumn(result.by == "shape" ? "shape" : "group");
  t.setElastic(name_col, Elide::Middle, 24);
  for (const analysis::HistogramRow& r : h.rows) {
    if (style.csv) {
      t.addRow({std::to_string(r.retained), std::to_string(r.shallow), std::to_string(r.count),
                r.source, r.name});
    } else {
      // A guess is never shown as a fact: say how many members were inferred.
      const std::string name =
          r.inferred_count == 0
              ? r.name
              : r.name + " (" +
                    (r.inferred_count == r.count ? "inferred"
                                                 : formatCount(r.inferred_count) + " inferred") +
                    ")";
      t.addRow(
          {formatBytes(r.retained), formatBytes(r.shallow), formatCount(r.count), r.source, name});
    }
  }
  if (style.csv) return t.renderCsv();
  return t.renderText(style.width) + formatCount(h.rows.size()) + " of " + formatCount(h.groups) +
         " groups; " + formatCount(h.total_count) + " reachable objects, " +
         formatBytes(h.total_shallow) + " (garbage not counted)\n";
}

const Parts<TopQuery, TopResult> kParts{
    .fields =
        {
            field<&TopQuery::by>(choiceParam(
                "by", "auto", {"auto", "type", "site", "shape"},
                "how to group objects; auto: by type when the executable has DWARF, else by "
                "site")),
            field<&TopQuery::sort>(sortParam("order of the rows")),
            field<&TopQuery::limit>(limitParam("20", "how many rows to show (0 = all)")),
            field<&TopQuery::offset>(uintParam(
                "offset", "0", "N", "skip this many rows first (to page through the groups)")),
            field<&TopQuery::filter>(filterParam()),
        },
    .run = [](const Heaps& h, const TopQuery& q) -> Expected<TopResult> {
      return queryTop(h.current, q);
    },
    .json = [](const Heaps& /*h*/, const TopQuery& q, const TopResult& r) { return topJson(q, r); },
    .text = topText,
};

}  // namespace

const Question& topQuestion() {
  return questionOf<kInfo, kParts>();
}

TopResult queryTop(const Session& session, const TopQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  TopResult r;
  r.by = q.by == "auto" ? (snap.types ? "type" : "site") : q.by;
  const auto by = r.by == "shape"  ? typing::GroupKind::Shape
                  : r.by == "type" ? typing::GroupKind::Type
                                   : typing::GroupKind::Name;
  analysis::SortKey sort = analysis::SortKey::Retained;
  if (q.sort == "shallow") sort = analysis::SortKey::Shallow;
  if (q.sort == "count") sort = analysis::SortKey::Count;
  const uint64_t limit = q.limit == 0 ? UINT64_MAX : q.limit;
  // Without a filter the histogram can stop at the last row shown; a filter
  // has to see every group first, and then counts only those it keeps.
  const uint64_t wanted =
      !q.filter.empty() || q.offset > UINT64_MAX - limit ? UINT64_MAX : q.offset + limit;
  r.histogram = analysis::histogram(session.groupTotals(by), sort, wanted);
  std::vector<analysis::HistogramRow>& rows = r.histogram.rows;
  if (!q.filter.empty()) {
    std::erase_if(rows, [&](const analysis::HistogramRow& row) {
      return !containsIgnoringCase(row.name, q.filter);
    });
    r.histogram.groups = rows.size();
  }
  rows.erase(rows.begin(),
             rows.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(q.offset, rows.size())));
  if (rows.size() > limit) rows.resize(limit);
  return r;
}

std::string topJson(const TopQuery& q, const TopResult& r) {
  const analysis::Histogram& h = r.histogram;
  return jsonDocument([&](JsonWriter& w) {
    w.field("by", r.by);
    w.field("sort", q.sort);
    if (q.offset != 0) w.field("offset", q.offset);
    if (!q.filter.empty()) w.field("filter", q.filter);
    w.field("groups", h.groups).field("total_count", h.total_count);
    w.field("total_shallow", h.total_shallow);
    w.arrayOfObjects("rows", h.rows, [&](const analysis::HistogramRow& row) {
      w.field("name", row.name).field("source", row.source).field("count", row.count);
      if (row.source == "type") w.field("inferred_count", row.inferred_count);
      w.field("shallow", row.shallow).field("retained", row.retained);
    });
  });
}

}  // namespace goheap::questions
