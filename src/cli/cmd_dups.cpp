// goheap dups DUMP [EXE]: memory held more than once.
#include "analysis/duplicates.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec dupsSpec() {
  return queryCommandSpec(
      "dups",
      "Finds memory held more than once: the same string or []byte contents in distinct "
      "backing objects of one size, and objects of one type with identical bytes (pointers "
      "included). "
      "Each group shows one copy's size (its object's), the copies (distinct objects), the "
      "bytes they take and the bytes wasted (all but one copy), a preview of the contents, "
      "and the holders that point at most copies. Groups are sorted by wasted bytes.\n\n"
      "With EXE (the program's executable, with DWARF) strings and []byte are read through "
      "their headers in typed objects and globals, and objects are compared within one Go "
      "type. Without it, whole pointer-free objects of one size and group name (allocation "
      "site, else shape) are compared (kind bytes: a string and a []byte look the same "
      "then), and objects with pointers likewise (kind object).",
      /*csv=*/true, query::dupsParams(),
      {{"goheap dups heap.dump ./server", "the 20 duplicate groups that waste the most"},
       {"goheap dups heap.dump ./server --kind strings --min-wasted 1M",
        "duplicate strings wasting 1 MiB or more"},
       {"goheap dups heap.dump --json -n 0", "every group, as JSON, without types"}});
}

// The table's preview: the first characters of the quoted contents.
std::string shortPreview(const std::string& preview) {
  constexpr size_t kShown = 32;
  if (preview.size() <= kShown) return preview;
  return preview.substr(0, kShown - 1) + "\u2026";
}

}  // namespace

int runDups(int argc, const char* const* argv) {
  return runQueryCommand(
      dupsSpec(), argc, argv, query::dupsParams(), query::readDups,
      [](const ParsedArgs& /*args*/, const query::Session& session, const query::DupsQuery& q,
         OutputFormat format) {
        const analysis::Snapshot& snap = session.snapshot();
        const analysis::Duplicates d = query::queryDups(session, q);
        if (format == OutputFormat::Json) {
          print(query::dupsJson(snap, q, d));
          return kExitOk;
        }
        const bool csv = format == OutputFormat::Csv;
        TextTable t;
        t.addColumn("wasted", Align::Right);
        t.addColumn("copies", Align::Right);
        t.addColumn("size", Align::Right);
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
        if (csv) {
          print(t.renderCsv());
          return kExitOk;
        }
        print(t.renderText(outputWidth()));
        std::string totals;
        for (analysis::DupKind k :
             {analysis::DupKind::String, analysis::DupKind::Bytes, analysis::DupKind::Object}) {
          const analysis::DupTotals& tot = d.totals[static_cast<size_t>(k)];
          if (!totals.empty()) totals += "; ";
          totals += std::string(analysis::dupKindName(k)) + ": " + formatCount(tot.groups) +
                    " groups, " + formatBytes(tot.wasted) + " wasted";
        }
        print(formatCount(d.groups.size()) + " of " + formatCount(d.matching_groups) + " groups. " +
              totals + "\n");
        if (!d.typed) {
          print(
              "without EXE: whole objects compared within one group name; strings and "
              "[]byte are not told apart (kind bytes)\n");
        }
        return kExitOk;
      });
}

}  // namespace goheap::cli
