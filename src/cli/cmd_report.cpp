// goheap report HEAP [OLD] [EXE]: what a CI job attaches to a failed memory
// test. One JSON document made of the other commands' documents (summary,
// top, suspects, dups, waste and, with OLD, diff) and one self-contained
// HTML page that shows it (web/report/, embedded in the binary like the web
// UI). --fail-if-growth turns the reachable heap's growth into an exit
// status.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "acquire/http_download.h"
#include "cli/command.h"
#include "cli/progress.h"
#include "questions/typed_questions.h"
#include "sql/database.h"
#include "sql/result_json.h"
#include "util/file_identity.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/output_file.h"
#include "web/web_assets.h"

namespace goheap::cli {

namespace {

CommandSpec reportSpec() {
  CommandSpec spec(
      "report",
      "Writes a report for a person and a CI job: one self-contained HTML page (no network "
      "needed to open it) and one JSON document holding the summary, the top retainers and "
      "groups, the leak suspects, the duplicates, the waste and, when OLD is given, what grew "
      "since OLD. The JSON's sections are the documents `goheap summary|top|suspects|dups|"
      "waste|diff --json` print (docs/cli-json.md).\n\n"
      "OLD and EXE may come in either order: a file that starts like a heap dump is OLD, "
      "anything else is the executable. With --fail-if-growth the exit status is 3 when the "
      "reachable heap grew by more than the given bytes since OLD, so a memory test can fail "
      "its build and attach the page.\n\n"
      "--sql FILE adds the results of a team's saved queries (SQL as `goheap sql` runs it, "
      "docs/sql.md; with OLD, its tables are the schema old): a section of the page and of the "
      "JSON per file. With --fail-if-rows the exit status is 3 when any of them returns a row, "
      "so that a query naming what must not be in the heap is a check.\n\n"
      "The leaks section counts the goroutines blocked forever by the function they are "
      "blocked in (`goheap goroutines --leaked --group --json`); with --fail-if-leaked the exit "
      "status is 3 when there is any. The memory section is `goheap memory --json`: where the "
      "process's memory is, from a core's mappings or a dump's memstats.");
  spec.positional("HEAP",
                  "the heap to report on (the newer one, with OLD): a heap dump, a core file, or "
                  "an http:// URL that serves a dump (the capture package's /debug/heapdump)");
  spec.positional("OLD", "an earlier heap of the same program (a file or a URL): adds what grew")
      .optional();
  spec.positional("EXE",
                  "the program's executable (the same build the heaps came from): types, "
                  "globals, frames")
      .optional();
  spec.flag("html", "FILE", "where to write the HTML page").defaultValue("goheap-report.html");
  spec.flag("json-file", "FILE",
            "where to write the JSON document (default: FILE of --html with .json)")
      .defaultValue("");
  spec.flag("fail-if-growth", "BYTES",
            "exit with status 3 when the reachable heap grew by more than BYTES since OLD")
      .kind(ValueKind::ByteSize);
  spec.flag("sql", "FILE",
            "a file of SQL statements (separated by ';') whose results the report adds; may "
            "be given more than once")
      .repeatable();
  spec.boolFlag("fail-if-rows", "exit with status 3 when a --sql statement returns any row");
  spec.boolFlag("fail-if-leaked",
                "exit with status 3 when any goroutine is blocked forever (goroutines --leaked)");
  spec.flag("top", "N", "rows in the top retainers and groups tables")
      .kind(ValueKind::Uint)
      .defaultValue("20");
  addCacheFlags(spec);
  spec.boolFlag("json", "print the JSON document on stdout too, instead of the short summary");
  spec.boolFlag("timings", "print each phase's time and the peak memory on stderr");
  spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
  spec.example("goheap report heap.dump ./server", "goheap-report.html and .json for one dump");
  spec.example("goheap report after.dump before.dump ./server --html leak.html",
               "the same, with what grew between the two dumps");
  spec.example("goheap report after.dump before.dump --fail-if-growth 10MB || exit 1",
               "fail a CI step when the heap grew by more than 10 MB");
  spec.example("goheap report heap.dump ./server --sql checks.sql --fail-if-rows",
               "fail when a saved query finds something, e.g. SELECT address FROM objects WHERE "
               "type = 'main.Session' AND retained > 1e6");
  spec.example("goheap report heap.dump ./server --fail-if-leaked",
               "fail a CI step when a goroutine of the test is blocked forever");
  spec.example("goheap report http://127.0.0.1:6060/debug/heapdump before.dump ./server",
               "a running service's heap (the capture package) against an earlier dump");
  return spec;
}

// Whether `path` is a regular file that starts as a heap dump does ("go1.7
// heap dump\n"), or a URL (an executable is never read from one). Anything
// else (a FIFO too, which is not waited on) is taken for the executable,
// whose reader says what is wrong with it.
bool looksLikeHeapDump(const std::string& path) {
  if (acquire::isHttpUrl(path)) return true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  char head[16] = {};
  ssize_t got = 0;
  if (Expected<FileIdentity> id = identityOfDescriptor(fd, path); id && S_ISREG(id->mode)) {
    got = ::read(fd, head, sizeof head);
  }
  ::close(fd);
  const std::string_view text(head, got > 0 ? static_cast<size_t>(got) : 0);
  return text.starts_with("go1.") && text.find(" heap dump") != std::string_view::npos;
}

std::string_view asset(std::string_view path) {
  for (const web::WebAsset& a : web::webAssets()) {
    if (a.path == path) {
      // The table adds a zero byte after each file.
      return {reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size() - 1};
    }
  }
  return {};
}

// The page: report.html with its style, script and the document put in.
// Every '<' of the JSON becomes \u003c (it can only be inside a string), so
// no string in the dump can end the <script> element early.
std::string renderPage(const std::string& json) {
  std::string data;
  data.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      data += "\\u003c";
    } else {
      data += c;
    }
  }
  std::string page(asset("/report/report.html"));
  auto put = [&page](std::string_view marker, std::string_view text) {
    const size_t at = page.find(marker);
    if (at != std::string::npos) page.replace(at, marker.size(), text);
  };
  put("/*GOHEAP-REPORT-CSS*/", asset("/report/report.css"));
  put("/*GOHEAP-REPORT-JS*/", asset("/report/report.js"));
  put("/*GOHEAP-REPORT-DATA*/", data);
  return page;
}

