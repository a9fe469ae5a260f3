// `goheap NAME` for every question of the table (questions/catalog.h): the
// command's flags come from the question's parameters, and its output from
// the question's writers, so a new question needs nothing here.
#include <cstdio>

#include "cli/command.h"
#include "cli/output_width.h"
#include "util/process_memory.h"

namespace goheap::cli {

namespace {

using questions::HeapsNeeded;
using questions::Question;

void addOldAndNew(CommandSpec& spec) {
  spec.positional("OLD",
                  "the earlier heap: a heap dump (runtime/debug.WriteHeapDump), a core file, or "
                  "an http:// URL that serves a dump (the capture package's /debug/heapdump)");
  spec.positional("NEW", "the later heap of the same program, or a URL that serves it");
  spec.positional("EXE",
                  "the program's executable (the build both heaps came from): Go types, named "
                  "globals and frames")
      .optional();
}

CommandSpec questionSpec(const Question& q) {
  CommandSpec spec{std::string(q.name), std::string(q.description)};
  if (q.heaps == HeapsNeeded::OldAndNew) {
    addOldAndNew(spec);
    addQueryParams(spec, q.params);
    addCacheFlags(spec);
    spec.boolFlag("json", "print JSON (schema in docs/cli-json.md) instead of text");
    if (q.csv) spec.boolFlag("csv", "print the table as CSV");
    spec.boolFlag("timings", "print each phase's time and the peak memory on stderr");
    spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
  } else {
    addHeapAndCommonFlags(spec, q.csv);
    // A question that may take a base heap (sql --base) has a runner of
    // its own on the command line; here it is asked of one heap.
    addQueryParams(spec, q.params);
  }
  for (const questions::Example& e : q.examples) {
    spec.example(std::string(e.command_line), std::string(e.explanation));
  }
  return spec;
}

// Prints the answer in the format asked for; warnings the text does not
// carry go to `warn`, after it, where they are seen last.
int printAnswer(const ParsedArgs& args, const questions::Asked& asked,
                const questions::Heaps& heaps, OutputFormat format,
                const std::function<void(const std::string&)>& warn) {
  Expected<std::unique_ptr<const questions::Answer>> answer = asked.answer(heaps);
  if (!answer) return failQuery(args, answer.error());
  if (format == OutputFormat::Json) {
    print((*answer)->json());
    return kExitOk;
  }
  print((*answer)->text({outputWidth(), format == OutputFormat::Csv}));
  for (const std::string& w : (*answer)->warnings()) warn("goheap: warning: " + w);
  return kExitOk;
}

// OLD NEW [EXE]: both heaps opened, then the question asked of them.
int runOnOldAndNew(const CommandSpec& spec, const Question& q, int argc, const char* const* argv) {
  return runParsed(spec, argc, argv, [&](const ParsedArgs& args) {
    const Expected<OutputFormat> chosen = outputFormat(args);
    if (!chosen) return fail(chosen.error(), kExitUsage);
    auto asked = q.read(queryValues(args, q.params));
    if (!asked) return failQuery(args, asked.error());

    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    const std::string exe = args.has("EXE") ? std::string(args.getString("EXE")) : std::string();
    const query::OpenOptions options = openOptions(args);
    auto old_heap =
        openForCommand(query::Source::fromArgument(std::string(args.getString("OLD")), exe, "OLD"),
                       options, progress, timer);
    if (!old_heap) return fail(old_heap.error());
    auto new_heap =
        openForCommand(query::Source::fromArgument(std::string(args.getString("NEW")), exe, "NEW"),
                       options, progress, timer);
    if (!new_heap) return fail(new_heap.error());

    int code;
    {
      Phase p = timer.phase("analyse and print");
      code = printAnswer(args, **asked, {**new_heap, old_heap->get()}, *chosen,
                         [&](const std::string& line) { progress.message(line); });
    }
    if (std::optional<int> changed = failIfFilesChanged({old_heap->get(), new_heap->get()})) {
      return *changed;
    }
    if (args.getBool("timings")) {
      std::string report = timer.render(peakRssBytes());
      std::fwrite(report.data(), 1, report.size(), stderr);
    }
    return code;
  });
}

}  // namespace

int runQuestion(const Question& q, int argc, const char* const* argv) {
  const CommandSpec spec = questionSpec(q);
  if (q.heaps == HeapsNeeded::OldAndNew) return runOnOldAndNew(spec, q, argc, argv);
  // The parameters are read before the heap is opened: a mistake is told
  // at once, not after minutes.
  std::unique_ptr<const questions::Asked> asked;
  const auto read = [&](const ParsedArgs& args) -> std::optional<int> {
    auto r = q.read(queryValues(args, q.params));
    if (!r) return failQuery(args, r.error());
    asked = r.take();
    return std::nullopt;
  };
  return runWithSnapshot(
      spec, argc, argv,
      [&](const ParsedArgs& args, const query::Session& session, OutputFormat format) {
        return printAnswer(args, *asked, {session}, format, [](const std::string& line) {
          std::fprintf(stderr, "%s\n", line.c_str());
        });
      },
      read);
}

}  // namespace goheap::cli
