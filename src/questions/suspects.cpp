// goheap suspects HEAP [EXE]: a leak suspects report in the spirit of
// Eclipse MAT: what keeps a large share of the heap alive, where inside it
// the memory piles up, what holds it, and what kinds of objects it is.
#include "questions/path_text.h"
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "suspects",
    .summary = "leak suspects: what retains a large share of the heap, and where it piles up",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = true,
    .description =
        "Lists leak suspects: single objects that retain at least PERCENT of the reachable "
        "heap (the top-most ones: a map, not its bucket array), and groups of objects of one "
        "type (with EXE's DWARF) or allocation site that together retain that much though no "
        "member does (goroutines each holding a buffer). Biggest first.\n"
        "\n"
        "For each suspect: the shortest path from a GC root, and the accumulation point: "
        "from the object, down the dominator tree to the child retaining the most, as long "
        "as that child keeps at least 80% of its parent's bytes (for a group: the deepest "
        "node holding 80% of the group's bytes). The objects below it are listed by type or "
        "site: that is what accumulates. A group piling up inside a single suspect is "
        "reported with it.",
    .examples =
        {
            {"goheap suspects heap.dump", "what retains 10% of the heap or more"},
            {"goheap suspects heap.dump ./server",
             "the same, grouped by Go type, with global variables and frames named"},
            {"goheap suspects heap.dump --threshold 2.5 -n 20",
             "smaller suspects too, up to 20 of them"},
            {"goheap suspects heap.dump ./server --json", "the report as JSON"},
        },
};

std::string suspectText(size_t rank, const analysis::Suspect& s, const std::string& by,
                        size_t width) {
  std::string out = "Suspect " + std::to_string(rank) + (s.is_group ? " (group)" : "") + "\n  " +
                    s.description + "\n\n";
  if (s.is_group) {
    out += "  Group: " + s.group.name + " (" + s.group.source + "), " + formatCount(s.group.count) +
           " objects; biggest " + labelText(s.object) + "\n";
    for (const analysis::HolderCount& h : s.holders) {
      out += "  Held by " + h.holder + ": " + formatCount(h.members) + " of them\n";
    }
    out += "\n";
  }
  out += "  Shortest path from a GC root" +
         std::string(s.is_group ? " to the biggest member" : "") + ":\n";
  out += s.path.steps.empty() ? "    none found\n" : pathStepsText(s.path, "    ", false);
  out += "\n  Accumulation point: " + labelText(s.accumulation_point) + ", holds " +
         formatBytes(s.accumulation_retained) + " (" +
         formatPercent(s.accumulation_retained, s.retained) + " of the suspect), " +
         formatCount(s.accumulation_children) + " children in the dominator tree\n";
  out += "  It accumulates " + formatCount(s.accumulated_count) + " objects, " +
         formatBytes(s.accumulated_bytes) + ", in " + formatCount(s.accumulated_types) + " " +
         (by == "type" ? "type" : "group") + (s.accumulated_types == 1 ? "" : "s") + ":\n";
  TextTable t;
  t.addColumns({"count", "bytes", "share"}, Align::Right);
  const size_t name_col = t.addColumn(by == "type" ? "type" : "group");
  t.setElastic(name_col, Elide::Middle, 24);
  for (const analysis::AccumulatedType& a : s.accumulated) {
    t.addRow({formatCount(a.count), formatBytes(a.bytes),
              formatPercent(a.bytes, s.accumulated_bytes), a.name});
  }
  out += indentLines(t.renderText(width > 4 ? width - 4 : width), "    ");
  for (const analysis::SuspectGroupRef& g : s.merged_groups) {
    out += "  Also a group suspect found here: " + formatCount(g.count) + " objects of " + g.name +
           ", retaining " + formatBytes(g.retained) + "\n";
  }
  return out + "\n";
}

std::string suspectsText(const Heaps& /*heaps*/, const SuspectsQuery& /*q*/,
                         const analysis::SuspectReport& r, const TextStyle& style) {
  std::string out = "Leak suspects: objects and groups retaining at least " +
                    formatFraction(r.threshold_percent / 100) + " of the reachable heap (" +
                    formatBytes(r.threshold_bytes) + " of " + formatBytes(r.reachable_bytes) +
                    ")\n\n";
  if (r.suspects.empty()) {
    out += "No suspects: nothing retains that much. Try a lower --threshold.\n";
  }
  for (size_t i = 0; i < r.suspects.size(); i++)
    out += suspectText(i + 1, r.suspects[i], r.by, style.width);
  if (r.suspects.size() < r.total) {
    out += formatCount(r.suspects.size()) + " of " + formatCount(r.total) +
           " suspects shown; -n 0 shows all\n";
  }
  if (!r.leaked_goroutines.empty()) {
    out +=
        "\nGoroutines blocked forever, by the function they are blocked in (goheap goroutines "
        "--leaked --group):\n";
    TextTable t;
    t.addColumns({"goroutines", "retained together"}, Align::Right);
    const size_t fn_col = t.addColumn("blocked in");
    t.setElastic(fn_col, Elide::Middle, 24);
    for (const analysis::GoroutineGroup& g : r.leaked_goroutines) {
      t.addRow({formatCount(g.leaked), formatBytes(g.retained),
                g.function.empty() ? "(runtime)" : g.function});
    }
    out += indentLines(t.renderText(style.width > 2 ? style.width - 2 : style.width), "  ");
  }
  return out;
}

