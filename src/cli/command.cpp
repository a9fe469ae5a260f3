#include "cli/command.h"

#include <filesystem>
#include <optional>

#include "cli/progress.h"
#include "util/json_writer.h"
#include "util/output_file.h"

namespace goheap::cli {

std::span<const Command> allCommands() {
  static constexpr Command kCommands[] = {
      {"summary", "what the dump holds, reachable vs garbage, memstats, top retainers", runSummary},
      {"top", "histogram of objects by type, allocation site or shape, by retained size", runTop},
      {"dom", "the dominator tree's biggest subtrees", runDom},
      {"paths", "shortest paths from GC roots to an object", runPaths},
      {"obj", "one object: contents, pointers, referrers, allocation stack, retained size", runObj},
      {"goroutines", "goroutines with their frames and the bytes each stack retains",
       runGoroutines},
      {"suspects", "leak suspects: what retains a large share of the heap, and where it piles up",
       runSuspects},
      {"diff", "what grew between two dumps of one program, and what holds the new objects",
       runDiff},
      {"dups", "duplicate strings, []byte and identical objects, by bytes wasted", runDups},
      {"waste", "size-class rounding, arrays kept by small slices, sparse maps, garbage", runWaste},
      {"report", "one self-contained HTML page and JSON of all of the above, for CI", runReport},
      {"convert", "the heap in another tool's format: JSON Lines, Graphviz, ...", runConvert},
      {"serve", "a web UI and JSON API over HTTP for a dump (and a base dump to diff with)",
       runServe},
      {"bin", "a Go executable: version, target, pclntab, functions, address to file:line", runBin},
  };
  return kCommands;
}

void addDumpAndCommonFlags(CommandSpec& spec, bool csv) {
  spec.positional("DUMP", "heap dump written by runtime/debug.WriteHeapDump");
  spec.positional("EXE",
                  "the program's executable (the same build that wrote the dump): names "
                  "frames with file:line and inlined calls, globals, closures and functions")
      .optional();
  spec.boolFlag("json", "print JSON (schema in docs/cli-json.md) instead of text");
  if (csv) spec.boolFlag("csv", "print CSV instead of a table");
  spec.boolFlag("timings", "print each phase's time and the peak memory on stderr");
  spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
}

int fail(const Error& error, int code) {
  std::fprintf(stderr, "goheap: %s\n", error.message().c_str());
  return code;
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

Expected<std::unique_ptr<analysis::Snapshot>> loadForCommand(const std::string& path,
                                                             const std::string& exe_path,
                                                             Progress& progress, PhaseTimer& timer,
                                                             std::string_view label) {
  const std::string suffix = label.empty() ? std::string() : " (" + std::string(label) + ")";
  std::error_code size_error;
  const uint64_t file_size = std::filesystem::file_size(path, size_error);
  std::optional<Phase> current;
  analysis::LoadHooks hooks;
  hooks.begin_phase = [&](std::string_view name) {
    // Only reading reports how far it got, in bytes of the file.
    const bool reading = name == "read dump" && !size_error;
    current.emplace(timer.phase(std::string(name) + suffix, &progress, reading ? file_size : 0));
  };
  hooks.progress = [&](uint64_t done, uint64_t) {
    if (current) current->update(done);
  };
  hooks.end_phase = [&] { current.reset(); };

  auto snapshot = analysis::loadSnapshot(path, hooks);
  current.reset();
  if (!snapshot) return snapshot.error();
  for (const std::string& w : (*snapshot)->dump.warnings) {
    progress.message("goheap: warning: " + path + ": " + w);
  }
  if (!exe_path.empty()) {
    Phase p = timer.phase("read executable" + suffix, &progress, 0);
    if (Status s = analysis::attachExecutable(**snapshot, exe_path); !s) {
      progress.message("goheap: warning: " + (label.empty() ? std::string() : path + ": ") +
                       "not using the executable: " + s.error().message() +
                       "; carrying on from the dump alone");
    }
  }
  if ((*snapshot)->exe) {
    Phase p = timer.phase("type objects (DWARF)" + suffix, &progress, 0);
    if (Status s = analysis::typeObjects(**snapshot); !s) {
      progress.message("goheap: note: no types from the executable (" + s.error().message() +
                       "); objects are named by allocation site, interface and shape");
    }
  }
  return snapshot;
}

Expected<OutputFormat> outputFormat(const ParsedArgs& args) {
  const bool json = args.getBool("json");
  const bool csv = args.has("csv") && args.getBool("csv");
  if (json && csv) return args.usageError("--json and --csv do not go together");
  if (json) return OutputFormat::Json;
  return csv ? OutputFormat::Csv : OutputFormat::Text;
}

std::optional<int> failIfFilesChanged(
    std::initializer_list<const analysis::Snapshot*> snapshots) {
  for (const analysis::Snapshot* snapshot : snapshots) {
    if (Status s = snapshot->checkFilesUnchanged(); !s) {
      return fail(Error(s.error().message() + "; what goheap printed is not to be trusted"));
    }
  }
  return std::nullopt;
}

std::vector<InputFile> inputFiles(const ParsedArgs& args) {
  std::vector<InputFile> inputs;
  const std::pair<const char*, std::string_view> roles[] = {
      {"DUMP", "the heap dump"}, {"OLD", "the earlier heap dump"}, {"EXE", "the executable"}};
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
  if (before_load) {
    if (std::optional<int> stop = before_load(args)) return *stop;
  }

  Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
  PhaseTimer timer;
  auto snapshot = loadForCommand(
      std::string(args.getString("DUMP")),
      args.has("EXE") ? std::string(args.getString("EXE")) : std::string(), progress, timer);
  if (!snapshot) return fail(snapshot.error());

  int code;
  {
    Phase p = timer.phase("analyse and print");
    code = body(args, **snapshot, format);
  }
  if (std::optional<int> changed = failIfFilesChanged({snapshot->get()})) return *changed;
  if (args.getBool("timings")) {
    std::string report = timer.render(peakRssBytes());
    std::fwrite(report.data(), 1, report.size(), stderr);
  }
  return code;
}

}  // namespace goheap::cli
