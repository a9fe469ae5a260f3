// goheap goroutines HEAP: every goroutine the heap holds, its state, its
// frames, and the bytes that only its stack keeps alive.
#include <algorithm>

#include "goruntime/goroutine_status.h"
#include "questions/question.h"

namespace goheap::questions {

namespace {

// When a GC first saw the earliest-blocked goroutine blocked (0: none did):
// wait times are shown relative to it.
uint64_t earliestWaitSince(const std::vector<analysis::GoroutineInfo>& gs) {
  uint64_t earliest = 0;
  for (const analysis::GoroutineInfo& g : gs) {
    if (g.wait_since != 0 && (earliest == 0 || g.wait_since < earliest)) earliest = g.wait_since;
  }
  return earliest;
}

const QuestionInfo kInfo{
    .name = "goroutines",
    .summary = "goroutines with their frames and the bytes each stack retains",
    .heaps = HeapsNeeded::One,
    .csv = true,
    .command_line = true,
    .kept = false,
    .description =
        "Lists the goroutines in the dump with their state and wait reason, their stack "
        "frames (innermost first), and the bytes each goroutine's stack retains: what would "
        "be freed if the goroutine exited. Runtime goroutines (GC workers, the finalizer "
        "goroutine) are included and marked; --user hides them.\n"
        "\n"
        "The dump records when a GC first found each goroutine blocked (not when it blocked, "
        "and nothing if no GC has run since), on a clock with no \"now\" in the dump: goheap "
        "shows it as t+X, where t is the earliest such time, so t+0s has waited longest.\n"
        "\n"
        "A goroutine is leaked when it is blocked for good: on a channel, a select or a "
        "sync primitive that nothing able to run can reach, as Go 1.27's goroutineleak "
        "profile finds them, here for any release. --leaked shows only those; --group "
        "counts the goroutines by the function they are blocked in (the innermost frame "
        "outside runtime and sync), with the bytes each group's stacks keep alive together.",
    .examples =
        {
            {"goheap goroutines heap.dump", "every goroutine with its frames"},
            {"goheap goroutines heap.dump ./server",
             "frames with file:line and inlined calls, and where each was created"},
            {"goheap goroutines heap.dump --sort retained --user --no-frames",
             "the goroutines whose stacks keep the most memory alive"},
            {"goheap goroutines heap.dump --leaked --group",
             "the leaked goroutines by blocking function, with what each group holds"},
        },
};

using Goroutines = std::vector<analysis::GoroutineInfo>;

std::string state(const analysis::GoroutineInfo& g) {
  std::string st = g.wait_reason.empty() ? g.status_name : g.status_name + ": " + g.wait_reason;
  // _Gleaked is the runtime's own mark of a leak: said with whether goheap's
  // analysis agrees.
  if (g.status == goruntime::kGleaked) {
    return st + (g.leaked ? ", goheap agrees" : ", goheap finds it could run");
  }
  if (!g.not_leaked_because.empty()) return st + ", maybe leaked";
  return g.leaked ? st + ", leaked" : st;
}

// Why each goroutine shown as "maybe leaked" is not called leaked.
std::string maybeLeakedText(const Goroutines& gs) {
  std::string out;
  for (const analysis::GoroutineInfo& g : gs) {
    if (g.not_leaked_because.empty()) continue;
    out += "goroutine " + std::to_string(g.id) + " is not called leaked: " + g.not_leaked_because +
           "\n";
  }
  return out;
}

std::string groupsText(const std::vector<analysis::GoroutineGroup>& groups,
                       const TextStyle& style) {
  TextTable t;
  size_t fn_col = t.addColumn("blocked in");
  t.setElastic(fn_col, Elide::Middle, 24);
  t.addColumns({"goroutines", "leaked", "retained together"}, Align::Right);
  uint64_t total = 0, leaked = 0;
  for (const analysis::GoroutineGroup& g : groups) {
    t.addRow({g.function.empty() ? "(runtime)" : g.function, std::to_string(g.goroutines),
              std::to_string(g.leaked),
              style.csv ? std::to_string(g.retained) : formatBytes(g.retained)});
    total += g.goroutines;
    leaked += g.leaked;
  }
  if (style.csv) return t.renderCsv();
  return t.renderText(style.width) + std::to_string(total) + " goroutines, " +
         std::to_string(leaked) + " leaked, in " + std::to_string(groups.size()) +
         " blocking functions\n";
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

std::string goroutinesText(const Heaps& heaps, const GoroutinesQuery& q, const Goroutines& gs,
                           const TextStyle& style) {
  if (q.group) return groupsText(analysis::groupGoroutines(heaps.current.snapshot(), gs), style);
  const bool frames = q.frames;
  const uint64_t earliest = earliestWaitSince(gs);
  if (style.csv || !frames) {
    TextTable t;
    t.addColumn("id", Align::Right);
    t.addColumns({"state", "seen blocked"});
    t.addColumns({"retained", "frames"}, Align::Right);
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
      std::string retained = style.csv ? std::to_string(g.retained) : formatBytes(g.retained);
      t.addRow({std::to_string(g.id), state(g) + (g.is_system ? " (runtime)" : ""),
                seenBlocked(g, earliest), retained, std::to_string(g.frames.size()), fn});
    }
    return style.csv ? t.renderCsv() : t.renderText(style.width) + maybeLeakedText(gs);
  }
  std::string out;
  for (const analysis::GoroutineInfo& g : gs) {
    out += "goroutine " + std::to_string(g.id) + " [" + state(g);
    if (g.wait_since != 0) out += ", seen blocked at " + seenBlocked(g, earliest);
    out += "]";
    if (g.is_system) out += " (runtime)";
    out += ", stack retains " + formatBytes(g.retained) + "\n";
    if (!g.not_leaked_because.empty()) {
      out += "    not called leaked: " + g.not_leaked_because + "\n";
    }
    for (const analysis::FrameInfo& f : g.frames) {
      for (const analysis::SourceLine& in : f.inlined) {
        out += "    " + in.function + " (" + sourcePosition(in.file, in.line) + ")  inlined\n";
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
  return out;
}

void writeSourceLine(JsonWriter& w, const analysis::SourceLine& l) {
  w.beginObject();
  w.field("function", l.function).field("file", l.file).field("line", l.line);
  w.endObject();
}

const Parts<GoroutinesQuery, Goroutines> kParts{
    .fields =
        {
            field<&GoroutinesQuery::sort>(
                choiceParam("sort", "id", {"id", "retained"}, "order of the goroutines")),
            field<&GoroutinesQuery::user>(
                flagParam("user", false, "hide the runtime's own goroutines")),
            field<&GoroutinesQuery::frames>(
                flagParam("frames", true, "one line per goroutine, without its frames")
                    .withCliName("no-frames")),
            field<&GoroutinesQuery::leaked>(
                flagParam("leaked", false, "only the goroutines blocked forever")),
            field<&GoroutinesQuery::group>(flagParam(
                "group", false, "counts and jointly retained bytes by blocking function")),
        },
    .run = [](const Heaps& h, const GoroutinesQuery& q) -> Expected<Goroutines> {
      return queryGoroutines(h.current, q);
    },
    .json =
        [](const Heaps& h, const GoroutinesQuery& q, const Goroutines& gs) {
          if (q.group)
            return goroutineGroupsJson(analysis::groupGoroutines(h.current.snapshot(), gs));
          return goroutinesJson(gs, q.frames);
        },
    .text = goroutinesText,
};

}  // namespace

const Question& goroutinesQuestion() {
  return questionOf<kInfo, kParts>();
}

std::vector<analysis::GoroutineInfo> queryGoroutines(const Session& session,
                                                     const GoroutinesQuery& q) {
  std::vector<analysis::GoroutineInfo> gs = session.goroutineInfos();
  if (q.user) {
    std::erase_if(gs, [](const analysis::GoroutineInfo& g) { return g.is_system; });
  }
  if (q.leaked) {
    std::erase_if(gs, [](const analysis::GoroutineInfo& g) { return !g.leaked; });
  }
  if (q.sort == "retained") {
    std::stable_sort(gs.begin(), gs.end(),
                     [](const auto& a, const auto& b) { return a.retained > b.retained; });
  } else {
    std::stable_sort(gs.begin(), gs.end(),
                     [](const auto& a, const auto& b) { return a.id < b.id; });
  }
  return gs;
}

std::string goroutinesJson(const std::vector<analysis::GoroutineInfo>& gs, bool frames) {
  const uint64_t earliest = earliestWaitSince(gs);
  return jsonDocument([&](JsonWriter& w) {
    w.key("goroutines").beginArray();
    for (const analysis::GoroutineInfo& g : gs) {
      w.beginObject();
      w.field("id", g.id).field("status", g.status).field("status_name", g.status_name);
      w.field("wait_reason", g.wait_reason).field("wait_since_ns", g.wait_since);
      if (g.wait_since != 0 && earliest != 0) {
        w.field("wait_since_relative_ns", g.wait_since - earliest);
      }
      w.field("system", g.is_system).field("leaked", g.leaked);
      if (!g.not_leaked_because.empty()) w.field("not_leaked_because", g.not_leaked_because);
      w.field("blocked_in", g.blocked_in).field("retained", g.retained);
      w.field("g_address", formatHex(g.g_addr));
      if (g.created_pc != 0) w.field("created_pc", formatHex(g.created_pc));
      if (g.created_by) {
        w.key("created_by");
        writeSourceLine(w, *g.created_by);
      }
      if (frames) {
        w.key("frames").beginArray();
        for (const analysis::FrameInfo& f : g.frames) {
          w.beginObject();
          w.field("function", f.function).field("pc", formatHex(f.pc));
          if (!f.file.empty()) w.field("file", f.file).field("line", f.line);
          if (!f.inlined.empty()) {
            w.key("inlined").beginArray();
            for (const analysis::SourceLine& in : f.inlined) writeSourceLine(w, in);
            w.endArray();
          }
          w.field("depth", f.depth).field("frame_size", f.frame_size);
          w.field("retained", f.retained);
          w.endObject();
        }
        w.endArray();
      }
      w.endObject();
    }
    w.endArray();
  });
}

std::string goroutineGroupsJson(const std::vector<analysis::GoroutineGroup>& groups) {
  return jsonDocument([&](JsonWriter& w) {
    w.key("groups").beginArray();
    for (const analysis::GoroutineGroup& g : groups) {
      w.beginObject();
      w.field("blocked_in", g.function).field("goroutines", g.goroutines);
      w.field("leaked", g.leaked).field("retained", g.retained);
      w.endObject();
    }
    w.endArray();
  });
}

}  // namespace goheap::questions
