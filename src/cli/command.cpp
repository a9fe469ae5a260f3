#include "cli/command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "acquire/debuginfod.h"
#include "analysis/memory_use.h"
#include "cli/output_width.h"
#include "cli/progress.h"
#include "questions/catalog.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/output_file.h"
#include "util/text_table.h"

namespace goheap::cli {

namespace {

// The commands that are not questions about a heap's contents: tools.
constexpr struct {
  std::string_view name, summary;
  int (*run)(int argc, const char* const* argv);
} kTools[] = {
    {"report", "one self-contained HTML page and JSON of all of the above, for CI", runReport},
    {"convert", "the heap in another tool's format: JSON Lines, Graphviz, ...", runConvert},
    {"serve", "a web UI and JSON API over HTTP for a dump (and a base dump to diff with)",
     runServe},
    {"mcp", "goheap's questions as tools of an AI assistant (Model Context Protocol, stdio)",
     runMcp},
    {"cache", "the index cache that makes a second open fast: list its entries, or clear it",
     runCache},
    {"snap", "a running Go process's heap, as a core file, without a restart (ptrace)", runSnap},
    {"watch", "snap a running Go process when memory grows, and say what grew", runWatch},
    {"bin", "a Go executable: version, target, pclntab, functions, address to file:line", runBin},
    {"core-info",
     "an ELF core file: machine, threads, segments, mapped files, the executable's match",
     runCoreInfo},
};

// A question whose command needs more than runQuestion gives (sql: statements
// from standard input, printed as each ends) names its runner here.
constexpr struct {
  std::string_view name;
  int (*run)(int argc, const char* const* argv);
} kOwnRunners[] = {{"sql", runSql}};

}  // namespace

std::span<const Command> allCommands() {
  static const std::vector<Command> commands = [] {
    std::vector<Command> out;
    for (const questions::Question* q : questions::allQuestions()) {
      if (!q->command_line) continue;
      Command c{q->name, q->summary,
                [q](int argc, const char* const* argv) { return runQuestion(*q, argc, argv); }};
      for (const auto& own : kOwnRunners) {
        if (own.name == q->name) c.run = own.run;
      }
      out.push_back(std::move(c));
    }
    for (const auto& t : kTools) out.push_back({t.name, t.summary, t.run});
    return out;
  }();
  return commands;
}

void addHeapAndCommonFlags(CommandSpec& spec, bool csv) {
  spec.positional("HEAP",
                  "the program's heap: a heap dump written by runtime/debug.WriteHeapDump, a "
                  "core file of the process, or an http:// URL that serves a dump (the capture "
                  "package's /debug/heapdump: downloaded to $TMPDIR, removed after); left out "
                  "with --pid")
      .optional();
  spec.positional("EXE",
                  "the program's executable (the same build the heap came from): names "
                  "frames with file:line and inlined calls, globals, closures and functions")
      .optional();
  addPidFlag(spec);
  addCacheFlags(spec);
  spec.boolFlag("json", "print JSON (schema in docs/cli-json.md) instead of text");
  if (csv) spec.boolFlag("csv", "print CSV instead of a table");
  spec.boolFlag("timings", "print each phase's time and the peak memory on stderr");
  spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
}

void addPidFlag(CommandSpec& spec) {
  spec.flag("pid", "PID",
            "instead of HEAP, a running Go process: snapped as goheap snap does (paused for "
            "the copy) to a temporary core, read, and deleted when done; its executable is "
            "read through /proc/PID/exe when its path is not the same file here (a process "
            "in a container)")
      .kind(ValueKind::Uint);
}

void addDebugDirFlag(CommandSpec& spec) {
  spec.flag("debug-dir", "DIR",
            "where to look for the separate debug file of an EXE without DWARF (a stripped "
            "build, as distributions ship them): by GNU build ID in DIR/.build-id/, then by "
            ".gnu_debuglink beside EXE, in its .debug/ and under DIR; may be repeated; "
            "/usr/lib/debug is searched after. Servers in DEBUGINFOD_URLS (space-separated "
            "http:// URLs) are asked next, and what they send is kept in the cache folder. "
            "E.g. --debug-dir ./dbgsym, or DEBUGINFOD_URLS=http://debuginfod.example:8002")
      .repeatable();
}

void addSqlLimitFlags(CommandSpec& spec, std::string_view asker) {
  spec.flag("sql-timeout", "SECONDS",
            std::string(asker) + " stops a statement that runs longer (docs/sql.md)")
      .kind(ValueKind::Uint)
      .defaultValue("30");
  spec.flag("sql-rows", "N", "the most rows a statement of " + std::string(asker) + " keeps")
      .kind(ValueKind::Uint)
      .defaultValue("10000");
}

Expected<SqlLimitFlags> sqlLimitFlags(const ParsedArgs& args) {
  if (args.getUint("sql-timeout") == 0 || args.getUint("sql-rows") == 0) {
    return args.usageError("--sql-timeout and --sql-rows must be above 0");
  }
  return SqlLimitFlags{static_cast<double>(args.getUint("sql-timeout")), args.getUint("sql-rows")};
}

void addCacheFlags(CommandSpec& spec) {
  spec.flag("cache", "DIR",
            "the folder of the index cache, where what goheap computes from a heap is kept so "
            "that opening it again is fast (default $XDG_CACHE_HOME/goheap, else "
            "~/.cache/goheap; goheap cache list shows it)")
      .defaultValue("");
  spec.boolFlag("no-cache", "neither read nor write the index cache");
  spec.flag("threads", "N",
            "threads for opening a heap: building the graph, typing (beside the dominators, "
            "then on every thread), checking a cache entry (default: the machine's cores; 0 means "
            "the same; at most " +
                std::to_string(kMaxThreads) +
                "). Answers are the same on any number; e.g. --threads 1 on a busy machine")
      .kind(ValueKind::Uint);
  spec.sizeFlag("cache-size",
                "the most the index cache's folder may hold; the least recently used entries "
                "go first",
                "10G");
  addDebugDirFlag(spec);
}

query::OpenOptions openOptions(const ParsedArgs& args) {
  query::OpenOptions options;
  options.use_cache = true;
  // The index cache's entry is written while the command answers; a
  // failure is told as the opening's warnings are.
  options.background_sink = std::make_shared<WarningsOnStderr>();
  if (args.has("cache")) options.cache_dir = args.getString("cache");
  if (args.has("no-cache")) options.use_cache = !args.getBool("no-cache");
  if (args.has("cache-size")) options.cache_size_bytes = args.getUint("cache-size");
  if (args.has("threads") && args.getUint("threads") != 0) {
    options.threads =
        static_cast<unsigned>(std::min<uint64_t>(args.getUint("threads"), kMaxThreads));
  }
  for (const std::string& dir : args.getStrings("debug-dir")) {
    options.debug_files.dirs.push_back(dir);
  }
  // debuginfod's own variable, as gdb, delve and perf read it.
  if (const char* urls = std::getenv("DEBUGINFOD_URLS")) {
    options.debug_files.debuginfod_urls = acquire::debuginfodUrls(urls);
  }
  return options;
}

Expected<query::Source> sourceFromArgs(const ParsedArgs& args) {
  query::Source source;
  if (args.has("pid")) {
    const uint64_t pid = args.getUint("pid");
    if (pid == 0 || pid > 0x3fffffff) {
      return args.usageError("--pid " + std::to_string(pid) + " is not a process id");
    }
    if (args.has("HEAP") && args.has("EXE")) {
      return args.usageError(
          "--pid reads a running process: give no HEAP, only the executable "
          "if /proc/PID/exe is not the program's");
    }
    source.heap = query::LiveProcess{static_cast<int>(pid)};
    // With --pid the one word given is the executable.
    if (args.has("HEAP")) source.exe_path = args.getString("HEAP");
    if (args.has("EXE")) source.exe_path = args.getString("EXE");
    return source;
  }
  if (!args.has("HEAP")) {
    return args.usageError(
        "missing HEAP (a heap dump or core file, or --pid PID for a running "
        "process)");
  }
  return query::Source::fromArgument(std::string(args.getString("HEAP")),
                                     args.has("EXE") ? std::string(args.getString("EXE")) : "");
}

int runParsed(const CommandSpec& spec, int argc, const char* const* argv,
              const std::function<int(const ParsedArgs& args)>& body) {
  int exit_code = kExitOk;
  const std::optional<ParsedArgs> parsed = parseCommandLine(spec, argc, argv, exit_code);
  return parsed ? body(*parsed) : exit_code;
}

int fail(const Error& error, int code) {
  std::fprintf(stderr, "goheap: %s\n", error.message().c_str());
  return error.needsInput() && code == kExitFailure ? kExitUsage : code;
}

void print(const std::string& text) {
  writeStandardOutput(text);
}

std::optional<ParsedArgs> parseCommandLine(const CommandSpec& spec, int argc,
                                           const char* const* argv, int& exit_code) {
  Expected<ParsedArgs> parsed = spec.parse(argc, argv);
  if (!parsed) {
    exit_code = fail(parsed.error(), kExitUsage);
    return std::nullopt;
  }
  if (parsed->helpRequested()) {
    std::string help = spec.help();
    if (!help.ends_with('\n')) help += '\n';
    print(help);
    exit_code = kExitOk;
    return std::nullopt;
  }
  return parsed.take();
}

namespace {

// --timings' account of memory: the peak that no file backs, and which of
// the snapshot's arrays hold it, per object, so that a change to a column's
// width shows up where it is made.
std::string renderMemoryUse(const analysis::Snapshot& s, uint64_t anonymous_peak) {
  const uint64_t objects = std::max<uint64_t>(s.model.objects.count(), 1);
  auto perObject = [&](uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f B",
                  static_cast<double>(bytes) / static_cast<double>(objects));
    return std::string(buf);
  };
  TextTable table;
  table.addColumn("held after loading");
  table.addColumns({"bytes", "per object"}, Align::Right);
  uint64_t total = 0;
  for (const analysis::HeldArray& a : analysis::heldArrays(s)) {
    table.addRow({a.name, formatBytes(a.bytes), perObject(a.bytes)});
    total += a.bytes;
  }
  table.addRow({"total", formatBytes(total), perObject(total)});
  return "peak anonymous memory: " + formatBytes(anonymous_peak) + " (" +
         perObject(anonymous_peak) + " per object; the mapped files are not counted)\n" +
         table.renderText(0);
}

}  // namespace

