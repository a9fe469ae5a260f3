// goheap bin EXE: what goheap reads from a Go executable: its Go version,
// target, pclntab and functions, and the function and source line of any
// address (to check the names goheap will give frames and allocation sites).
#include "bin/binary.h"
#include "bin/debug_file_search.h"
#include "cli/command.h"
#include "cli/progress.h"
#include "query/program.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/text_table.h"

namespace goheap::cli {

namespace {

// Where the types come from: "executable" (its own DWARF), "debug_file" (a
// separate one) or "none".
std::string_view dwarfSource(const bin::Binary& b) {
  if (!b.debugFilePath().empty()) return "debug_file";
  return bin::hasOwnDebugInfo(b.container()) ? "executable" : "none";
}

CommandSpec binSpec() {
  CommandSpec spec("bin",
                   "Tells what goheap reads from a Go executable (the program that wrote a "
                   "dump): its Go version, build ID, main module, dependencies and build "
                   "settings, architecture, pointer size and byte order, the layout of its "
                   "pclntab (the runtime's function and line table), how many functions and "
                   "symbols it names, and where the runtime's text, data and bss are. With "
                   "--funcs it lists the functions; with --deps the dependencies; with --pc it "
                   "names the source frames of addresses: the calls the compiler inlined there "
                   "(marked \"(inlined)\"), innermost first, then the function that holds the "
                   "address. An address is taken as a return address, as in a stack frame: the "
                   "instruction before it is looked up, unless it is exactly a function's "
                   "entry.");
  spec.positional("EXE", "a Go executable: ELF, Mach-O (also universal) or PE, stripped ones too");
  spec.boolFlag("funcs", "list every function: entry address, name, file:line of its entry");
  spec.boolFlag("deps", "list the dependencies of the build info (JSON always has them)");
  spec.flag("pc", "ADDR",
            "symbolize this address, inlined calls included (give --pc again for more)")
      .kind(ValueKind::Address)
      .repeatable();
  addDebugDirFlag(spec);
  spec.boolFlag("json", "print JSON instead of text");
  spec.example("goheap bin ./server",
               "Go version, build ID, module, target, pclntab and layout of ./server");
  spec.example("goheap bin ./server --deps", "also the dependencies with their versions");
  spec.example("goheap bin ./server --pc 0x4a1b2c --pc 0x4a1f00",
               "the frames (inlined ones too) of two return addresses");
  spec.example("goheap bin ./server --funcs --json", "every function as JSON");
  return spec;
}

std::string fileLine(const bin::Location& loc) {
  if (loc.file.empty()) return "?";
  return std::string(loc.file) + ":" + std::to_string(loc.line);
}

struct PcResult {
  uint64_t pc = 0;
  Expected<bin::Location> loc;
  Expected<std::vector<bin::SourceFrame>> frames;
};

std::string frameFileLine(const bin::SourceFrame& f) {
  if (f.file.empty()) return "?";
  return std::string(f.file) + ":" + std::to_string(f.line);
}

std::string moduleText(const bin::ModuleVersion& m) {
  std::string out = m.path.empty() ? "?" : m.path;
  if (!m.version.empty()) out += " " + m.version;
  return out;
}

void writeModuleJson(JsonWriter& w, const bin::GoModule& m) {
  w.beginObject();
  w.field("path", m.path).field("version", m.version).field("sum", m.sum);
  if (m.replace) {
    w.key("replace").beginObject();
    w.field("path", m.replace->path).field("version", m.replace->version);
    w.field("sum", m.replace->sum);
    w.endObject();
  }
  w.endObject();
}

// The module's ranges as [lo, hi) pairs, in the order the runtime keeps them.
std::vector<std::pair<std::string_view, std::pair<uint64_t, uint64_t>>> ranges(
    const bin::ModuleLayout& m) {
  return {{"text", {m.text, m.etext}},
          {"noptrdata", {m.noptrdata, m.enoptrdata}},
          {"data", {m.data, m.edata}},
          {"bss", {m.bss, m.ebss}},
          {"noptrbss", {m.noptrbss, m.enoptrbss}}};
}

void writeJson(const bin::Binary& b, bool funcs, const std::vector<PcResult>& pcs) {
  const bin::Container& c = b.container();
  const bin::Pclntab& t = b.pclntab();
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("file", b.path());
  w.field("go_version", b.goVersion());
  w.field("go_version_source", b.goVersionSource());
  w.field("build_id", b.buildId());
  w.field("gnu_build_id", bin::gnuBuildId(b.container()));
  w.key("dwarf").beginObject();
  w.field("source", dwarfSource(b));
  if (!b.debugFilePath().empty()) {
    w.field("debug_file", b.debugFilePath()).field("found_by", b.debugFileFoundBy());
  }
  if (dwarfSource(b) == "none") w.field("problem", b.debugInfoProblem());
  w.endObject();
  if (const std::optional<bin::BuildInfo>& bi = b.buildInfo()) {
    w.key("build_info").beginObject();
    w.field("path", bi->path);
    w.key("main");
    writeModuleJson(w, bi->main);
    w.key("deps").beginArray();
    for (const bin::GoModule& d : bi->deps) writeModuleJson(w, d);
    w.endArray();
    w.key("settings").beginArray();
    for (const auto& [k, v] : bi->settings)
      w.beginObject().field("key", k).field("value", v).endObject();
    w.endArray();
    w.endObject();
  } else if (!b.buildInfoError().empty()) {
    w.field("build_info_error", b.buildInfoError());
  }
  w.field("container", bin::containerFormatName(c.format));
  w.field("arch", c.arch).field("ptr_size", c.ptr_size).field("big_endian", c.big_endian);
  w.key("pclntab").beginObject();
  w.field("layout", bin::pclntabLayoutName(t.layout()));
  w.field("pc_quantum", t.quantum());
  w.field("functions", static_cast<uint64_t>(t.funcs().size()));
  w.endObject();
  w.field("symbols", static_cast<uint64_t>(c.symbols.size()));
  if (const std::optional<bin::ModuleLayout>& m = b.moduleLayout()) {
    w.key("module_layout").beginObject();
    w.field("source", m->source);
    for (const auto& [name, r] : ranges(*m)) {
      w.key(name).beginObject();
      w.field("start", formatHex(r.first)).field("end", formatHex(r.second));
      w.endObject();
    }
    if (m->gofunc != 0) w.field("gofunc", formatHex(m->gofunc));
    w.endObject();
  }
  if (funcs) {
    w.key("funcs").beginArray();
    for (const bin::Func& f : t.funcs()) {
      w.beginObject();
      w.field("entry", formatHex(f.entry)).field("end", formatHex(f.end)).field("name", f.name);
      Expected<bin::Location> loc = t.pcToLine(f.entry);
      if (loc && !loc->file.empty()) {
        w.field("file", loc->file).field("line", loc->line);
      }
      w.endObject();
    }
    w.endArray();
  }
  if (!pcs.empty()) {
    w.key("pcs").beginArray();
    for (const PcResult& r : pcs) {
      w.beginObject();
      w.field("pc", formatHex(r.pc));
      if (r.loc) {
        w.field("function", r.loc->func->name);
        w.field("entry", formatHex(r.loc->func->entry));
        if (!r.loc->file.empty()) w.field("file", r.loc->file).field("line", r.loc->line);
        if (r.frames) {
          w.key("frames").beginArray();
          for (const bin::SourceFrame& f : *r.frames) {
            w.beginObject().field("function", f.function);
            if (!f.file.empty()) w.field("file", f.file).field("line", f.line);
            w.field("inlined", f.inlined).endObject();
          }
          w.endArray();
        } else {
          w.field("frames_error", r.frames.error().message());
        }
      } else {
        w.field("error", r.loc.error().message());
      }
      w.endObject();
    }
    w.endArray();
  }
  w.endObject();
  print(out);
}

void writeText(const bin::Binary& b, bool funcs, bool deps, const std::vector<PcResult>& pcs) {
  const bin::Container& c = b.container();
  const bin::Pclntab& t = b.pclntab();
  std::string out = b.path() + "\n";
  auto line = [&out](const std::string& key, const std::string& value) {
    out += "  " + key + std::string(key.size() < 11 ? 11 - key.size() : 1, ' ') + value + "\n";
  };
  std::string version = b.goVersion();
  if (!b.goVersionSource().empty()) version += " (from " + b.goVersionSource() + ")";
  line("go", version);
  line("build ID", b.buildId().empty() ? "none" : b.buildId());
  if (std::string gnu = bin::gnuBuildId(b.container()); !gnu.empty()) line("GNU build ID", gnu);
  if (!b.debugFilePath().empty()) {
    line("dwarf",
         b.debugFilePath() + " (separate debug file, found by " + b.debugFileFoundBy() + ")");
  } else if (dwarfSource(b) == "none") {
    line("dwarf", "none: " + b.debugInfoProblem());
  }
  if (const std::optional<bin::BuildInfo>& bi = b.buildInfo()) {
    if (!bi->path.empty()) line("path", bi->path);
    if (!bi->main.path.empty()) line("module", moduleText(bi->main));
    line("deps",
         formatCount(bi->deps.size()) + (deps || bi->deps.empty() ? "" : " (--deps lists them)"));
    for (const auto& [k, v] : bi->settings) line("build", k + "=" + v);
  } else if (!b.buildInfoError().empty()) {
    line("build info", "unreadable: " + b.buildInfoError());
  }
  line("target", std::string(bin::containerFormatName(c.format)) + ", " + c.arch + ", " +
                     std::to_string(c.ptr_size) + "-byte pointers, " +
                     (c.big_endian ? "big-endian" : "little-endian"));
  line("pclntab", std::string(bin::pclntabLayoutName(t.layout())) + " layout, PC quantum " +
                      std::to_string(t.quantum()) + ", " + formatCount(t.funcs().size()) +
                      " functions");
  line("symbols", c.symbols.empty() ? "none (stripped)" : formatCount(c.symbols.size()));
  if (const std::optional<bin::ModuleLayout>& m = b.moduleLayout()) {
    for (const auto& [name, r] : ranges(*m)) {
      if (r.first == 0 && r.second == 0) continue;
      line(std::string(name), formatHexRange(r.first, r.second) + " from " + m->source);
    }
  }
  if (deps && b.buildInfo() && !b.buildInfo()->deps.empty()) {
    out += "\n";
    TextTable table;
    table.addColumns({"dependency", "version", "replaced by"});
    for (const bin::GoModule& d : b.buildInfo()->deps) {
      table.addRow({d.path, d.version, d.replace ? moduleText(*d.replace) : ""});
    }
    out += table.renderText(0);
  }
  if (funcs) {
    out += "\n";
    TextTable table;
    // The name last: generic instantiations make some names very long.
    table.addColumn("entry", Align::Right);
    table.addColumns({"file:line", "function"});
    for (const bin::Func& f : t.funcs()) {
      Expected<bin::Location> loc = t.pcToLine(f.entry);
      table.addRow({formatHex(f.entry), loc ? fileLine(*loc) : "?", std::string(f.name)});
    }
    out += table.renderText(0);
  }
  if (!pcs.empty()) {
    out += "\n";
    TextTable table;
    table.addColumn("pc", Align::Right);
    table.addColumns({"file:line", "function"});
    for (const PcResult& r : pcs) {
      if (!r.loc) {
        table.addRow({formatHex(r.pc), "?", r.loc.error().message()});
        continue;
      }
      if (!r.frames) {
        table.addRow({formatHex(r.pc), fileLine(*r.loc), "? (" + r.frames.error().message() + ")"});
        continue;
      }
      // One row per source frame; the address only on the first.
      bool first = true;
      for (const bin::SourceFrame& f : *r.frames) {
        std::string fn = std::string(f.function);
        if (f.inlined) {
          fn += " (inlined)";
        } else {
          fn += '+';
          fn += formatHex(r.pc - f.func->entry);
        }
        table.addRow({first ? formatHex(r.pc) : "", frameFileLine(f), fn});
        first = false;
      }
    }
    out += table.renderText(0);
  }
  print(out);
}

}  // namespace

int runBin(int argc, const char* const* argv) {
  return runParsed(binSpec(), argc, argv, [](const ParsedArgs& args) {
    // The DWARF of a stripped build from its separate debug file, found as
    // every command that opens a heap finds it.
    WarningsOnStderr to_stderr;
    Expected<bin::Binary> b =
        query::openProgram(std::string(args.getString("EXE")), openOptions(args), to_stderr);
    if (!b) return fail(b.error());
    std::vector<PcResult> pcs;
    if (args.has("pc")) {
      for (uint64_t pc : args.getUints("pc")) {
        pcs.push_back({pc, b->pclntab().lookup(pc), b->symbolize(pc)});
      }
    }
    if (args.getBool("json")) {
      writeJson(*b, args.getBool("funcs"), pcs);
    } else {
      writeText(*b, args.getBool("funcs"), args.getBool("deps"), pcs);
    }
    // Every address was answered, but one that names nothing is a failure for
    // scripts that rely on the exit code.
    for (const PcResult& r : pcs) {
      if (!r.loc) return kExitFailure;
    }
    return kExitOk;
  });
}

}  // namespace goheap::cli
