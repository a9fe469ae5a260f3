// goheap sql HEAP [EXE] [-e QUERY]...: SQL over the heap's tables
// (docs/sql.md), with SQLite. The queries come from -e, else from standard
// input; --base OLD adds a second heap as the schema `old`.
#include <unistd.h>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli/command.h"
#include "cli/output_width.h"
#include "questions/sql_text.h"
#include "sql/database.h"
#include "sql/result_json.h"
#include "sql/schema.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/process_memory.h"

namespace goheap::cli {

namespace {

CommandSpec sqlSpec() {
  CommandSpec spec(
      "sql",
      "Runs SQL over the heap. Each object, reference, root, goroutine, frame, global, type and "
      "allocation site is a row of a table (objects, refs, roots, goroutines, frames, globals, "
      "types, sites), as are the typed fields of each object (fields) and the bytes of every "
      "string and []byte (strings); paths(ID), subtree(ID) and dominators(ID) are table-valued "
      "functions. docs/sql.md has the schema (--schema prints it) and a cookbook of questions.\n\n"
      "The queries are the -e flags, in order, else the statements read from standard input "
      "(separated by ';'). --base OLD opens an earlier heap of the same program as the schema "
      "`old` (old.objects, old.refs, ...), to compare the two. The SQL is SQLite's; it only "
      "reads: statements that write, ATTACH and PRAGMAs that change settings are refused.");
  addHeapAndCommonFlags(spec, /*csv=*/true);
  spec.flag("execute", "SQL", "a query to run (may be given more than once)")
      .alias('e')
      .repeatable();
  spec.flag("base", "OLD",
            "an earlier dump or core of the same program (same EXE), as the schema `old`");
  spec.uintFlag("max-rows", "N", "rows printed per query at most (0: all)", "10000");
  spec.uintFlag("timeout", "SECONDS", "stop a query that runs longer (0: never)", "0");
  spec.boolFlag("schema",
                "print every table's and function's columns as markdown (the schema section of "
                "docs/sql.md), without opening a heap");
  spec.example(
      "goheap sql heap.dump ./server -e \"SELECT type, count(*), sum(size) FROM objects "
      "WHERE reachable GROUP BY type ORDER BY 3 DESC LIMIT 10\"",
      "the ten types using the most memory");
  spec.example(
      "goheap sql heap.dump ./server -e \"SELECT addr(o.address), o.retained FROM objects o "
      "JOIN fields f ON f.object = o.id WHERE o.type = 'main.Session' AND f.name = "
      "'closed' AND f.value = 'true'\"",
      "closed sessions that are still in memory, and what each keeps alive");
  spec.example("goheap sql heap.dump ./server -e \"SELECT * FROM paths(object_at(0xc000123450))\"",
               "why an object is alive, step by step");
  spec.example(
      "goheap sql new.dump ./server --base old.dump -e \"SELECT type, count(*) FROM "
      "objects WHERE address NOT IN (SELECT address FROM old.objects) GROUP BY type\"",
      "what the newer heap allocated since the older one, by type");
  spec.example("goheap sql heap.dump --csv < checks.sql > out.csv", "queries from a file, as CSV");
  spec.example("goheap sql --schema", "the tables and their columns");
  return spec;
}

}  // namespace

int runSql(int argc, const char* const* argv) {
  return runParsed(sqlSpec(), argc, argv, [](const ParsedArgs& args) {
    if (args.getBool("schema")) {
      print(sql::schemaMarkdown());
      return kExitOk;
    }
    const Expected<OutputFormat> chosen = outputFormat(args);
    if (!chosen) return fail(chosen.error(), kExitUsage);
    const OutputFormat format = *chosen;
    Expected<query::Source> source = sourceFromArgs(args);
    if (!source) return fail(source.error(), kExitUsage);

    std::vector<std::string> queries;
    for (const std::string& q : args.getStrings("execute")) queries.push_back(q);
    if (queries.empty()) {
      if (isatty(STDIN_FILENO)) {
        std::fprintf(stderr,
                     "goheap: reading SQL from standard input (end with Ctrl-D); "
                     "-e QUERY runs one without\n");
      }
      queries.emplace_back(std::istreambuf_iterator<char>(std::cin),
                           std::istreambuf_iterator<char>());
    }

    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    const query::OpenOptions options = openOptions(args);
    std::shared_ptr<const query::Session> base_session;
    if (args.has("base")) {
      auto opened = openForCommand(
          query::Source::fromArgument(std::string(args.getString("base")), source->exe_path, "OLD"),
          options, progress, timer);
      if (!opened) return fail(opened.error());
      base_session = opened.take();
    }
    auto session = openForCommand(*source, options, progress, timer);
    if (!session) return fail(session.error());

    sql::SqlLimits limits;
    limits.max_rows = args.getUint("max-rows");
    limits.seconds = static_cast<double>(args.getUint("timeout"));
    // Text and CSV are printed query by query, so that what ran before a
    // mistake is seen; JSON is one document.
    std::vector<sql::SqlResult> results;
    size_t printed = 0;
    auto show = [&](const sql::SqlResult& r, bool many) {
      if (format == OutputFormat::Csv) {
        print(questions::sqlResultCsv(r, printed == 0));
      } else if (format == OutputFormat::Text) {
        print(questions::sqlResultText(r, many, outputWidth()));
      }
      printed++;
    };
    {
      Phase p = timer.phase("run the SQL");
      sql::SqlHeap current(*session);
      std::unique_ptr<sql::SqlHeap> base;
      if (base_session) base = std::make_unique<sql::SqlHeap>(base_session);
      auto db = sql::HeapDatabase::open(current, base.get());
      if (!db) return fail(db.error());
      const bool many = queries.size() > 1;
      for (const std::string& q : queries) {
        auto ran = (*db)->run(q, limits);
        if (!ran) return fail(ran.error());
        for (sql::SqlResult& r : *ran) {
          if (format == OutputFormat::Json) {
            results.push_back(std::move(r));
          } else {
            show(r, many || ran->size() > 1);
          }
        }
      }
    }
    if (format == OutputFormat::Json) {
      std::string out;
      JsonWriter w(out, JsonWriter::Style::Pretty);
      w.beginObject().field("schema_version", 1).key("results").beginArray();
      for (const sql::SqlResult& r : results) sql::writeResultJson(w, r);
      w.endArray().endObject();
      print(out);
    }
    std::optional<int> changed = base_session
                                     ? failIfFilesChanged({session->get(), base_session.get()})
                                     : failIfFilesChanged({session->get()});
    if (changed) return *changed;
    if (args.getBool("timings")) {
      std::string report = timer.render(peakRssBytes());
      std::fwrite(report.data(), 1, report.size(), stderr);
    }
    return kExitOk;
  });
}

}  // namespace goheap::cli
