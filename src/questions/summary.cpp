// goheap summary HEAP: what the heap is, how much of it is alive, the
// runtime's memstats, and the objects through which most memory is retained.
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "summary",
    .summary = "what the dump holds, reachable vs garbage, memstats, top retainers",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = false,
    .description =
        "Tells what a heap holds: its format and Go version, how many objects and "
        "bytes, how much is reachable from the GC roots and how much is garbage not yet "
        "collected, the runtime's memstats, and the top retainers: the objects held directly "
        "by a root (a global, a goroutine's stack, a finalizer) that keep the most memory "
        "alive.",
    .examples =
        {
            {"goheap summary heap.dump", "the overview, with the 10 biggest retainers"},
            {"goheap summary heap.dump -n 30 --json", "the same as JSON, 30 retainers"},
            {"goheap summary heap.dump --timings", "also how long each phase took"},
            {"goheap summary heap.dump ./server",
             "with the executable: globals named, frames with file:line"},
            {"goheap summary http://127.0.0.1:6060/debug/heapdump ./server",
             "a running service's heap, from the capture package's handler (capture/README.md)"},
        },
};

// Short: "bss 0x5a2230" (a global without a symbol, by its address),
// "goroutine 18 main.serve";
// for several roots the ones pointing at it ("global main.srv and goroutine
// 18"), else the ones reaching it through objects ("via goroutine 1 and
// global main.cache"), else "several roots".
std::string heldByText(const analysis::Retainer& r) {
  if (!r.root_holders.empty()) return analysis::rootHoldersText(r);
  const analysis::NodeLabel& h = r.held_by;
  if (!h.global.empty()) return h.name;
  if (h.kind == "data segment" || h.kind == "bss segment") {
    // A global without a symbol by its address (the object beside it says
    // what it points at).
    if (r.held_at_offset) return h.short_name;
    return h.kind == "data segment" ? "data" : "bss";
  }
  return h.short_name.empty() ? h.name : h.short_name;
}

std::string summaryText(const Heaps& /*heaps*/, const SummaryQuery& /*q*/,
                        const analysis::Summary& s, const TextStyle& style) {
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
      if (!e.debug_file.empty()) {
        line("dwarf",
             e.debug_file + " (separate debug file, found by " + e.debug_file_found_by + ")");
      } else if (!e.dwarf_problem.empty()) {
        line("dwarf", "none: " + e.dwarf_problem);
      }
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
    if (s.type_source == "type descriptors") typed += ", from the runtime's type descriptors";
    line("typed", typed);
    if (s.inferred_objects > 0) {
      line("inferred", formatCount(s.inferred_objects) + " of the typed objects, " +
                           formatBytes(s.inferred_bytes) +
                           " (typed by their size and pointer layout, which fit one type only: "
                           "a guess, marked inferred)");
    }
  }
  line("pointers", formatCount(s.pointers) + " between objects, " +
                       formatCount(s.non_heap_pointers) + " to memory outside the heap");
  line("roots", formatCount(s.goroutines) + " goroutines, " + formatCount(s.stack_frames) +
                    " stack frames, " + formatCount(s.finalizers) + " finalizers, data and bss");
  if (s.leaked_goroutines > 0) {
    line("leaked", formatCount(s.leaked_goroutines) + " goroutines blocked forever, retaining " +
                       formatBytes(s.leaked_retained) + " (goheap goroutines --leaked --group)");
  }
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
  if (s.process_memory.memory.total > 0) line("memory", processMemoryLine(s.process_memory));
  for (const std::string& w : s.warnings) line("warning", w);

  out += "\nTop retainers: objects a root holds directly, by the bytes they keep alive\n";
  TextTable t;
  t.addColumns({"retained", "%", "shallow", "address"}, Align::Right);
  size_t object_col = t.addColumns({"object", "held by"});
  t.setElastic(object_col, Elide::End, 20);
  for (const analysis::Retainer& r : s.top_retainers) {
    t.addRow({formatBytes(r.retained), formatPercent(r.retained, s.reachable_bytes),
              formatBytes(r.shallow), formatHex(r.object.address), r.object.name, heldByText(r)});
  }
  out += t.renderText(style.width);
  return out;
}

const Parts<SummaryQuery, analysis::Summary> kParts{
    .fields =
        {
            field<&SummaryQuery::top>(
                uintParam("top", "10", "N", "how many top retainers to list").withAlias('n')),
        },
    .run = [](const Heaps& h, const SummaryQuery& q) -> Expected<analysis::Summary> {
      return querySummary(h.current, q);
    },
    .json = [](const Heaps& /*h*/, const SummaryQuery& /*q*/,
               const analysis::Summary& s) { return summaryJson(s); },
    .text = summaryText,
};

}  // namespace

const Question& summaryQuestion() {
  return questionOf<kInfo, kParts>();
}

analysis::Summary querySummary(const Session& session, const SummaryQuery& q) {
  return analysis::summarize(session.snapshot(), q.top, session.goroutineLeaks());
}

