// goheap core-info CORE [EXE]: what goheap reads from an ELF core file: the
// machine, the threads with their PC and SP, the memory segments, the files
// mapped, the auxiliary vector and, with EXE, whether EXE is the program the
// core is of, with --heap the heap objects the runtime's spans hold (and how
// many of their words the GC metadata marks as pointers) and with
// --goroutines the goroutines and their stacks. A debugging aid for reading
// heaps from cores (issue 15).
#include <algorithm>

#include "bin/binary.h"
#include "bin/inline.h"
#include "cli/command.h"
#include "cli/progress.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/find_executable.h"
#include "core/goroutines.h"
#include "core/heap_walk.h"
#include "core/pointer_masks.h"
#include "goruntime/goroutine_status.h"
#include "query/program.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/text_table.h"

namespace goheap::cli {

namespace {

CommandSpec coreInfoSpec() {
  CommandSpec spec("core-info",
                   "Tells what goheap reads from an ELF core file of a Linux process (the "
                   "kernel's, gdb's gcore, qemu-user's): the machine, pointer size and byte "
                   "order, the program's name, every thread with its signal, PC and SP, a "
                   "summary of the memory segments (how many bytes the core holds, leaves out "
                   "or lost to a cut-short file), the files mapped (NT_FILE) and the auxiliary "
                   "vector. Given the executable too, it checks that the core is of that "
                   "program: its path among the mapped files, the entry point against AT_ENTRY "
                   "(after the load bias of a position-independent executable) and the text "
                   "bytes the core holds; it exits 1 when they do not match. Without it, the "
                   "executable is looked for where the core says it was (the file mapped over "
                   "the entry point, AT_EXECFN) and beside the core, and every place tried is "
                   "listed. With --goroutines it also lists the goroutines (from "
                   "runtime.allgs, by the executable's DWARF) with their status or wait reason, "
                   "their stacks unwound frame by frame with file and line, and the function "
                   "that started them, as the runtime's own traceback would.");
  spec.positional("CORE", "an ELF core file (64- or 32-bit, either byte order)");
  spec.positional("EXE", "the program's executable, to check it belongs to the core").optional();
  spec.boolFlag("segments", "list every memory segment");
  spec.boolFlag("heap",
                "with EXE: walk the runtime's spans (runtime.mheap_.allspans, laid out as the "
                "executable's DWARF says) and count the heap objects and their bytes, and the "
                "objects with pointers and their pointer words");
  spec.boolFlag("goroutines", "list the goroutines and their stacks (needs EXE with DWARF)");
  addDebugDirFlag(spec);
  spec.boolFlag("json", "print JSON instead of text");
  spec.example("goheap core-info core.1234", "machine, threads, segments and files of a core");
  spec.example("goheap core-info core.1234 ./server",
               "also whether ./server is the program the core is of");
  spec.example("goheap core-info core.1234 --segments --json", "everything as JSON");
  spec.example("goheap core-info /tmp/crash/core",
               "finds the executable where the process ran it, or beside the core");
  spec.example("goheap core-info core.1234 ./server --heap", "also the heap's objects and bytes");
  spec.example("goheap core-info core.1234 ./server --goroutines",
               "every goroutine's wait reason, stack and creator");
  return spec;
}

std::string flagsText(const core::CoreSegment& s) {
  std::string f;
  f += s.readable() ? 'r' : '-';
  f += s.writable() ? 'w' : '-';
  f += s.executable() ? 'x' : '-';
  return f;
}

struct Totals {
  uint64_t memory = 0, held = 0;
};

Totals totals(const core::CoreFile& c) {
  Totals t;
  for (const core::CoreSegment& s : c.segments()) {
    t.memory += s.memsz;
    t.held += s.bytes.size();
  }
  return t;
}

void writePointersJson(JsonWriter& w, const Expected<core::PointerMasks>& pointers,
                       const std::vector<std::string>& warnings) {
  w.key("pointers").beginObject();
  if (!pointers) {
    w.field("error", pointers.error().message());
  } else {
    const core::PointerMasks& p = *pointers;
    w.field("objects_with_pointers", p.objects_with_pointers)
        .field("pointer_words", p.pointer_words);
    w.key("objects_left_without").beginObject();
    w.field("no_span", p.no_span).field("unreadable_bits", p.unreadable_bits);
    w.field("bad_type", p.bad_type).field("gc_program", p.gc_program);
    w.field("mask_not_built", p.mask_not_built);
    w.endObject();
    w.key("warnings").beginArray();
    for (const std::string& s : warnings) w.value(s);
    w.endArray();
  }
  w.endObject();
}

// The goroutines read from the core, when --goroutines asked for them.
struct GoroutineView {
  const core::Goroutines* list = nullptr;
  const std::vector<std::string>* warnings = nullptr;  // memory that could not be read
  const bin::Binary* exe = nullptr;
  uint64_t bias = 0;
};

void writeGoroutinesJson(JsonWriter& w, const GoroutineView& v) {
  w.key("goroutines").beginArray();
  for (const core::Goroutine& g : v.list->goroutines) {
    w.beginObject().field("goid", g.goid).field("status", v.list->statusText(g));
    w.field("state", goruntime::gStatusName(g.status)).field("g", formatHex(g.address));
    w.field("stack_lo", formatHex(g.stack_lo)).field("stack_hi", formatHex(g.stack_hi));
    if (g.thread) w.field("thread", static_cast<uint64_t>(*g.thread));
    w.field("created_by", bin::funcNameForPrint(v.list->createdBy(g, *v.exe, v.bias)));
    if (!g.note.empty()) w.field("note", g.note);
    w.key("frames").beginArray();
    for (const core::StackFrame& f : v.list->framesOf(g)) {
      w.beginObject().field("function", bin::funcNameForPrint(f.where.function));
      w.field("file", f.where.file).field("line", f.where.line);
      w.field("pc", formatHex(f.pc)).field("sp", formatHex(f.sp));
      w.field("inlined", f.where.inlined).endObject();
    }
    w.endArray().endObject();
  }
  w.endArray();
  w.key("goroutine_warnings").beginArray();
  for (const std::string& s : *v.warnings) w.value(s);
  w.endArray();
}

// Like the runtime's traceback: "goroutine 7 [chan receive]:", each frame's
// function and file:line, and the function whose go statement started it.
std::string goroutinesText(const GoroutineView& v) {
  std::string out;
  for (const core::Goroutine& g : v.list->goroutines) {
    // Appended piece by piece: GCC 12's -O3 takes `"literal" + std::string`
    // for an overlapping copy (-Wrestrict).
    out.append("\ngoroutine ").append(std::to_string(g.goid));
    out.append(" [").append(v.list->statusText(g)).append("]:\n");
    for (const core::StackFrame& f : v.list->framesOf(g)) {
      out.append(bin::funcNameForPrint(f.where.function))
          .append(f.where.inlined ? "(...)\n" : "()\n");
      out.append("\t").append(f.where.file).append(":").append(std::to_string(f.where.line));
      out.append(" pc=").append(formatHex(f.pc)).append(" sp=").append(formatHex(f.sp));
      out.append("\n");
    }
    if (!g.note.empty()) out.append("(").append(g.note).append(")\n");
    const std::string_view by = v.list->createdBy(g, *v.exe, v.bias);
    if (!by.empty()) out.append("created by ").append(bin::funcNameForPrint(by)).append("\n");
  }
  for (const std::string& s : *v.warnings) out.append("warning: ").append(s).append("\n");
  return out;
}

void writeJson(const core::CoreFile& c, bool segments, const core::ExecutableMatch* match,
               const std::string& exe, const core::ExecutableSearch& search,
               const query::CoreRuntimeReading& runtime, const GoroutineView& goroutines) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("file", c.path());
  w.field("arch", c.arch()).field("machine", static_cast<uint64_t>(c.machine()));
  w.field("ptr_size", c.ptrSize()).field("big_endian", c.bigEndian());
  if (c.process()) w.field("program", c.process()->name).field("args", c.process()->args);
  w.key("threads").beginArray();
  for (const core::Thread& t : c.threads()) {
    w.beginObject().field("tid", static_cast<uint64_t>(t.tid));
    w.field("signal", static_cast<uint64_t>(t.signal));
    if (t.has_registers) {
      w.field("pc", formatHex(t.pc)).field("sp", formatHex(t.sp));
      const auto names = core::registerNames(c.machine(), c.is64());
      w.key("registers").beginObject();
      for (size_t i = 0; i < names.size() && i < t.registers.size(); ++i) {
        w.field(names[i], formatHex(t.registers[i]));
      }
      w.endObject();
    }
    w.endObject();
  }
  w.endArray();
  const Totals tot = totals(c);
  w.key("memory").beginObject();
  w.field("segments", static_cast<uint64_t>(c.segments().size()));
  w.field("bytes", tot.memory).field("in_core", tot.held);
  w.field("left_out", c.omittedBytes()).field("cut_off", c.truncatedBytes());
  w.endObject();
  if (segments) {
    w.key("segments").beginArray();
    for (const core::CoreSegment& s : c.segments()) {
      w.beginObject().field("start", formatHex(s.vaddr)).field("end", formatHex(s.end()));
      w.field("flags", flagsText(s)).field("in_core", static_cast<uint64_t>(s.bytes.size()));
      w.field("offset", s.offset).endObject();
    }
    w.endArray();
  }
  w.key("files").beginArray();
  for (const core::FileMapping& f : c.files()) {
    w.beginObject().field("start", formatHex(f.start)).field("end", formatHex(f.end));
    w.field("offset", f.file_offset).field("path", f.path).endObject();
  }
  w.endArray();
  w.key("auxv").beginArray();
  for (const core::AuxEntry& a : c.auxv()) {
    w.beginObject().field("type", a.type);
    if (!core::auxName(a.type).empty()) w.field("name", core::auxName(a.type));
    w.field("value", formatHex(a.value)).endObject();
  }
  w.endArray();
  w.key("warnings").beginArray();
  for (const std::string& s : c.warnings()) w.value(s);
  w.endArray();
  if (match != nullptr) {
    w.key("executable").beginObject();
    w.field("path", exe).field("matches", match->matches());
    if (const core::ExecutableCandidate* found = search.executable()) {
      w.field("found_through", found->from);
    }
    w.field("load_bias", formatHex(match->bias));
    w.key("checks").beginArray();
    for (const core::MatchCheck& m : match->checks) {
      w.beginObject().field("name", m.name).field("checked", m.checked).field("ok", m.ok);
      w.field("detail", m.detail).endObject();
    }
    w.endArray();
    w.endObject();
  }
  if (!search.tried.empty()) {
    w.key("executable_search").beginArray();
    for (const core::ExecutableCandidate& t : search.tried) {
      w.beginObject().field("path", t.path).field("from", t.from).field("problem", t.problem);
      w.endObject();
    }
    w.endArray();
  }
  if (runtime.heap) {
    const Expected<core::HeapObjects>& heap = *runtime.heap;
    w.key("heap").beginObject();
    if (!heap) {
      w.field("error", heap.error().message());
    } else {
      const core::HeapObjects& h = *heap;
      w.field("spans", h.spans).field("spans_in_use", h.spans_in_use);
      w.field("objects", static_cast<uint64_t>(h.count())).field("bytes", h.bytes);
      w.field("large_objects", h.largeObjects());
      w.key("skipped_spans").beginObject();
      w.field("unreadable", h.unreadable_spans)
          .field("unreadable_alloc_bits", h.unreadable_alloc_bits);
      w.field("inconsistent", h.bad_spans).field("memory_missing", h.missing_memory);
      w.endObject();
      w.key("warnings").beginArray();
      for (const std::string& s : runtime.heap_warnings) w.value(s);
      w.endArray();
      writePointersJson(w, *runtime.pointers, runtime.pointer_warnings);
    }
    w.endObject();
  }
  if (goroutines.list != nullptr) writeGoroutinesJson(w, goroutines);
  w.endObject();
  print(out);
}

void writeText(const core::CoreFile& c, bool segments, const core::ExecutableMatch* match,
               const std::string& exe, const core::ExecutableSearch& search,
               const query::CoreRuntimeReading& runtime, const GoroutineView& goroutines) {
  std::string out = c.path() + "\n";
  auto line = [&out](const std::string& key, const std::string& value) {
    out += "  " + key + std::string(key.size() < 11 ? 11 - key.size() : 1, ' ') + value + "\n";
  };
  line("machine", c.arch() + ", " + std::to_string(c.ptrSize()) + "-byte pointers, " +
                      (c.bigEndian() ? "big-endian" : "little-endian"));
  if (c.process()) line("program", std::string(c.process()->args));
  const Totals tot = totals(c);
  line("memory", formatCount(c.segments().size()) + " segments, " + formatBytes(tot.memory) + ", " +
                     formatBytes(tot.held) + " in the core");
  if (c.omittedBytes() > 0) line("left out", formatBytes(c.omittedBytes()));
  if (c.truncatedBytes() > 0) line("cut off", formatBytes(c.truncatedBytes()));
  for (const auto a : {core::kAtEntry, core::kAtPhdr, core::kAtBase, core::kAtPagesz}) {
    if (const auto v = c.aux(a)) line(std::string(core::auxName(a)), formatHex(*v));
  }
  for (const std::string& w : c.warnings()) line("warning", w);
  if (match == nullptr && !search.tried.empty()) {
    line("executable", "none found; tried:");
    for (const core::ExecutableCandidate& t : search.tried) {
      out += "    " + t.path + " (" + t.from + "): " + t.problem + "\n";
    }
  }
  if (match != nullptr) {
    const core::ExecutableCandidate* found = search.executable();
    line("executable", found != nullptr ? exe + " (found through " + found->from + ")" : exe);
    line("load bias", formatHex(match->bias));
    for (const core::MatchCheck& m : match->checks) {
      line(m.name, std::string(!m.checked ? "not checked: "
                               : m.ok     ? "ok: "
                                          : "MISMATCH: ") +
                       m.detail);
    }
  }
  if (runtime.heap && !*runtime.heap) {
    line("heap", "not read: " + runtime.heap->error().message());
  }
  if (runtime.heap && *runtime.heap) {
    const core::HeapObjects& h = **runtime.heap;
    const Expected<core::PointerMasks>& pointers = *runtime.pointers;
    line("heap", formatCount(h.count()) + " objects, " + formatBytes(h.bytes) + " (" +
                     formatCount(h.largeObjects()) + " larger than 32 KiB), in " +
                     formatCount(h.spans_in_use) + " spans in use of " + formatCount(h.spans));
    for (const std::string& w : runtime.heap_warnings) line("heap warning", w);
    if (!pointers) {
      line("pointers", "not read: " + pointers.error().message());
    } else {
      line("pointers", formatCount(pointers->objects_with_pointers) + " objects with " +
                           formatCount(pointers->pointer_words) + " pointer words");
      for (const std::string& w : runtime.pointer_warnings) line("pointer warning", w);
    }
  }
  out += "\n";
  TextTable threads;
  threads.addColumns({"tid", "signal", "pc", "sp"}, Align::Right);
  for (const core::Thread& t : c.threads()) {
    threads.addRow({std::to_string(t.tid), std::to_string(t.signal),
                    t.has_registers ? formatHex(t.pc) : "?",
                    t.has_registers ? formatHex(t.sp) : "?"});
  }
  out += threads.renderText(0);
  if (!c.files().empty()) {
    out += "\n";
    TextTable files;
    files.addColumns({"start", "end", "offset"}, Align::Right);
    files.addColumn("file");
    for (const core::FileMapping& f : c.files()) {
      files.addRow(
          {formatHex(f.start), formatHex(f.end), formatHex(f.file_offset), std::string(f.path)});
    }
    out += files.renderText(0);
  }
  if (segments) {
    out += "\n";
    TextTable segs;
    segs.addColumns({"start", "end"}, Align::Right);
    segs.addColumn("flags");
    segs.addColumn("in core", Align::Right);
    for (const core::CoreSegment& s : c.segments()) {
      segs.addRow(
          {formatHex(s.vaddr), formatHex(s.end()), flagsText(s), formatBytes(s.bytes.size())});
    }
    out += segs.renderText(0);
  }
  if (goroutines.list != nullptr) out += goroutinesText(goroutines);
  print(out);
}

}  // namespace

