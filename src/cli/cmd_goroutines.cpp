// goheap goroutines DUMP: every goroutine the dump holds, its state, its
// frames, and the bytes that only its stack keeps alive.
#include <algorithm>

#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec goroutinesSpec() {
  return queryCommandSpec(
      "goroutines",
      "Lists the goroutines in the dump with their state and wait reason, their stack "
      "frames (innermost first), and the bytes each goroutine's stack retains: what would "
      "be freed if the goroutine exited. Runtime goroutines (GC workers, the finalizer "
      "goroutine) are included and marked; --user hides them.\n\n"
      "The dump records when a GC first found each goroutine blocked (not when it blocked, "
      "and nothing if no GC has run since), on a clock with no \"now\" in the dump: goheap "
      "shows it as t+X, where t is the earliest such time, so t+0s has waited longest.",
      /*csv=*/true, query::goroutinesParams(),
      {{"goheap goroutines heap.dump", "every goroutine with its frames"},
       {"goheap goroutines heap.dump ./server",
        "frames with file:line and inlined calls, and where each was created"},
       {"goheap goroutines heap.dump --sort retained --user --no-frames",
        "the goroutines whose stacks keep the most memory alive"}});
}

std::string state(const analysis::GoroutineInfo& g) {
  return g.wait_reason.empty() ? g.status_name : g.status_name + ": " + g.wait_reason;
}

// The runtime records, for a blocked goroutine, the start of the first GC
// that found it blocked (0 if no GC has run since it blocked), on a clock the
// dump gives no "now" for. Relative to the earliest such time in the dump,
// "t+0s" has waited longest, and differences between goroutines are real.
std::string seenBlocked(const analysis::GoroutineInfo& g, uint64_t earliest) {
  if (g.wait_since == 0 || earliest == 0) return "-";
  return "t+" + formatDuration(static_cast<double>(g.wait_since - earliest) / 1e9);
}

std::string sourcePosition(const std::string& file, int64_t line) {
  return file.empty() ? "?" : file + ":" + std::to_string(line);
}

}  // namespace

int runGoroutines(int argc, const char* const* argv) {
  return runQueryCommand(
      goroutinesSpec(), argc, argv, query::goroutinesParams(), query::readGoroutines,
      [](const ParsedArgs& /*args*/, const query::Session& session, const query::GoroutinesQuery& q,
         OutputFormat format) {
        const std::vector<analysis::GoroutineInfo> gs = query::queryGoroutines(session, q);
        const bool frames = q.frames;
        const uint64_t earliest = query::earliestWaitSince(gs);
        if (format == OutputFormat::Json) {
          print(query::goroutinesJson(gs, frames));
          return kExitOk;
        }
        if (format == OutputFormat::Csv || !frames) {
          TextTable t;
          t.addColumn("id", Align::Right);
          t.addColumn("state");
          t.addColumn("seen blocked");
          t.addColumn("retained", Align::Right);
          t.addColumn("frames", Align::Right);
          size_t fn_col = t.addColumn("innermost user frame");
          t.setElastic(fn_col, Elide::Middle, 24);
          for (const analysis::GoroutineInfo& g : gs) {
            // The innermost frame outside the runtime says what the goroutine is doing.
            std::string fn = g.frames.empty() ? "" : g.frames.front().function;
            for (const analysis::FrameInfo& f : g.frames) {
              if (!f.function.starts_with("runtime.")) {
                fn = f.function;
                break;
              }
            }
            std::string retained =
                format == OutputFormat::Csv ? std::to_string(g.retained) : formatBytes(g.retained);
            t.addRow({std::to_string(g.id), state(g) + (g.is_system ? " (runtime)" : ""),
                      seenBlocked(g, earliest), retained, std::to_string(g.frames.size()), fn});
          }
          print(format == OutputFormat::Csv ? t.renderCsv() : t.renderText(outputWidth()));
          return kExitOk;
        }
        std::string out;
        for (const analysis::GoroutineInfo& g : gs) {
          out += "goroutine " + std::to_string(g.id) + " [" + state(g);
          if (g.wait_since != 0) out += ", seen blocked at " + seenBlocked(g, earliest);
          out += "]";
          if (g.is_system) out += " (runtime)";
          out += ", stack retains " + formatBytes(g.retained) + "\n";
          for (const analysis::FrameInfo& f : g.frames) {
            for (const analysis::SourceLine& in : f.inlined) {
              out +=
                  "    " + in.function + " (" + sourcePosition(in.file, in.line) + ")  inlined\n";
            }
            out += "    " + f.function;
            if (!f.file.empty()) out += " (" + sourcePosition(f.file, f.line) + ")";
            out += "  frame " + formatBytes(f.frame_size);
            if (f.retained > 0) out += ", retains " + formatBytes(f.retained);
            out += "\n";
          }
          if (g.created_by) {
            out += "    created by " + g.created_by->function + " at " +
                   sourcePosition(g.created_by->file, g.created_by->line) + "\n";
          }
          out += "\n";
        }
        out += std::to_string(gs.size()) + " goroutines";
        if (earliest != 0) {
          out +=
              "; \"seen blocked at t+X\": when a GC first found it blocked, t being the "
              "earliest such time (it has waited at least that long)";
        }
        out += "\n";
        print(out);
        return kExitOk;
      });
}

}  // namespace goheap::cli
