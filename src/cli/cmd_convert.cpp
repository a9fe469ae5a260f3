// goheap convert HEAP [EXE] --to FORMAT -o FILE: the heap in another tool's
// format (src/export/), with goheap's names and, given the executable, its
// types and source lines.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "analysis/slots.h"
#include "cli/command.h"
#include "cli/progress.h"
#include "export/formats.h"
#include "util/format.h"
#include "util/output_file.h"

extern char** environ;

namespace goheap::cli {

namespace {

CommandSpec convertSpec() {
  std::string formats;
  std::vector<std::string> names;
  for (const exporting::Format& f : exporting::allFormats()) {
    formats += std::string("\n  ") + f.name + ": " + f.description;
    names.emplace_back(f.name);
  }
  CommandSpec spec("convert",
                   "Writes the heap in another tool's format, with goheap's names: Go types, "
                   "fields, goroutines and source lines when EXE is given, else allocation "
                   "sites and shapes. Formats:" +
                       formats);
  addHeapAndCommonFlags(spec, /*csv=*/false);
  spec.choice("to", names, names.front(), "the format to write");
  spec.flag("output", "FILE", "where to write it; - for standard output").alias('o');
  spec.flag("object", "ADDR", "the object a neighbourhood format (dot) is about")
      .kind(ValueKind::Address);
  spec.flag("depth", "N", "dot: levels of what the object keeps alive")
      .kind(ValueKind::Uint)
      .defaultValue("2");
  spec.boolFlag("svg", "dot: render to SVG with Graphviz's dot (apt-get install graphviz)");
  spec.example("goheap convert heap.dump ./server --to jsonl -o heap.jsonl",
               "the whole graph as JSON Lines");
  spec.example("goheap convert heap.dump ./server --to pprof -o heap.pb.gz",
               "types and allocation sites for go tool pprof (docs/export-formats.md)");
  spec.example("goheap convert heap.dump ./server --to pprof-retention -o retention.pb.gz",
               "a flame graph of what retains what: go tool pprof -http=: retention.pb.gz");
  spec.example("goheap convert heap.dump ./server --to heapsnapshot -o heap.heapsnapshot",
               "for Chrome DevTools' Memory tab (Load profile) or memlab");
  spec.example("goheap convert heap.dump ./server --to dot --object 0xc000123450 -o obj.dot",
               "why one object is alive and what it keeps alive, for Graphviz");
  spec.example("goheap convert heap.dump --to dot --object 0xc000123450 --svg -o obj.svg",
               "the same, rendered");
  return spec;
}

// Renders the DOT text in `dot_source` (rewound) to SVG with Graphviz's
// dot, which writes into `svg`: its standard input and output are the two
// files, so no file name is invented next to the user's.
Status renderSvg(std::FILE* dot_source, std::FILE* svg) {
  std::rewind(dot_source);
  std::string dot = "dot", tsvg = "-Tsvg";
  char* argv[] = {dot.data(), tsvg.data(), nullptr};
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, fileno(dot_source), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&files, fileno(svg), STDOUT_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "dot", &files, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    return Error("--svg needs Graphviz's dot, which is not installed (apt-get install graphviz)");
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error("Graphviz's dot failed to render the graph");
  }
  return Status::success();
}

}  // namespace

int runConvert(int argc, const char* const* argv) {
  const exporting::Format* format = nullptr;
  // Made before the dump is loaded: a wrong -o is told at once, and the
  // run's inputs are known to be safe from it.
  std::optional<OutputFile> output;
  auto check = [&](const ParsedArgs& args) -> std::optional<int> {
    format = exporting::findFormat(args.getString("to"));
    if (format == nullptr) return fail(args.usageError("unknown format"), kExitUsage);
    if (!args.has("output")) {
      return fail(args.usageError("missing -o FILE (- for standard output)"), kExitUsage);
    }
    if (format->needs_focus && !args.has("object")) {
      return fail(args.usageError(std::string("--to ") + format->name + " needs --object ADDR"),
                  kExitUsage);
    }
    const bool svg = args.getBool("svg");
    if (svg && std::string_view(format->name) != "dot") {
      return fail(args.usageError("--svg goes with --to dot"), kExitUsage);
    }
    const std::string path(args.getString("output"));
    if (svg && path == "-") return fail(args.usageError("--svg needs -o FILE"), kExitUsage);
    Expected<OutputFile> created = OutputFile::create(path, inputFiles(args));
    if (!created) return fail(created.error());
    output.emplace(created.take());
    return std::nullopt;
  };
  auto body = [&](const ParsedArgs& args, const query::Session& session, OutputFormat) {
    const analysis::Snapshot& snap = session.snapshot();
    exporting::ConvertOptions options;
    options.depth = static_cast<uint32_t>(args.getUint("depth"));
    if (format->needs_focus) {
      auto o = analysis::objectAt(snap, args.getUint("object"));
      if (!o) {
        return fail(
            Error::notFound("no object contains address " + formatHex(args.getUint("object"))));
      }
      options.focus = *o;
    }
    const bool svg = args.getBool("svg");
    // With --svg the DOT text goes to an anonymous temporary file first.
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> dot_source(svg ? std::tmpfile() : nullptr,
                                                               &std::fclose);
    if (svg && !dot_source) {
      return fail(Error::io(std::string("cannot create a temporary file for the DOT text: ") +
                            std::strerror(errno)));
    }
    // A progress line of its own: writing a big dump takes seconds.
    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    PhaseSink sink(progress, timer, ProgressUnit::Items);
    options.sink = &sink;
    Status written = [&] {
      exporting::Output out(svg ? dot_source.get() : output->stream(),
                            svg ? "the temporary DOT file" : output->name());
      if (Status s = format->write(snap, options, out); !s) return s;
      return out.finish();
    }();
    if (!written) return fail(written.error());
    if (svg) {
      if (Status r = renderSvg(dot_source.get(), output->stream()); !r) return fail(r.error());
    }
    // A dump or executable that changed while we read it makes the output
    // meaningless: the old file stays.
    if (Status s = snap.checkFilesUnchanged(); !s) {
      return fail(Error(s.error().message() + "; " + output->name() + " was not written"));
    }
    if (Status s = output->commit(); !s) return fail(s.error());
    return kExitOk;
  };
  return runWithSnapshot(convertSpec(), argc, argv, body, check);
}

}  // namespace goheap::cli
