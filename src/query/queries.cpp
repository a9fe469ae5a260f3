#include "query/queries.h"

#include "analysis/globals.h"

#include <algorithm>
#include <cctype>

#include "query/labels.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/text.h"

namespace goheap::query {

namespace {

void writeSourceLine(JsonWriter& w, const analysis::SourceLine& l) {
  w.beginObject();
  w.field("function", l.function).field("file", l.file).field("line", l.line);
  w.endObject();
}

}  // namespace

std::optional<NodeId> findObject(const analysis::Snapshot& snap, uint64_t address,
                                 std::string_view parameter, std::optional<QueryError>& error) {
  auto o = analysis::objectAt(snap, address);
  if (!o) {
    error = QueryError{QueryError::Kind::NotFound, std::string(parameter),
                       "no object contains address " + formatHex(address)};
  }
  return o;
}

analysis::Summary querySummary(const Session& session, const SummaryQuery& q) {
  return analysis::summarize(session.snapshot(), q.top);
}

std::string summaryJson(const analysis::Summary& s) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
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
    }
    w.endObject();
  }
  if (s.typed) {
    w.key("types").beginObject();
    w.field("typed_reachable_count", s.typed_objects);
    w.field("typed_reachable_bytes", s.typed_bytes);
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
  w.key("top_retainers").beginArray();
  for (const analysis::Retainer& r : s.top_retainers) {
    w.beginObject();
    w.key("object");
    writeLabel(w, r.object);
    w.field("retained", r.retained).field("shallow", r.shallow);
    w.key("held_by");
    writeLabel(w, r.held_by);
    if (r.held_at_offset) {
      w.field("offset", *r.held_at_offset);
      w.field("slot_address", formatHex(r.held_at_address));
    }
    w.endObject();
  }
  w.endArray();
  w.key("warnings").beginArray();
  for (const std::string& warning : s.warnings) w.value(warning);
  w.endArray();
  w.endObject();
  return out;
}

TopResult queryTop(const Session& session, const TopQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  TopResult r;
  r.by = q.by == "auto" ? (snap.types ? "type" : "site") : q.by;
  const auto by = r.by == "shape"  ? typing::GroupKind::Shape
                  : r.by == "type" ? typing::GroupKind::Type
                                   : typing::GroupKind::Name;
  analysis::SortKey sort = analysis::SortKey::Retained;
  if (q.sort == "shallow") sort = analysis::SortKey::Shallow;
  if (q.sort == "count") sort = analysis::SortKey::Count;
  const uint64_t limit = q.limit == 0 ? UINT64_MAX : q.limit;
  // Without a filter the histogram can stop at the last row shown; a filter
  // has to see every group first, and then counts only those it keeps.
  const uint64_t wanted =
      !q.filter.empty() || q.offset > UINT64_MAX - limit ? UINT64_MAX : q.offset + limit;
  r.histogram = analysis::histogram(session.groupTotals(by), sort, wanted);
  std::vector<analysis::HistogramRow>& rows = r.histogram.rows;
  if (!q.filter.empty()) {
    std::erase_if(rows, [&](const analysis::HistogramRow& row) {
      return !containsIgnoringCase(row.name, q.filter);
    });
    r.histogram.groups = rows.size();
  }
  rows.erase(rows.begin(),
             rows.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(q.offset, rows.size())));
  if (rows.size() > limit) rows.resize(limit);
  return r;
}

