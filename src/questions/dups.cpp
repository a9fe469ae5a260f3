// goheap dups HEAP [EXE]: memory held more than once.
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "dups",
    .summary = "duplicate strings, []byte and identical objects, by bytes wasted",
    .heaps = HeapsNeeded::One,
    .csv = true,
    .command_line = true,
    .kept = true,
    .description =
        "Finds memory held more than once: the same string or []byte contents in distinct "
        "backing objects of one size, and objects of one type with identical bytes (pointers "
        "included). Each group shows one copy's size (its object's), the copies (distinct "
        "objects), the bytes they take and the bytes wasted (all but one copy), a preview of "
        "the contents, and the holders that point at most copies. Groups are sorted by "
        "wasted bytes.\n"
        "\n"
        "With EXE (the program's executable, with DWARF) strings and []byte are read through "
        "their headers in typed objects and globals, and objects are compared within one Go "
        "type. Without it, whole pointer-free objects of one size and group name (allocation "
        "site, else shape) are compared (kind bytes: a string and a []byte look the same "
        "then), and objects with pointers likewise (kind object).",
    .examples =
        {
            {"goheap dups heap.dump ./server", "the 20 duplicate groups that waste the most"},
            {"goheap dups heap.dump ./server --kind strings --min-wasted 1M",
             "duplicate strings wasting 1 MiB or more"},
            {"goheap dups heap.dump --json -n 0", "every group, as JSON, without types"},
        },
};

// The table's preview: the first characters of the quoted contents.
std::string shortPreview(const std::string& preview) {
  constexpr size_t kShown = 32;
  if (preview.size() <= kShown) return preview;
  return preview.substr(0, kShown - 1) + "\u2026";
}

std::string dupsText(const Heaps& /*heaps*/, const DupsQuery& /*q*/, const analysis::Duplicates& d,
                     const TextStyle& style) {
  const bool csv = style.csv;
  TextTable t;
  t.addColumns({"wasted", "copies", "size"}, Align::Right);
  t.addColumn("kind");
  const size_t name_col = t.addColumn("type / group");
  const size_t preview_col = t.addColumn("contents");
  const size_t holder_col = t.addColumn("held mostly by");
  (void)name_col;
  (void)preview_col;
  t.setElastic(holder_col, Elide::Middle, 20);
  for (const analysis::DupGroup& g : d.groups) {
    std::string holder;
    if (!g.holders.empty()) {
      holder = g.holders[0].name + " (" + formatCount(g.holders[0].count) + ")";
    }
    t.addRow({csv ? std::to_string(g.wasted) : formatBytes(g.wasted),
              csv ? std::to_string(g.copies) : formatCount(g.copies),
              csv ? std::to_string(g.size) : formatBytes(g.size),
              std::string(analysis::dupKindName(g.kind)), g.name,
              csv ? g.preview : shortPreview(g.preview), holder});
  }
  if (csv) return t.renderCsv();
  std::string out = t.renderText(style.width);
  std::string totals;
  for (analysis::DupKind k :
       {analysis::DupKind::String, analysis::DupKind::Bytes, analysis::DupKind::Object}) {
    const analysis::DupTotals& tot = d.totals[static_cast<size_t>(k)];
    if (!totals.empty()) totals += "; ";
    totals += std::string(analysis::dupKindName(k)) + ": " + formatCount(tot.groups) + " groups, " +
              formatBytes(tot.wasted) + " wasted";
  }
  out += formatCount(d.groups.size()) + " of " + formatCount(d.matching_groups) + " groups. " +
         totals + "\n";
  if (!d.typed) {
    out +=
        "without EXE: whole objects compared within one group name; strings and "
        "[]byte are not told apart (kind bytes)\n";
  }
  return out;
}

const Parts<DupsQuery, analysis::Duplicates> kParts{
    .fields =
        {
            field<&DupsQuery::kind>(choiceParam("kind", "all",
                                                {"all", "strings", "bytes", "objects"},
                                                "which duplicates to look for")),
            field<&DupsQuery::limit>(limitParam("20", "how many groups to show (0 = all)")),
            field<&DupsQuery::min_wasted>(byteSizeParam("min_wasted", "0", "BYTES",
                                                        "leave out groups wasting less than this")),
        },
    .run = [](const Heaps& h, const DupsQuery& q) -> Expected<analysis::Duplicates> {
      return queryDups(h.current, q);
    },
    .json = [](const Heaps& h, const DupsQuery& q,
               const analysis::Duplicates& d) { return dupsJson(h.current.snapshot(), q, d); },
    .text = dupsText,
};

}  // namespace

const Question& dupsQuestion() {
  return questionOf<kInfo, kParts>();
}

namespace {

// Addresses listed per group in JSON; `obj` and `paths` take it from there.
constexpr size_t kAddressesShown = 10;

}  // namespace

analysis::Duplicates queryDups(const Session& session, const DupsQuery& q) {
  analysis::DupOptions o;
  o.strings = q.kind == "all" || q.kind == "strings";
  o.bytes = q.kind == "all" || q.kind == "bytes";
  o.objects = q.kind == "all" || q.kind == "objects";
  o.limit = static_cast<size_t>(q.limit);
  o.min_wasted = q.min_wasted;
  const analysis::Snapshot& snap = session.snapshot();
  return analysis::findDuplicates(snap, o, snap.types ? &session.typedHeaders() : nullptr);
}

std::string dupsJson(const analysis::Snapshot& snap, const DupsQuery& q,
                     const analysis::Duplicates& d) {
  return jsonDocument([&](JsonWriter& w) {
    w.field("typed", d.typed);
    w.field("kind", q.kind).field("limit", q.limit).field("min_wasted", q.min_wasted);
    w.key("totals").beginObject();
    for (analysis::DupKind k :
         {analysis::DupKind::String, analysis::DupKind::Bytes, analysis::DupKind::Object}) {
      const analysis::DupTotals& t = d.totals[static_cast<size_t>(k)];
      w.key(analysis::dupKindName(k)).beginObject();
      w.field("groups", t.groups).field("copies", t.copies).field("wasted", t.wasted);
      w.endObject();
    }
    w.endObject();
    w.field("matching_groups", d.matching_groups);
    w.key("groups").beginArray();
    for (const analysis::DupGroup& g : d.groups) {
      w.beginObject();
      w.field("kind", analysis::dupKindName(g.kind)).field("name", g.name);
      w.field("preview", g.preview).field("length", g.length);
      w.field("size", g.size).field("copies", g.copies).field("total", g.total);
      w.field("wasted", g.wasted);
      w.key("addresses").beginArray();
      for (size_t i = 0; i < g.objects.size() && i < kAddressesShown; i++) {
        w.value(formatHex(snap.address(g.objects[i])));
      }
      w.endArray();
      w.arrayOfObjects("holders", g.holders, [&](const analysis::DupHolder& h) {
        w.field("name", h.name).field("count", h.count).field("node", h.node);
      });
      w.endObject();
    }
    w.endArray();
  });
}

}  // namespace goheap::questions