Status writeAndCommit(OutputFile& out, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), out.stream());
  return out.commit();
}

// Rows a saved query's result keeps in the report.
constexpr uint64_t kReportSqlRows = 1000;

// A --sql file: its path and its statements.
struct SqlFile {
  std::string path;
  std::string text;
};

Expected<std::string> readTextFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Error::io("cannot read --sql " + path + ": " + std::strerror(errno));
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Error::io("cannot read --sql " + path);
  return text;
}

struct Growth {
  uint64_t old_bytes = 0, new_bytes = 0;
  uint64_t old_objects = 0, new_objects = 0;
  int64_t delta() const {
    return static_cast<int64_t>(new_bytes) - static_cast<int64_t>(old_bytes);
  }
};

}  // namespace

int runReport(int argc, const char* const* argv) {
  return runParsed(reportSpec(), argc, argv, [](const ParsedArgs& args) {
    const std::string heap_path(args.getString("HEAP"));
    std::optional<std::string> old_path, exe_path;
    for (const char* name : {"OLD", "EXE"}) {
      if (!args.has(name)) continue;
      std::string path(args.getString(name));
      std::optional<std::string>& slot = looksLikeHeapDump(path) ? old_path : exe_path;
      if (slot) {
        return fail(
            args.usageError(old_path ? "two earlier dumps given (" + *old_path + ", " + path +
                                           "); give one OLD dump and at most one executable"
                                     : "two executables given (" + *exe_path + ", " + path +
                                           "); give one"),
            kExitUsage);
      }
      slot = std::move(path);
    }
    if (args.has("fail-if-growth") && !old_path) {
      return fail(args.usageError("--fail-if-growth needs OLD, an earlier dump to compare with"),
                  kExitUsage);
    }
    if (args.getBool("fail-if-rows") && args.getStrings("sql").empty()) {
      return fail(args.usageError("--fail-if-rows needs --sql FILE, the queries to check"),
                  kExitUsage);
    }
    // The saved queries are read now: a missing file is told before the load.
    std::vector<SqlFile> sql_files;
    for (const std::string& path : args.getStrings("sql")) {
      Expected<std::string> text = readTextFile(path);
      if (!text) return fail(text.error(), kExitUsage);
      sql_files.push_back({path, text.take()});
    }
    const std::string html_path(args.getString("html"));
    std::string json_path(args.getString("json-file"));
    if (json_path.empty()) {
      json_path =
          html_path.ends_with(".html") ? html_path.substr(0, html_path.size() - 5) : html_path;
      json_path += ".json";
    }
    if (json_path == html_path) {
      return fail(args.usageError("--html and --json-file name the same file"), kExitUsage);
    }
    // Both made before the dumps are loaded, so that a folder that does not
    // exist, or an input named as output, is told at once.
    std::vector<InputFile> inputs{{"the heap", heap_path}};
    if (old_path) inputs.push_back({"the earlier heap dump", *old_path});
    if (exe_path) inputs.push_back({"the executable", *exe_path});
    Expected<OutputFile> html_out = OutputFile::create(html_path, inputs);
    if (!html_out) return fail(html_out.error());
    Expected<OutputFile> json_out = OutputFile::create(json_path, inputs);
    if (!json_out) return fail(json_out.error());

    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    const query::OpenOptions options = openOptions(args);
    auto session = openForCommand(
        query::Source::fromArgument(heap_path, exe_path.value_or(""), old_path ? "NEW" : ""),
        options, progress, timer);
    if (!session) return fail(session.error());
    std::shared_ptr<const query::Session> base;
    if (old_path) {
      auto loaded =
          openForCommand(query::Source::fromArgument(*old_path, exe_path.value_or(""), "OLD"),
                         options, progress, timer);
      if (!loaded) return fail(loaded.error());
      base = loaded.take();
    }
    const query::Session& current = **session;
    const analysis::Snapshot& snap = current.snapshot();
    const uint64_t top_n = args.getUint("top");

    // The saved queries first: a mistake in one ends the command before
    // the long sections.
    struct SqlSection {
      std::string file;
      std::vector<sql::SqlResult> results;
    };
    std::vector<SqlSection> sql_sections;
    uint64_t statements_with_rows = 0;
    std::string first_with_rows;
    if (!sql_files.empty()) {
      Phase p = timer.phase("report: sql", &progress, 0);
      sql::SqlHeap now_heap(*session);
      std::unique_ptr<sql::SqlHeap> old_heap;
      if (base) old_heap = std::make_unique<sql::SqlHeap>(base);
      auto db = sql::HeapDatabase::open(now_heap, old_heap.get());
      if (!db) return fail(db.error());
      for (const SqlFile& f : sql_files) {
        auto results = (*db)->run(f.text, {kReportSqlRows, 0});
        if (!results) return fail(Error("--sql " + f.path + ": " + results.error().message()));
        for (const sql::SqlResult& r : *results) {
          if (r.rows.empty()) continue;
          if (statements_with_rows++ == 0) first_with_rows = f.path + ": " + r.sql;
        }
        sql_sections.push_back({f.path, results.take()});
      }
    }
    const bool rows_failed = args.getBool("fail-if-rows") && statements_with_rows > 0;

    std::string json;
    std::optional<Growth> growth;
    bool failed = false;
    uint64_t leaked_goroutines = 0;
    {
      JsonWriter w(json, JsonWriter::Style::Pretty);
      // One timed phase per section, each shown on the progress line: on a
      // heap of millions of objects they take seconds each.
      auto section = [&](const char* name, const std::function<std::string()>& document) {
        Phase p = timer.phase(std::string("report: ") + name, &progress, 0);
        w.key(name).rawValue(document());
      };
      w.beginObject();
      w.field("schema_version", 1);
      w.field("dump", heap_path);
      if (old_path) w.field("base", *old_path);
      if (exe_path) w.field("executable", *exe_path);
      if (base) {
        const analysis::Snapshot& old_snap = base->snapshot();
        growth = Growth{old_snap.reachable_bytes, snap.reachable_bytes, old_snap.reachable_objects,
                        snap.reachable_objects};
        w.key("growth").beginObject();
        w.field("old_reachable_bytes", growth->old_bytes);
        w.field("new_reachable_bytes", growth->new_bytes);
        w.field("delta_bytes", growth->delta());
        w.field("old_reachable_objects", growth->old_objects);
        w.field("new_reachable_objects", growth->new_objects);
        w.field("delta_objects", static_cast<int64_t>(growth->new_objects) -
                                     static_cast<int64_t>(growth->old_objects));
        if (args.has("fail-if-growth")) {
          const uint64_t limit = args.getUint("fail-if-growth");
          failed = growth->delta() > 0 && static_cast<uint64_t>(growth->delta()) > limit;
          w.field("fail_if_growth", limit);
          w.field("failed", failed);
        }
        w.endObject();
      }
      using namespace questions;  // NOLINT(google-build-using-namespace): every section is a
                                  // question
      section("summary", [&] { return summaryJson(querySummary(current, SummaryQuery{top_n})); });
      TopQuery top;
      top.limit = top_n;
      section("top", [&] { return topJson(top, queryTop(current, top)); });
      section("suspects", [&] { return suspectsJson(querySuspects(current, SuspectsQuery{})); });
      const DupsQuery dups;
      section("duplicates", [&] { return dupsJson(snap, dups, queryDups(current, dups)); });
      const WasteQuery waste;
      section("waste", [&] { return wasteJson(snap, waste, queryWaste(current, waste)); });
      section("memory", [&] {
        const analysis::ProcessMemoryView memory = analysis::processMemory(snap);
        return jsonDocument([&](JsonWriter& j) { writeProcessMemoryFields(j, memory, false); });
      });
      section("leaks", [&] {
        GoroutinesQuery leaked_only;
        leaked_only.leaked = true;
        const std::vector<analysis::GoroutineGroup> groups =
            analysis::groupGoroutines(snap, queryGoroutines(current, leaked_only));
        for (const analysis::GoroutineGroup& g : groups) leaked_goroutines += g.leaked;
        return goroutineGroupsJson(groups);
      });
      if (base) {
        DiffQuery diff;
        diff.limit = top_n;
        section("diff", [&] { return diffJson(diff, queryDiff(*base, current, diff)); });
      }
      if (!sql_files.empty()) {
        w.key("sql").beginObject();
        if (args.getBool("fail-if-rows")) {
          w.field("fail_if_rows", true).field("failed", rows_failed);
        }
        w.field("statements_with_rows", statements_with_rows);
        w.key("files").beginArray();
        for (const SqlSection& f : sql_sections) {
          w.beginObject().field("file", f.file).key("results").beginArray();
          for (const sql::SqlResult& r : f.results) sql::writeResultJson(w, r);
          w.endArray().endObject();
        }
        w.endArray().endObject();
      }
      w.endObject();
    }

    {
      Phase p = timer.phase("write report", &progress, 0);
      // A dump or executable that changed while we read it makes the report
      // meaningless: the old files stay.
      for (const query::Session* read : {&current, base.get()}) {
        if (read == nullptr) continue;
        if (Status s = read->checkFilesUnchanged(); !s) {
          return fail(Error(s.error().message() + "; the report was not written"));
        }
      }
      if (Status s = writeAndCommit(*json_out, json); !s) return fail(s.error());
      if (Status s = writeAndCommit(*html_out, renderPage(json)); !s) return fail(s.error());
    }
    if (args.getBool("json")) {
      print(json);
    } else {
      std::string text = "wrote " + html_path + " and " + json_path + "\n";
      text += "reachable heap " + formatBytes(snap.reachable_bytes) + " in " +
              formatCount(snap.reachable_objects) + " objects";
      if (growth) {
        const int64_t d = growth->delta();
        text += std::string(d >= 0 ? "; grew by " : "; shrank by ") +
                formatBytes(static_cast<uint64_t>(d >= 0 ? d : -d)) + " since " + *old_path;
      }
      if (leaked_goroutines > 0) {
        text += "; " + formatCount(leaked_goroutines) + " goroutines blocked forever";
      }
      print(text + "\n");
    }
    if (args.getBool("timings")) {
      std::string t = timer.render(peakRssBytes());
      std::fwrite(t.data(), 1, t.size(), stderr);
    }
    if (rows_failed) {
      std::fprintf(stderr,
                   "goheap: %s of the --sql statements returned rows (--fail-if-rows); the "
                   "first: %s\n",
                   formatCount(statements_with_rows).c_str(), first_with_rows.c_str());
    }
    if (failed) {
      std::fprintf(stderr, "goheap: the reachable heap grew by %s, more than --fail-if-growth %s\n",
                   formatBytes(static_cast<uint64_t>(growth->delta())).c_str(),
                   formatBytes(args.getUint("fail-if-growth")).c_str());
    }
    const bool leaks_failed = args.getBool("fail-if-leaked") && leaked_goroutines > 0;
    if (leaks_failed) {
      std::fprintf(stderr,
                   "goheap: %s goroutines are blocked forever (--fail-if-leaked); see goheap "
                   "goroutines --leaked --group\n",
                   formatCount(leaked_goroutines).c_str());
    }
    return failed || rows_failed || leaks_failed ? kExitCheckFailed : kExitOk;
  });
}

}  // namespace goheap::cli