std::string topJson(const TopQuery& q, const TopResult& r) {
  const analysis::Histogram& h = r.histogram;
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("by", r.by);
  w.field("sort", q.sort);
  if (q.offset != 0) w.field("offset", q.offset);
  if (!q.filter.empty()) w.field("filter", q.filter);
  w.field("groups", h.groups).field("total_count", h.total_count);
  w.field("total_shallow", h.total_shallow);
  w.key("rows").beginArray();
  for (const analysis::HistogramRow& row : h.rows) {
    w.beginObject();
    w.field("name", row.name).field("source", row.source).field("count", row.count);
    w.field("shallow", row.shallow).field("retained", row.retained);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

std::optional<std::vector<analysis::DomRow>> queryDom(const Session& session, const DomQuery& q,
                                                      std::optional<QueryError>& error) {
  const analysis::Snapshot& snap = session.snapshot();
  NodeId start = kNoNode;
  if (q.from) {
    auto o = findObject(snap, *q.from, "from", error);
    if (!o) return std::nullopt;
    if (!snap.reachable(*o)) {
      const std::string what = snap.isRuntimeMetadata(*o)
                                   ? " is the runtime's span metadata, not an object"
                                   : " is garbage (unreachable)";
      // Not in the tree: as a missing object, not a wrong parameter.
      error = QueryError{QueryError::Kind::NotFound, "from",
                         "the object at " + formatHex(snap.address(*o)) + what +
                             ": it has no place in the dominator tree"};
      return std::nullopt;
    }
    start = *o;
  } else if (q.from_node) {
    const uint64_t n = *q.from_node;
    if (n >= snap.heap.nodeCount() ||
        (!snap.reachable(static_cast<NodeId>(n)) && n != snap.heap.superRoot())) {
      error = QueryError{QueryError::Kind::NotFound, "node",
                         "no reachable node " + std::to_string(n) + " (there are " +
                             std::to_string(snap.heap.nodeCount()) + ")"};
      return std::nullopt;
    }
    start = static_cast<NodeId>(n);
  }
  return analysis::dominatorRows(
      snap, static_cast<uint32_t>(std::min<uint64_t>(q.depth, UINT32_MAX)), q.min_bytes,
      static_cast<uint32_t>(std::min<uint64_t>(q.max_children, UINT32_MAX)), start);
}

namespace {

void writeFlameNode(JsonWriter& w, const analysis::Flame& f, uint32_t i) {
  const analysis::FlameNode& n = f.nodes[i];
  w.beginObject();
  w.field("name", n.name).field("value", n.value).field("self", n.self).field("count", n.count);
  w.key("children").beginArray();
  for (uint32_t c : n.children) writeFlameNode(w, f, c);
  w.endArray();
  w.endObject();
}

}  // namespace

std::string searchJson(const Session& session, const SearchQuery& search) {
  const analysis::Snapshot& snap = session.snapshot();
  const std::string& q = search.q;
  const uint64_t limit = search.limit;
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1).field("q", q);
  w.key("object");
  std::optional<NodeId> object;
  if (Expected<uint64_t> addr = parseAddress(q)) object = analysis::objectAt(snap, *addr);
  if (object) {
    writeLabel(w, analysis::labelNode(snap, *object));
  } else {
    w.null();
  }
  TopQuery tq;
  tq.filter = q;
  tq.limit = limit;
  const TopResult top = queryTop(session, tq);
  w.field("by", top.by);
  w.key("groups").beginArray();
  for (const analysis::HistogramRow& r : top.histogram.rows) {
    w.beginObject();
    w.field("name", r.name).field("source", r.source).field("count", r.count);
    w.field("shallow", r.shallow).field("retained", r.retained);
    w.endObject();
  }
  w.endArray();
  w.key("globals").beginArray();
  for (const analysis::GlobalInfo& g : analysis::findGlobals(snap, q, limit)) {
    w.beginObject();
    w.field("name", g.name).field("address", formatHex(g.address)).field("size", g.size);
    if (!g.type.empty()) w.field("type", g.type);
    w.field("pointer_count", g.pointer_count);
    w.key("points_to").beginArray();
    for (const analysis::NodeLabel& l : g.points_to) writeLabel(w, l);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

analysis::Flame queryFlame(const Session& session, const FlameQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  // By default frames of less than 1/1000 of the heap fold into their
  // parents: enough for a screen, small for the browser.
  const uint64_t total = snap.retained[snap.heap.superRoot()];
  const uint64_t min_bytes = q.min_bytes ? *q.min_bytes : std::max<uint64_t>(total / 1000, 1);
  return analysis::retentionFlame(snap, min_bytes, static_cast<uint32_t>(q.max_depth),
                                  &session.fullFlame());
}

std::string flameJson(const analysis::Snapshot& snap, const analysis::Flame& flame) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Compact);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("total", snap.retained[snap.heap.superRoot()]);
  w.key("root");
  writeFlameNode(w, flame, 0);
  w.endObject();
  return out;
}

std::string domJson(const analysis::Snapshot& snap, const std::vector<analysis::DomRow>& rows) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("total_retained", snap.retained[snap.heap.superRoot()]);
  w.key("rows").beginArray();
  for (const analysis::DomRow& r : rows) {
    w.beginObject();
    w.field("depth", r.depth);
    w.key("node");
    writeLabel(w, r.node);
    w.field("retained", r.retained).field("shallow", r.shallow);
    w.field("children", r.children).field("hidden_children", r.hidden_children);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

std::optional<PathsResult> queryPaths(const Session& session, const PathsQuery& q,
                                      std::optional<QueryError>& error) {
  const analysis::Snapshot& snap = session.snapshot();
  auto target = findObject(snap, q.addr, "addr", error);
  if (!target) return std::nullopt;
  return PathsResult{*target, analysis::pathsToRoots(snap, *target, q.limit)};
}

std::optional<analysis::ObjectInfo> queryObj(const Session& session, const ObjQuery& q,
                                             std::optional<QueryError>& error) {
  const analysis::Snapshot& snap = session.snapshot();
  auto o = findObject(snap, q.addr, "addr", error);
  if (!o) return std::nullopt;
  return analysis::objectInfo(snap, *o, q.referrers);
}

std::string pathsJson(const analysis::Snapshot& snap, const PathsResult& r) {
  const NodeId target = r.target;
  const std::vector<analysis::Path>& paths = r.paths;
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.key("target");
  writeLabel(w, analysis::labelNode(snap, target));
  w.field("reachable", snap.reachable(target));
  w.key("paths").beginArray();
  for (const analysis::Path& p : paths) writePathSteps(w, p);
  w.endArray();
  w.endObject();
  return out;
}

std::string objJson(const analysis::Snapshot& snap, const analysis::ObjectInfo& info,
                    uint64_t max_bytes) {
  const uint64_t shown = std::min(info.size, max_bytes);
  auto contents = snap.model.objectBytes(info.label.node).first(shown);
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.key("object");
  writeLabel(w, info.label);
  if (!info.type.empty()) {
    w.field("type", info.type);
    w.key("fields").beginArray();
    for (const typing::FieldValue& f : info.fields) {
      w.beginObject();
      w.field("path", f.path).field("offset", f.offset).field("type", f.type);
      w.field("value", f.value);
      if (f.points_to != 0) w.field("points_to", formatHex(f.points_to));
      w.endObject();
    }
    w.endArray();
  }
  w.field("size", info.size).field("retained", info.retained);
  w.field("reachable", info.reachable).field("shape", info.shape);
  if (info.runtime_metadata) w.field("runtime_metadata", true);
  w.key("immediate_dominator");
  writeLabel(w, info.idom);
  w.field("contents_hex", formatHexBytes(contents));
  w.field("contents_truncated", shown < info.size);
  w.key("pointers").beginArray();
  for (const analysis::Reference& r : info.pointers) {
    w.beginObject();
    w.field("offset", *r.offset).field("slot_address", formatHex(r.slot_address));
    w.field("value", formatHex(r.value));
    if (!r.field.empty()) w.field("field", r.field);
    w.key("target");
    writeLabel(w, r.target);
    w.endObject();
  }
  w.endArray();
  w.field("referrer_count", info.referrer_count);
  w.key("referrers").beginArray();
  for (const analysis::Reference& r : info.referrers) {
    w.beginObject();
    w.key("holder");
    writeLabel(w, r.target);
    if (r.offset) {
      w.field("offset", *r.offset).field("slot_address", formatHex(r.slot_address));
    }
    if (!r.field.empty()) w.field("field", r.field);
    w.endObject();
  }
  w.endArray();
  w.key("alloc_stack").beginArray();
  for (const analysis::AllocFrame& f : info.alloc_stack) {
    w.beginObject();
    w.field("function", std::string(f.function)).field("file", std::string(f.file));
    w.field("line", f.line);
    if (f.function_start_line > 0) w.field("function_start_line", f.function_start_line);
    if (f.inlined) w.field("inlined", true);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

std::vector<analysis::GoroutineInfo> queryGoroutines(const Session& session,
                                                     const GoroutinesQuery& q) {
  std::vector<analysis::GoroutineInfo> gs = analysis::goroutines(session.snapshot());
  if (q.user) {
    std::erase_if(gs, [](const analysis::GoroutineInfo& g) { return g.is_system; });
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

uint64_t earliestWaitSince(const std::vector<analysis::GoroutineInfo>& gs) {
  uint64_t earliest = 0;
  for (const analysis::GoroutineInfo& g : gs) {
    if (g.wait_since != 0 && (earliest == 0 || g.wait_since < earliest)) earliest = g.wait_since;
  }
  return earliest;
}

std::string goroutinesJson(const std::vector<analysis::GoroutineInfo>& gs, bool frames) {
  const uint64_t earliest = earliestWaitSince(gs);
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.key("goroutines").beginArray();
  for (const analysis::GoroutineInfo& g : gs) {
    w.beginObject();
    w.field("id", g.id).field("status", g.status).field("status_name", g.status_name);
    w.field("wait_reason", g.wait_reason).field("wait_since_ns", g.wait_since);
    if (g.wait_since != 0 && earliest != 0) {
      w.field("wait_since_relative_ns", g.wait_since - earliest);
    }
    w.field("system", g.is_system).field("retained", g.retained);
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
  w.endObject();
  return out;
}

}  // namespace goheap::query