int runCoreInfo(int argc, const char* const* argv) {
  return runParsed(coreInfoSpec(), argc, argv, [](const ParsedArgs& args) {
    const std::string core_path(args.getString("CORE"));
    Expected<core::CoreFile> c = core::CoreFile::open(core_path);
    if (!c) return fail(c.error());
    query::CoreProgramRequest request;
    request.core_name = core_path;
    if (args.has("EXE")) request.given_exe = std::string(args.getString("EXE"));
    WarningsOnStderr to_stderr;
    const query::CoreProgram p =
        query::findCoreProgram(c.take(), request, openOptions(args), to_stderr);
    const bool wants_heap = args.getBool("heap"), wants_goroutines = args.getBool("goroutines");
    for (const char* needs_exe : {"heap", "goroutines"}) {
      if (args.getBool(needs_exe) && !p.program) {
        return fail(Error("--" + std::string(needs_exe) +
                          " needs the program's executable: " + p.search.explain(core_path) +
                          "\n(give it: goheap core-info CORE EXE --" + needs_exe + ")"),
                    kExitUsage);
      }
    }
    // A given executable that cannot be opened is the user's to fix.
    if (request.given_exe && !p.program) {
      return fail(Error(p.search.explain(core_path)));
    }
    const core::ExecutableMatch* match = p.program ? &p.program->match : nullptr;
    // Only the program's own executable says how its runtime lays out spans
    // and goroutines.
    const bool matches = p.matches();
    const query::CoreRuntimeReading runtime =
        readCoreRuntime(p, wants_heap && matches, wants_goroutines && matches);
    GoroutineView view;
    if (runtime.goroutines) {
      if (!*runtime.goroutines) return fail(runtime.goroutines->error().inFile(p.exe_path));
      view = {&**runtime.goroutines, &runtime.goroutine_warnings, &p.program->binary, match->bias};
    }
    // The places tried, when goheap looked for it; nothing for a given one.
    const core::ExecutableSearch none;
    const core::ExecutableSearch& search = request.given_exe ? none : p.search;
    if (args.getBool("json")) {
      writeJson(p.core, args.getBool("segments"), match, p.exe_path, search, runtime, view);
    } else {
      writeText(p.core, args.getBool("segments"), match, p.exe_path, search, runtime, view);
    }
    if (match && !match->matches()) {
      std::fprintf(stderr, "goheap: %s\n", match->mismatch().c_str());
      return kExitFailure;
    }
    return kExitOk;
  });
}

}  // namespace goheap::cli