Expected<std::shared_ptr<const query::Session>> openForCommand(const query::Source& source,
                                                               const query::OpenOptions& options,
                                                               Progress& progress,
                                                               PhaseTimer& timer) {
  PhaseSink sink(progress, timer);
  return query::open(source, sink, options);
}

void addQueryParams(CommandSpec& spec, const std::vector<query::ParamSpec>& params) {
  for (const query::ParamSpec& p : params) {
    if (p.api_only) continue;
    const std::string name = query::cliName(p);
    // The parser checks each value's kind and choices, as the query's read
    // function does for the API (with the same parsers, util/format.h); the
    // rules between values are the read function's alone.
    if (query::isPositional(p)) {
      // The kind tells ADDR from the optional EXE before it.
      spec.positional(name, std::string(p.help)).kind(ValueKind::Address);
      continue;
    }
    if (p.kind == query::ParamKind::Flag) {
      spec.boolFlag(name, std::string(p.help));
      continue;
    }
    if (p.kind == query::ParamKind::Choice) {
      spec.choice(name, {p.choices.begin(), p.choices.end()}, std::string(p.fallback),
                  std::string(p.help));
      continue;
    }
    FlagSpec& f = spec.flag(name, std::string(p.metavar), std::string(p.help));
    if (p.short_name != 0) f.alias(p.short_name);
    if (p.kind == query::ParamKind::Uint) f.kind(ValueKind::Uint);
    if (p.kind == query::ParamKind::ByteSize) f.kind(ValueKind::ByteSize);
    if (p.kind == query::ParamKind::Address) f.kind(ValueKind::Address);
    if (!p.fallback.empty()) f.defaultValue(std::string(p.fallback));
  }
}

