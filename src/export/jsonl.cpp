// goheap's own graph format, JSON Lines: one JSON object per line, so any
// language reads it a line at a time (docs/jsonl-format.md). Lines in order:
// the header, every object, every root, the types (with DWARF), the
// goroutines.
#include <map>

#include "analysis/goroutine_info.h"
#include "analysis/labels.h"
#include "export/formats.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::exporting {

namespace {

void writeRefs(JsonWriter& w, const analysis::Snapshot& s, NodeId n) {
  w.key("refs").beginArray();
  for (NodeId t : s.heap.successors.neighbors(n)) w.value(t);
  w.endArray();
}

void writeIdom(JsonWriter& w, const analysis::Snapshot& s, NodeId n) {
  w.key("idom");
  if (s.dom.idom[n] == kNoNode || n == s.heap.superRoot()) {
    w.null();
  } else {
    w.value(s.dom.idom[n]);
  }
}

// One line of the file: the object `fill` writes the fields of, then a
// newline. `line` is the caller's so that millions of lines reuse one buffer.
template <class Fill>
void writeLine(std::string& line, Output& out, Fill&& fill) {
  line.clear();
  JsonWriter w(line);
  w.beginObject();
  fill(w);
  w.endObject();
  line += '\n';
  out.text(line);
}

}  // namespace

Status writeJsonLines(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  WriteProgress progress(options, "jsonl");
  const model::HeapModel& d = s.model;
  const uint32_t objects = s.heap.objectCount();
  const uint32_t nodes = s.heap.nodeCount();
  std::string line;
  writeLine(line, out, [&](JsonWriter& w) {
    w.field("kind", "header").field("schema_version", 1).field("format", "goheap-jsonl");
    w.field("go_version", d.params.go_version).field("arch", d.params.arch);
    w.field("ptr_size", d.params.ptr_size).field("big_endian", d.params.big_endian);
    w.field("objects", objects).field("nodes", nodes).field("super_root", s.heap.superRoot());
    w.field("typed", s.types != nullptr);
  });

  std::map<std::string, std::pair<uint64_t, uint64_t>> type_totals;  // name -> count, bytes
  for (NodeId o = 0; o < objects; o++) {
    if ((o & 0xffff) == 0) progress.report(o, nodes);
    typing::NameSource source{};
    const std::string name = s.namer().name(o, &source);
    writeLine(line, out, [&](JsonWriter& w) {
      w.field("kind", "object").field("id", o).field("address", formatHex(d.objects.addr[o]));
      w.field("size", d.objects.size[o]).field("name", name);
      w.field("source", typing::nameSourceName(source));
      w.field("reachable", s.reachable(o)).field("retained", s.retained[o]);
      writeIdom(w, s, o);
      writeRefs(w, s, o);
    });
    if (source == typing::NameSource::Type && s.reachable(o)) {
      auto& t = type_totals[name];
      t.first++;
      t.second += d.objects.size[o];
    }
  }
  for (NodeId r = objects; r < nodes; r++) {
    const analysis::NodeLabel l = analysis::labelNode(s, r);
    writeLine(line, out, [&](JsonWriter& w) {
      w.field("kind", "root").field("id", r).field("root_kind", l.kind).field("name", l.name);
      w.field("retained", s.retained[r]);
      writeIdom(w, s, r);
      writeRefs(w, s, r);
    });
  }
  for (const auto& [type_name, totals] : type_totals) {
    // Copies for the lambda: clang before 16 cannot capture a structured binding.
    const std::string& name = type_name;
    const uint64_t count = totals.first, bytes = totals.second;
    writeLine(line, out, [&](JsonWriter& w) {
      w.field("kind", "type").field("name", name).field("count", count).field("bytes", bytes);
    });
  }
  for (const analysis::GoroutineInfo& g : analysis::goroutines(s)) {
    writeLine(line, out, [&](JsonWriter& w) {
      w.field("kind", "goroutine").field("id", g.id).field("status", g.status_name);
      w.field("wait_reason", g.wait_reason).field("retained", g.retained);
      w.key("frames").beginArray();
      for (const analysis::FrameInfo& f : g.frames) {
        for (const analysis::SourceLine& in : f.inlined) {
          w.beginObject();
          w.field("function", in.function).field("file", in.file).field("line", in.line);
          w.field("inlined", true);
          w.endObject();
        }
        w.beginObject();
        w.field("function", f.function).field("file", f.file).field("line", f.line);
        w.field("pc", formatHex(f.pc));
        w.endObject();
      }
      w.endArray();
    });
  }
  progress.report(nodes, nodes);
  return Status::success();
}

}  // namespace goheap::exporting
