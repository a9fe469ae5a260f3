// goheap bin EXE: what goheap reads from a Go executable: its Go version,
// target, pclntab and functions, and the function and source line of any
// address (to check the names goheap will give frames and allocation sites).
#include "bin/binary.h"
#include "cli/command.h"
#include "cli/table.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::cli {

namespace {

CommandSpec binSpec() {
  CommandSpec spec("bin",
                   "Tells what goheap reads from a Go executable (the program that wrote a "
                   "dump): its Go version, architecture, pointer size and byte order, the "
                   "layout of its pclntab (the runtime's function and line table) and how many "
                   "functions it names. With --funcs it lists the functions; with --pc it "
                   "names the function, file and line of addresses. An address is taken as a "
                   "return address, as in a stack frame: the instruction before it is looked "
                   "up, unless it is exactly a function's entry.");
  spec.positional("EXE", "a Go executable: ELF, Mach-O or PE, stripped ones too");
  spec.boolFlag("funcs", "list every function: entry address, name, file:line of its entry");
  spec.flag("pc", "ADDR", "symbolize this address (give --pc again for more)")
      .kind(ValueKind::Address)
      .repeatable();
  spec.boolFlag("json", "print JSON instead of text");
  spec.example("goheap bin ./server", "Go version, target and pclntab of ./server");
  spec.example("goheap bin ./server --pc 0x4a1b2c --pc 0x4a1f00",
               "the function and line of two return addresses");
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
};

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
  w.field("container", bin::containerFormatName(c.format));
  w.field("arch", c.arch).field("ptr_size", c.ptr_size).field("big_endian", c.big_endian);
  w.key("pclntab").beginObject();
  w.field("layout", bin::pclntabLayoutName(t.layout()));
  w.field("pc_quantum", t.quantum());
  w.field("functions", static_cast<uint64_t>(t.funcs().size()));
  w.endObject();
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

void writeText(const bin::Binary& b, bool funcs, const std::vector<PcResult>& pcs) {
  const bin::Container& c = b.container();
  const bin::Pclntab& t = b.pclntab();
  std::string out = b.path() + "\n";
  auto line = [&out](const std::string& key, const std::string& value) {
    out += "  " + key + std::string(key.size() < 11 ? 11 - key.size() : 1, ' ') + value + "\n";
  };
  std::string version = b.goVersion();
  if (!b.goVersionSource().empty()) version += " (from " + b.goVersionSource() + ")";
  line("go", version);
  line("target", std::string(bin::containerFormatName(c.format)) + ", " + c.arch + ", " +
                     std::to_string(c.ptr_size) + "-byte pointers, " +
                     (c.big_endian ? "big-endian" : "little-endian"));
  line("pclntab", std::string(bin::pclntabLayoutName(t.layout())) + " layout, PC quantum " +
                      std::to_string(t.quantum()) + ", " + formatCount(t.funcs().size()) +
                      " functions");
  if (funcs) {
    out += "\n";
    Table table;
    // The name last: generic instantiations make some names very long.
    table.addColumn("entry", Align::Right);
    table.addColumn("file:line");
    table.addColumn("function");
    for (const bin::Func& f : t.funcs()) {
      Expected<bin::Location> loc = t.pcToLine(f.entry);
      table.addRow({formatHex(f.entry), loc ? fileLine(*loc) : "?", std::string(f.name)});
    }
    out += table.renderText(0);
  }
  if (!pcs.empty()) {
    out += "\n";
    Table table;
    table.addColumn("pc", Align::Right);
    table.addColumn("file:line");
    table.addColumn("function");
    for (const PcResult& r : pcs) {
      if (r.loc) {
        std::string fn =
            std::string(r.loc->func->name) + "+" + formatHex(r.pc - r.loc->func->entry);
        table.addRow({formatHex(r.pc), fileLine(*r.loc), fn});
      } else {
        table.addRow({formatHex(r.pc), "?", r.loc.error().message()});
      }
    }
    out += table.renderText(0);
  }
  print(out);
}

}  // namespace

int runBin(int argc, const char* const* argv) {
  const CommandSpec spec = binSpec();
  Expected<ParsedArgs> parsed = spec.parse(argc, argv);
  if (!parsed) return fail(parsed.error(), kExitUsage);
  const ParsedArgs& args = *parsed;
  if (args.helpRequested()) {
    std::string help = spec.help();
    if (!help.ends_with('\n')) help += '\n';
    print(help);
    return kExitOk;
  }
  Expected<bin::Binary> b = bin::Binary::open(std::string(args.getString("EXE")));
  if (!b) return fail(b.error());
  std::vector<PcResult> pcs;
  if (args.has("pc")) {
    for (uint64_t pc : args.getUints("pc")) pcs.push_back({pc, b->pclntab().lookup(pc)});
  }
  if (args.getBool("json")) {
    writeJson(*b, args.getBool("funcs"), pcs);
  } else {
    writeText(*b, args.getBool("funcs"), pcs);
  }
  // Every address was answered, but one that names nothing is a failure for
  // scripts that rely on the exit code.
  for (const PcResult& r : pcs) {
    if (!r.loc) return kExitFailure;
  }
  return kExitOk;
}

}  // namespace goheap::cli