std::string summaryJson(const analysis::Summary& s) {
  return jsonDocument([&](JsonWriter& w) {
    w.field("file", s.file).field("file_size", s.file_size);
    w.field("format_version", s.format_version).field("go_version", s.go_version);
    w.field("arch", s.arch).field("ptr_size", s.ptr_size).field("big_endian", s.big_endian);
    if (s.executable) {
      const analysis::ExecutableSummary& e = *s.executable;
      w.key("executable").beginObject();
      w.field("path", e.path).field("used", e.used);
      if (!e.used) w.field("problem", e.problem);
      if (e.used) {
        w.field("go_version", e.go_version).field("container", e.container).field("arch", e.arch);
        w.field("pclntab_layout", e.pclntab_layout).field("load_bias", formatHex(e.load_bias));
        w.field("frames_checked", e.frames_checked).field("frames_matched", e.frames_matched);
        w.field("has_symbols", e.has_symbols);
        // Where the types came from: the executable, a separate debug file, or
        // nowhere (and why).
        w.key("dwarf").beginObject();
        const std::string_view source = !e.dwarf_problem.empty() ? "none"
                                        : e.debug_file.empty()   ? "executable"
                                                                 : "debug_file";
        w.field("source", source);
        if (!e.debug_file.empty()) {
          w.field("debug_file", e.debug_file).field("found_by", e.debug_file_found_by);
        }
        if (!e.dwarf_problem.empty()) w.field("problem", e.dwarf_problem);
        w.endObject();
      }
      w.endObject();
    }
    if (s.typed) {
      w.key("types").beginObject();
      w.field("typed_reachable_count", s.typed_objects);
      w.field("typed_reachable_bytes", s.typed_bytes);
      w.field("inferred_reachable_count", s.inferred_objects);
      w.field("inferred_reachable_bytes", s.inferred_bytes);
      w.field("source", s.type_source == "DWARF" ? "dwarf" : "descriptors");
      w.field("conflicts", s.type_conflicts);
      w.endObject();
    }
    w.key("objects").beginObject();
    w.field("count", s.objects).field("bytes", s.bytes);
    w.field("reachable_count", s.reachable_objects).field("reachable_bytes", s.reachable_bytes);
    w.field("garbage_count", s.garbage_objects).field("garbage_bytes", s.garbage_bytes);
    w.field("runtime_metadata_count", s.metadata_objects);
    w.field("runtime_metadata_bytes", s.metadata_bytes);
    w.endObject();
    w.key("pointers").beginObject();
    w.field("between_objects", s.pointers).field("to_non_heap", s.non_heap_pointers);
    w.endObject();
    w.key("roots").beginObject();
    w.field("goroutines", s.goroutines).field("stack_frames", s.stack_frames);
    w.field("finalizers", s.finalizers).field("root_nodes", s.roots);
    w.field("leaked_goroutines", s.leaked_goroutines).field("leaked_retained", s.leaked_retained);
    w.endObject();
    w.key("memstats");
    if (s.have_memstats) {
      // A field a core could not give is null.
      using model::MemStat;
      const auto stat = [&](std::string_view key, MemStat f, uint64_t v) {
        w.key(key);
        if (s.memstatKnown(f)) {
          w.value(v);
        } else {
          w.null();
        }
      };
      w.beginObject();
      stat("heap_alloc", MemStat::HeapAlloc, s.heap_alloc);
      stat("heap_sys", MemStat::HeapSys, s.heap_sys);
      stat("heap_inuse", MemStat::HeapInuse, s.heap_inuse);
      stat("heap_objects", MemStat::HeapObjects, s.heap_objects);
      stat("sys", MemStat::Sys, s.sys);
      stat("stack_inuse", MemStat::StackInuse, s.stack_inuse);
      stat("next_gc", MemStat::NextGC, s.next_gc);
      stat("num_gc", MemStat::NumGC, s.num_gc);
      stat("pause_total_ns", MemStat::PauseTotalNs, s.pause_total_ns);
      w.endObject();
    } else {
      w.null();
    }
    w.key("process_memory").beginObject();
    writeProcessMemoryFields(w, s.process_memory, false);
    w.endObject();
    w.arrayOfObjects("top_retainers", s.top_retainers, [&](const analysis::Retainer& r) {
      w.key("object");
      writeLabel(w, r.object);
      w.field("retained", r.retained).field("shallow", r.shallow);
      w.key("held_by");
      writeLabel(w, r.held_by);
      if (r.held_at_offset) {
        w.field("offset", *r.held_at_offset);
        w.field("slot_address", formatHex(r.held_at_address));
      }
      if (!r.root_holders.empty()) {
        w.key("held_by_roots").beginArray();
        for (const std::string& h : r.root_holders) w.value(h);
        w.endArray();
        if (r.more_root_holders > 0) w.field("more_held_by_roots", r.more_root_holders);
        if (r.root_holders_through_objects) w.field("held_by_roots_through_objects", true);
        if (!r.root_holders_complete) w.field("more_held_by_roots_is_lower_bound", true);
      }
    });
    w.key("warnings").beginArray();
    for (const std::string& warning : s.warnings) w.value(warning);
    w.endArray();
  });
}

}  // namespace goheap::questions
