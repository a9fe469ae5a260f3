// goheap diff OLD NEW [EXE]: what grew between two dumps of the same
// program, by group, and the objects NEW has that OLD did not, by what
// holds them.
#include <cstdio>

#include "analysis/diff.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec diffSpec() {
  CommandSpec spec(
      "diff",
      "Compares two heap dumps of the same program, OLD (earlier) and NEW (later), to find what "
      "leaks. The first table lists the groups (as `goheap top --by`) whose retained bytes, "
      "shallow bytes or count grew most, with their OLD and NEW totals; groups that shrank or "
      "are gone come last, with negative growth.\n\n"
      "The second lists the objects new since OLD, by what holds them. Go never moves heap "
      "objects, so an object of NEW is old when OLD had a reachable object at the same address "
      "with the same size, allocation site (or shape, without a sample) and, when both dumps "
      "are typed, the same Go type. New objects are gathered under their nearest old ancestor "
      "in NEW's dominator tree (an old object, a root, or several roots); frames of the same "
      "function make one holder, and a global variable names the objects it holds directly.\n\n"
      "EXE, the program's executable, applies to both dumps; goheap warns when it matches "
      "only one of them, or when the dumps look like they come from different executables.");
  spec.positional("OLD",
                  "the earlier heap dump (runtime/debug.WriteHeapDump), or an http:// URL that "
                  "serves one (the capture package's /debug/heapdump)");
  spec.positional("NEW", "the later heap dump of the same program, or a URL that serves it");
  spec.positional("EXE",
                  "the program's executable (the build that wrote both dumps): Go types, named "
                  "globals and frames")
      .optional();
  addQueryParams(spec, query::diffParams());
  addCacheFlags(spec);
  spec.boolFlag("json", "print JSON (schema in docs/cli-json.md) instead of text");
  spec.boolFlag("csv", "print the group table as CSV");
  spec.boolFlag("timings", "print each phase's time and the peak memory on stderr");
  spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
  spec.example("goheap diff before.model after.model ./server",
               "the Go types that grew most, and what holds the new objects");
  spec.example("goheap diff before.model after.model --by site --sort count",
               "the allocation sites whose object count grew most");
  spec.example("goheap diff before.model after.model --filter session -n 5",
               "only the groups named like *session*");
  spec.example("goheap diff before.model after.model --json > growth.json",
               "the same as JSON, for scripts");
  spec.example("goheap diff before.model http://127.0.0.1:6060/debug/heapdump ./server",
               "what grew in a running service since before.model (the capture package)");
  return spec;
}

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

void printText(const query::DiffResult& r, OutputFormat format) {
  TextTable t;
  t.addColumn("+retained", Align::Right);
  t.addColumn("+shallow", Align::Right);
  t.addColumn("+count", Align::Right);
  t.addColumn("old count", Align::Right);
  t.addColumn("new count", Align::Right);
  t.addColumn("new retained", Align::Right);
  const size_t name_col = t.addColumn(r.by == "shape" ? "shape" : "group");
  t.setElastic(name_col, Elide::Middle, 24);
  for (const analysis::DiffGroupRow& row : r.rows) {
    if (format == OutputFormat::Csv) {
      t.addRow({std::to_string(row.retainedDelta()), std::to_string(row.shallowDelta()),
                std::to_string(row.countDelta()), std::to_string(row.old_count),
                std::to_string(row.new_count), std::to_string(row.new_retained), row.name});
    } else {
      t.addRow({signedBytes(row.retainedDelta()), signedBytes(row.shallowDelta()),
                signedCount(row.countDelta()), formatCount(row.old_count),
                formatCount(row.new_count), formatBytes(row.new_retained), row.name});
    }
  }
  if (format == OutputFormat::Csv) {
    print(t.renderCsv());
    return;
  }
  print(t.renderText(outputWidth()));
  print(formatCount(r.rows.size()) + " of " + formatCount(r.groups) + " groups; reachable: " +
        formatCount(r.old_count) + " objects, " + formatBytes(r.old_bytes) + " in OLD; " +
        formatCount(r.new_count) + " objects, " + formatBytes(r.new_bytes) + " in NEW\n\n");
  print("New since OLD: " + formatCount(r.new_objects.count) + " objects, " +
        formatBytes(r.new_objects.bytes) + "\n");
  for (size_t i = 0; i < r.new_objects.rows.size(); i++) {
    const analysis::NewObjectsRow& row = r.new_objects.rows[i];
    print("  " + formatBytes(row.bytes) + " in " + formatCount(row.count) + " new " + row.group +
          " held by " + holderText(row, r.reached_from[i]) + "\n");
  }
  if (r.new_objects.rows.size() < r.new_rows) {
    print("  (" + formatCount(r.new_rows - r.new_objects.rows.size()) +
          " more rows: --limit 0 shows all)\n");
  }
}

}  // namespace

int runDiff(int argc, const char* const* argv) {
  return runParsed(diffSpec(), argc, argv, [](const ParsedArgs& args) {
    const Expected<OutputFormat> chosen = outputFormat(args);
    if (!chosen) return fail(chosen.error(), kExitUsage);
    const OutputFormat format = *chosen;
    query::DiffQuery q;
    if (int code; !readQuery(args, query::diffParams(), query::readDiff, q, code)) return code;

    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    const std::string exe = args.has("EXE") ? std::string(args.getString("EXE")) : std::string();
    const query::OpenOptions options = openOptions(args);
    auto old_snap =
        openForCommand(query::Source::fromArgument(std::string(args.getString("OLD")), exe, "OLD"),
                       options, progress, timer);
    if (!old_snap) return fail(old_snap.error());
    auto new_snap =
        openForCommand(query::Source::fromArgument(std::string(args.getString("NEW")), exe, "NEW"),
                       options, progress, timer);
    if (!new_snap) return fail(new_snap.error());

    {
      Phase p = timer.phase("analyse and print");
      const query::DiffResult r = query::queryDiff(**old_snap, **new_snap, q);
      if (format == OutputFormat::Json) {
        print(query::diffJson(q, r));
      } else {
        printText(r, format);
      }
      // Warnings go to stderr, after the answer, where they are seen last.
      if (format != OutputFormat::Json) {
        for (const std::string& w : r.warnings) progress.message("goheap: warning: " + w);
      }
    }
    if (std::optional<int> changed = failIfFilesChanged({old_snap->get(), new_snap->get()})) {
      return *changed;
    }
    if (args.getBool("timings")) {
      std::string report = timer.render(peakRssBytes());
      std::fwrite(report.data(), 1, report.size(), stderr);
    }
    return kExitOk;
  });
}

}  // namespace goheap::cli
