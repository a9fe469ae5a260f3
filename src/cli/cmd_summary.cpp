// goheap summary DUMP: what the dump is, how much of it is alive, and the
// objects through which most memory is retained.
#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec summarySpec() {
  return queryCommandSpec(
      "summary",
      "Tells what a heap dump holds: its format and Go version, how many objects "
      "and bytes, how much is reachable from the GC roots and how much is garbage "
      "not yet collected, the runtime's memstats, and the top retainers: the "
      "objects held directly by a root (a global, a goroutine's stack, a "
      "finalizer) that keep the most memory alive.",
      /*csv=*/false, query::summaryParams(),
      {{"goheap summary heap.dump", "the overview, with the 10 biggest retainers"},
       {"goheap summary heap.dump -n 30 --json", "the same as JSON, 30 retainers"},
       {"goheap summary heap.dump --timings", "also how long each phase took"},
       {"goheap summary heap.dump ./server",
        "with the executable: globals named, frames with file:line"},
       {"goheap summary http://127.0.0.1:6060/debug/heapdump ./server",
        "a running service's heap, from the capture package's handler (capture/README.md)"}});
}

// Short: "bss 0x5a2230" (the global's address), "goroutine 18 main.serve",
// "several roots".
std::string heldByText(const analysis::Retainer& r) {
  const analysis::NodeLabel& h = r.held_by;
  if (!h.global.empty()) return h.name;
  if (h.kind == "data segment" || h.kind == "bss segment") {
    std::string seg = h.kind == "data segment" ? "data" : "bss";
    return r.held_at_offset ? "global at " + formatHex(r.held_at_address) + " (" + seg + ")" : seg;
  }
  return h.short_name.empty() ? h.name : h.short_name;
}

void writeText(const analysis::Summary& s) {
  std::string out;
  auto line = [&out](const std::string& key, const std::string& value) {
    out += "  " + key + std::string(key.size() < 11 ? 11 - key.size() : 1, ' ') + value + "\n";
  };
  out += s.file + " (" + formatBytes(s.file_size) + ")\n";
  std::string format =
      s.format_version == "core" ? std::string("ELF core file") : s.format_version + " heap dump";
  if (!s.go_version.empty()) format += ", " + s.go_version;
  if (!s.arch.empty()) format += ", " + s.arch;
  format += ", " + std::to_string(s.ptr_size) + "-byte pointers, ";
  format += s.big_endian ? "big-endian" : "little-endian";
  line("format", format);
  if (s.executable) {
    const analysis::ExecutableSummary& e = *s.executable;
    if (!e.used) {
      line("executable", "not used: " + e.problem);
    } else {
      std::string text = e.path + ": " + e.go_version + ", " + e.container + " " + e.arch + ", " +
                         formatCount(e.frames_matched) + " of " + formatCount(e.frames_checked) +
                         " frames match";
      if (e.load_bias != 0) text += ", loaded at +" + formatHex(e.load_bias) + " (PIE)";
      if (!e.has_symbols) text += ", stripped (globals unnamed)";
      line("executable", text);
    }
  }
  line("objects", formatCount(s.objects) + " objects, " + formatBytes(s.bytes));
  line("reachable", formatCount(s.reachable_objects) + " objects, " +
                        formatBytes(s.reachable_bytes) + " (" +
                        formatPercent(s.reachable_bytes, s.bytes) + " of bytes)");
  line("garbage", formatCount(s.garbage_objects) + " objects, " + formatBytes(s.garbage_bytes) +
                      " (unreachable, not yet collected)");
  if (s.metadata_objects > 0) {
    line("metadata", formatCount(s.metadata_objects) + " records, " +
                         formatBytes(s.metadata_bytes) +
                         " (the runtime's bitmaps at the end of spans, written as objects)");
  }
  if (s.typed) {
    std::string typed = formatCount(s.typed_objects) + " of the reachable objects (" +
                        formatPercent(s.typed_objects, s.reachable_objects) + "), " +
                        formatBytes(s.typed_bytes) + " (" +
                        formatPercent(s.typed_bytes, s.reachable_bytes) + " of bytes)";
    if (s.type_conflicts > 0) typed += ", " + formatCount(s.type_conflicts) + " type conflicts";
    line("typed", typed);
  }
  line("pointers", formatCount(s.pointers) + " between objects, " +
                       formatCount(s.non_heap_pointers) + " to memory outside the heap");
  line("roots", formatCount(s.goroutines) + " goroutines, " + formatCount(s.stack_frames) +
                    " stack frames, " + formatCount(s.finalizers) + " finalizers, data and bss");
  if (s.have_memstats) {
    // A core may not give every field: "unknown" rather than a wrong 0.
    using model::MemStat;
    const auto stat = [&](MemStat f, std::string text) {
      return s.memstatKnown(f) ? text : std::string("unknown");
    };
    line("memstats", "HeapAlloc " + stat(MemStat::HeapAlloc, formatBytes(s.heap_alloc)) +
                         ", HeapInuse " + stat(MemStat::HeapInuse, formatBytes(s.heap_inuse)) +
                         ", HeapSys " + stat(MemStat::HeapSys, formatBytes(s.heap_sys)) + ", Sys " +
                         stat(MemStat::Sys, formatBytes(s.sys)));
    line("", "StackInuse " + stat(MemStat::StackInuse, formatBytes(s.stack_inuse)) + ", NextGC " +
                 stat(MemStat::NextGC, formatBytes(s.next_gc)) + ", NumGC " +
                 stat(MemStat::NumGC, formatCount(s.num_gc)) + ", GC pauses " +
                 stat(MemStat::PauseTotalNs,
                      formatDuration(static_cast<double>(s.pause_total_ns) / 1e9)));
  }
  for (const std::string& w : s.warnings) line("warning", w);

  out += "\nTop retainers: objects a root holds directly, by the bytes they keep alive\n";
  TextTable t;
  t.addColumn("retained", Align::Right);
  t.addColumn("%", Align::Right);
  t.addColumn("shallow", Align::Right);
  t.addColumn("address", Align::Right);
  size_t object_col = t.addColumn("object");
  t.addColumn("held by");
  t.setElastic(object_col, Elide::End, 20);
  for (const analysis::Retainer& r : s.top_retainers) {
    t.addRow({formatBytes(r.retained), formatPercent(r.retained, s.reachable_bytes),
              formatBytes(r.shallow), formatHex(r.object.address), r.object.name, heldByText(r)});
  }
  out += t.renderText(outputWidth());
  print(out);
}

}  // namespace

int runSummary(int argc, const char* const* argv) {
  return runQueryCommand(summarySpec(), argc, argv, query::summaryParams(), query::readSummary,
                         [](const ParsedArgs& /*args*/, const query::Session& session,
                            const query::SummaryQuery& q, OutputFormat format) {
                           analysis::Summary s = query::querySummary(session, q);
                           if (format == OutputFormat::Json) {
                             print(query::summaryJson(s));
                           } else {
                             writeText(s);
                           }
                           return kExitOk;
                         });
}

}  // namespace goheap::cli