query::ParamValues queryValues(const ParsedArgs& args,
                               const std::vector<query::ParamSpec>& params) {
  query::ParamValues values(params,
                            [](const query::ParamSpec& p) { return query::cliSpelling(p); });
  for (const query::ParamSpec& p : params) {
    if (p.api_only) continue;
    const std::string name = query::cliName(p);
    if (p.kind == query::ParamKind::Flag) {
      if (args.getBool(name)) values.set(p, query::cliNegated(p) ? "false" : "true");
    } else if (args.has(name)) {
      values.set(p, std::string(args.getString(name)));
    }
  }
  return values;
}

int failQuery(const ParsedArgs& args, const Error& error) {
  if (error.needsInput()) return fail(args.usageError(error.message()), kExitUsage);
  return fail(error);
}

Expected<OutputFormat> outputFormat(const ParsedArgs& args) {
  const bool json = args.getBool("json");
  const bool csv = args.has("csv") && args.getBool("csv");
  if (json && csv) return args.usageError("--json and --csv do not go together");
  if (json) return OutputFormat::Json;
  return csv ? OutputFormat::Csv : OutputFormat::Text;
}

std::optional<int> failIfFilesChanged(std::initializer_list<const query::Session*> sessions) {
  for (const query::Session* session : sessions) {
    if (Status s = session->checkFilesUnchanged(); !s) {
      return fail(Error(s.error().message() + "; what goheap printed is not to be trusted"));
    }
  }
  return std::nullopt;
}