const Parts<SuspectsQuery, analysis::SuspectReport> kParts{
    .fields =
        {
            field<&SuspectsQuery::threshold>(percentParam(
                "threshold", "10", "PERCENT",
                "the share of the reachable heap a suspect retains at least (above 0, at "
                "most 100)")),
            field<&SuspectsQuery::accumulation>(uintParam(
                "accumulation", "80", "PERCENT",
                "where memory accumulates: go down the dominator tree while one child keeps at "
                "least this share of its parent (50 to 100)")),
            field<&SuspectsQuery::limit>(limitParam("10", "how many suspects to show (0 = all)")),
        },
    .check =
        [](SuspectsQuery& q, query::ParamReader& r) {
          if (q.accumulation < 50 || q.accumulation > 100) {
            r.fail("accumulation", "must be from 50 to 100");
          }
        },
    .run = [](const Heaps& h, const SuspectsQuery& q) -> Expected<analysis::SuspectReport> {
      return querySuspects(h.current, q);
    },
    .json = [](const Heaps& /*h*/, const SuspectsQuery& /*q*/,
               const analysis::SuspectReport& r) { return suspectsJson(r); },
    .text = suspectsText,
};

}  // namespace

const Question& suspectsQuestion() {
  return questionOf<kInfo, kParts>();
}

analysis::SuspectReport querySuspects(const Session& session, const SuspectsQuery& q) {
  analysis::SuspectOptions o;
  o.threshold_percent = q.threshold;
  o.limit = q.limit;
  o.accumulation_percent = static_cast<uint32_t>(q.accumulation);
  return analysis::leakSuspects(session.snapshot(), o, session.goroutineInfos());
}

namespace {

void writeGroupRef(JsonWriter& w, const analysis::SuspectGroupRef& g) {
  w.beginObject();
  w.field("name", g.name).field("source", g.source).field("count", g.count);
  w.field("retained", g.retained);
  w.endObject();
}

}  // namespace

std::string suspectsJson(const analysis::SuspectReport& r) {
  return jsonDocument([&](JsonWriter& w) {
    w.field("threshold_percent", r.threshold_percent);
    w.field("threshold_bytes", r.threshold_bytes);
    w.field("accumulation_percent", r.accumulation_percent);
    w.field("reachable_bytes", r.reachable_bytes);
    w.field("by", r.by);
    w.field("total", r.total);
    w.arrayOfObjects("leaked_goroutines", r.leaked_goroutines,
                     [&](const analysis::GoroutineGroup& g) {
                       w.field("blocked_in", g.function).field("goroutines", g.leaked);
                       w.field("retained", g.retained);
                     });
    w.key("suspects").beginArray();
    for (size_t i = 0; i < r.suspects.size(); i++) {
      const analysis::Suspect& s = r.suspects[i];
      w.beginObject();
      w.field("rank", i + 1);
      w.field("kind", s.is_group ? "group" : "object");
      w.field("description", s.description);
      w.key("object");
      writeLabel(w, s.object);
      if (s.is_group) {
        w.key("group");
        writeGroupRef(w, s.group);
        w.key("holders").beginArray();
        for (const analysis::HolderCount& h : s.holders) {
          w.beginObject().field("holder", h.holder).field("members", h.members).endObject();
        }
        w.endArray();
      }
      w.field("retained", s.retained).field("share", s.share);
      w.key("accumulation_point").beginObject();
      w.key("node");
      writeLabel(w, s.accumulation_point);
      w.field("retained", s.accumulation_retained);
      w.field("children", s.accumulation_children);
      w.endObject();
      w.key("path");
      writePathSteps(w, s.path);
      w.key("accumulated").beginObject();
      w.field("count", s.accumulated_count).field("bytes", s.accumulated_bytes);
      w.field("groups", s.accumulated_types);
      w.arrayOfObjects("top", s.accumulated,
                       [&](const analysis::AccumulatedType& a) { writeObjectGroup(w, a); });
      w.endObject();
      if (!s.is_group) {
        w.key("merged_groups").beginArray();
        for (const analysis::SuspectGroupRef& g : s.merged_groups) writeGroupRef(w, g);
        w.endArray();
      }
      w.endObject();
    }
    w.endArray();
  });
}

}  // namespace goheap::questions
