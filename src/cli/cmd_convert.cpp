// goheap convert DUMP [EXE] --to FORMAT -o FILE: the heap in another tool's
// format (src/export/), with goheap's names and, given the executable, its
// types and source lines.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "analysis/queries.h"
#include "cli/command.h"
#include "cli/progress.h"
#include "export/formats.h"
#include "util/format.h"

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
  addDumpAndCommonFlags(spec, /*csv=*/false);
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

// Runs `dot -Tsvg -o svg dot_file`; an Error when it cannot.
Status renderSvg(const std::string& dot_file, const std::string& svg) {
  std::string dot = "dot", tsvg = "-Tsvg", o = "-o";
  std::string out = svg, in = dot_file;
  char* argv[] = {dot.data(), tsvg.data(), o.data(), out.data(), in.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "dot", nullptr, nullptr, argv, environ) != 0) {
    return Error("--svg needs Graphviz's dot, which is not installed (apt-get install graphviz)");
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error("dot failed to render " + svg);
  }
  return Status::success();
}

}  // namespace

int runConvert(int argc, const char* const* argv) {
  return runWithSnapshot(
      convertSpec(), argc, argv,
      [](const ParsedArgs& args, const analysis::Snapshot& snap, OutputFormat) {
        const exporting::Format* format = exporting::findFormat(args.getString("to"));
        if (format == nullptr) return fail(args.usageError("unknown format"), kExitUsage);
        if (!args.has("output")) {
          return fail(args.usageError("missing -o FILE (- for standard output)"), kExitUsage);
        }
        exporting::ConvertOptions options;
        options.depth = static_cast<uint32_t>(args.getUint("depth"));
        if (format->needs_focus) {
          if (!args.has("object")) {
            return fail(
                args.usageError(std::string("--to ") + format->name + " needs --object ADDR"),
                kExitUsage);
          }
          auto o = analysis::objectAt(snap, args.getUint("object"));
          if (!o) {
            return fail(Error("no object contains address " + formatHex(args.getUint("object"))));
          }
          options.focus = *o;
        }
        const bool svg = args.getBool("svg");
        if (svg && std::string_view(format->name) != "dot") {
          return fail(args.usageError("--svg goes with --to dot"), kExitUsage);
        }
        std::string path(args.getString("output"));
        const bool to_stdout = path == "-";
        if (svg && to_stdout) return fail(args.usageError("--svg needs -o FILE"), kExitUsage);
        const std::string target = svg ? path + ".dot" : path;
        std::FILE* file = to_stdout ? stdout : std::fopen(target.c_str(), "wb");
        if (file == nullptr) return fail(Error("cannot create " + target));
        // A progress line of its own: writing a big dump takes seconds.
        Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
        PhaseTimer timer;
        std::optional<Phase> phase;
        options.progress = [&](uint64_t done, uint64_t total) {
          if (!phase) {
            phase.emplace(timer.phase(std::string("write ") + format->name, &progress, total,
                                      ProgressUnit::Items));
          }
          phase->update(done);
        };
        Status written = [&] {
          exporting::Output out(file, to_stdout ? "standard output" : target);
          if (Status s = format->write(snap, options, out); !s) return s;
          return out.finish();
        }();
        phase.reset();
        if (!to_stdout) std::fclose(file);
        if (!written) return fail(written.error());
        if (svg) {
          Status r = renderSvg(target, path);
          std::remove(target.c_str());
          if (!r) return fail(r.error());
        }
        return kExitOk;
      });
}

}  // namespace goheap::cli