std::vector<InputFile> inputFiles(const ParsedArgs& args) {
  std::vector<InputFile> inputs;
  const std::pair<const char*, std::string_view> roles[] = {
      {"HEAP", "the heap"}, {"OLD", "the earlier heap"}, {"EXE", "the executable"}};
  for (const auto& [name, role] : roles) {
    if (args.has(name)) inputs.push_back({role, std::string(args.getString(name))});
  }
  return inputs;
}

int runWithSnapshot(const CommandSpec& spec, int argc, const char* const* argv,
                    const CommandBody& body, const BeforeLoad& before_load) {
  int exit_code = kExitOk;
  const std::optional<ParsedArgs> parsed = parseCommandLine(spec, argc, argv, exit_code);
  if (!parsed) return exit_code;
  const ParsedArgs& args = *parsed;
  const Expected<OutputFormat> chosen = outputFormat(args);
  if (!chosen) return fail(chosen.error(), kExitUsage);
  const OutputFormat format = *chosen;
  Expected<query::Source> source = sourceFromArgs(args);
  if (!source) return fail(source.error(), kExitUsage);
  if (before_load) {
    if (std::optional<int> stop = before_load(args)) return *stop;
  }

  Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
  PhaseTimer timer;
  std::optional<AnonymousMemoryPeak> anonymous_peak;
  if (args.getBool("timings")) {
    anonymous_peak.emplace();
    timer.sampleMemory(&*anonymous_peak);
  }
  auto session = openForCommand(*source, openOptions(args), progress, timer);
  if (!session) return fail(session.error());

  int code;
  {
    Phase p = timer.phase("analyse and print");
    code = body(args, **session, format);
  }
  if (std::optional<int> changed = failIfFilesChanged({session->get()})) return *changed;
  if (anonymous_peak) {
    std::string report = timer.render(peakRssBytes()) +
                         renderMemoryUse((*session)->snapshot(), anonymous_peak->peakBytes());
    std::fwrite(report.data(), 1, report.size(), stderr);
  }
  return code;
}

}  // namespace goheap::cli
