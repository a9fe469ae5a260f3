// What every goheap command shares: the table of commands, the common flags
// (--json, --csv, --timings, --no-progress), and the way a command loads its
// dump with a progress line and phase timings, then hands the Snapshot to
// its own body. A command body computes one analysis result and renders it.
#pragma once

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/progress.h"
#include "query/open.h"
#include "query/params.h"
#include "questions/question.h"
#include "util/error.h"
#include "util/output_file.h"

namespace goheap::cli {

// Exit codes: 0 success, 1 the work failed (bad dump, no such object), 2 the
// command line was wrong.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
// goheap report's checks failed: the heap grew by more than
// --fail-if-growth allows, or a --sql statement returned rows with
// --fail-if-rows.
constexpr int kExitCheckFailed = 3;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::function<int(int argc, const char* const* argv)> run;  // the words after the command name
};
// The questions' commands (questions/catalog.h), then the tools'.
std::span<const Command> allCommands();

// `goheap NAME` for a question of the table: its heaps, its parameters as
// flags, the common flags; prints the answer as text, CSV or JSON.
int runQuestion(const questions::Question& question, int argc, const char* const* argv);
int runBin(int argc, const char* const* argv);
// What goheap reads from an ELF core file (cmd_core_info.cpp).
int runCoreInfo(int argc, const char* const* argv);
// A live process's memory into a core (cmd_snap.cpp).
int runSnap(int argc, const char* const* argv);
// A live process snapped when triggers fire, and what grew (cmd_watch.cpp).
int runWatch(int argc, const char* const* argv);
int runConvert(int argc, const char* const* argv);
int runServe(int argc, const char* const* argv);
// The MCP server on standard input and output (cmd_mcp.cpp).
int runMcp(int argc, const char* const* argv);
int runReport(int argc, const char* const* argv);
// SQL over the heap's tables (cmd_sql.cpp): the sql question's command, with
// statements from -e or standard input.
int runSql(int argc, const char* const* argv);
// The index cache's entries: list and clear (cmd_cache.cpp).
int runCache(int argc, const char* const* argv);

// How a command prints its result.
enum class OutputFormat : uint8_t { Text, Json, Csv };

// The output format --json and --csv ask for (--csv only where the spec has
// it); both at once is a usage error.
Expected<OutputFormat> outputFormat(const ParsedArgs& args);

// Adds HEAP and the common flags to a command's spec. `csv` says whether the
// command offers --csv (tabular results only).
void addHeapAndCommonFlags(CommandSpec& spec, bool csv);

// --pid PID: a running process read instead of HEAP (query::Source::pid).
void addPidFlag(CommandSpec& spec);

// --cache DIR, --no-cache and --cache-size SIZE: the index cache, for every
// command that opens a heap; --threads N, how many threads open it (at most
// kMaxThreads); and --debug-dir (addDebugDirFlag).
inline constexpr uint64_t kMaxThreads = 256;
void addCacheFlags(CommandSpec& spec);
// --sql-timeout and --sql-rows, the limits a server puts on SQL; `asker`
// says whose statements they limit ("the sql tool").
void addSqlLimitFlags(CommandSpec& spec, std::string_view asker);
struct SqlLimitFlags {
  double seconds = 30;
  uint64_t max_rows = 10000;
};
// Their values, both above 0, or a usage error.
Expected<SqlLimitFlags> sqlLimitFlags(const ParsedArgs& args);
// --debug-dir DIR, repeatable: where EXE's separate debug file is looked for
// (query/debug_file.h); its help names DEBUGINFOD_URLS too.
void addDebugDirFlag(CommandSpec& spec);
// The options to open heaps with, as the index cache flags and --debug-dir
// ask (addCacheFlags; defaults where the spec has none of them), with the
// debuginfod servers of DEBUGINFOD_URLS.
query::OpenOptions openOptions(const ParsedArgs& args);
// The heap the arguments name: HEAP [EXE], or --pid PID [EXE]. A usage
// Error when neither is given, or a HEAP as well as --pid.
Expected<query::Source> sourceFromArgs(const ParsedArgs& args);

using CommandBody =
    std::function<int(const ParsedArgs& args, const query::Session& session, OutputFormat format)>;

// Checks a command makes before the (maybe long) load: an exit code to stop
// with, after printing why, or nothing to go on. Mistakes such as an output
// file that cannot be written are told at once, not after minutes.
using BeforeLoad = std::function<std::optional<int>(const ParsedArgs& args)>;

// Parses the arguments, answers --help, runs `before_load` (when given),
// loads HEAP (progress on a terminal, phase times with --timings) and runs
// `body`. Errors are printed here.
int runWithSnapshot(const CommandSpec& spec, int argc, const char* const* argv,
                    const CommandBody& body, const BeforeLoad& before_load = {});

// After a command printed its answer: when a dump or executable changed on
// disk while it was read (rewritten, truncated), prints so and returns the
// failure exit code; nothing when all is well.
std::optional<int> failIfFilesChanged(std::initializer_list<const query::Session*> sessions);

// The files a command given these arguments reads (HEAP, OLD, EXE, as far
// as the spec has them), for OutputFile's check that none is overwritten.
std::vector<InputFile> inputFiles(const ParsedArgs& args);

// Opens a heap as every command does (query::open): the progress line on
// `progress`, each phase timed by `timer`, warnings printed on stderr.
Expected<std::shared_ptr<const query::Session>> openForCommand(const query::Source& source,
                                                               const query::OpenOptions& options,
                                                               Progress& progress,
                                                               PhaseTimer& timer);

// A question's parameters as the command's flags (and positionals, like
// ADDR), with their help and defaults: the same names, kinds and choices as
// the HTTP API's (query/params.h).
void addQueryParams(CommandSpec& spec, const std::vector<query::ParamSpec>& params);
// The values the command line gave for them, for the question's read.
query::ParamValues queryValues(const ParsedArgs& args, const std::vector<query::ParamSpec>& params);
// Prints why a question could not be answered: a usage error (exit 2) for
// a wrong parameter, else exit 1.
int failQuery(const ParsedArgs& args, const Error& error);

// Parses a command's words and runs `body` with them. --help (exit 0) and
// a usage mistake (exit 2) are answered here, and `body` is not run.
int runParsed(const CommandSpec& spec, int argc, const char* const* argv,
              const std::function<int(const ParsedArgs& args)>& body);

// Parses a command's words. Answers --help (exit 0) and a usage mistake
// (exit 2) itself: then returns nothing and sets `exit_code`.
std::optional<ParsedArgs> parseCommandLine(const CommandSpec& spec, int argc,
                                           const char* const* argv, int& exit_code);

// Prints "goheap: MESSAGE" on stderr and returns `code`.
int fail(const Error& error, int code = kExitFailure);

// Writes text to stdout.
void print(const std::string& text);

}  // namespace goheap::cli
