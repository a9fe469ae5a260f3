// The leak suspects document (docs/cli-json.md "suspects"), shared by
// `goheap suspects --json` and /api/suspects.
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::query {

analysis::SuspectReport querySuspects(const Session& session, const SuspectsQuery& q) {
  analysis::SuspectOptions o;
  o.threshold_percent = q.threshold;
  o.limit = q.limit;
  o.accumulation_percent = static_cast<uint32_t>(q.accumulation);
  return analysis::leakSuspects(session.snapshot(), o);
}

namespace {

void writeGroupRef(JsonWriter& w, const analysis::SuspectGroupRef& g) {
  w.beginObject();
  w.field("name", g.name).field("source", g.source).field("count", g.count);
  w.field("retained", g.retained);
  w.endObject();
}

}  // namespace

std::string suspectsJson(const analysis::SuspectReport& r) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("threshold_percent", r.threshold_percent);
  w.field("threshold_bytes", r.threshold_bytes);
  w.field("accumulation_percent", r.accumulation_percent);
  w.field("reachable_bytes", r.reachable_bytes);
  w.field("by", r.by);
  w.field("total", r.total);
  w.key("suspects").beginArray();
  for (size_t i = 0; i < r.suspects.size(); i++) {
    const analysis::Suspect& s = r.suspects[i];
    w.beginObject();
    w.field("rank", i + 1);
    w.field("kind", s.is_group ? "group" : "object");
    w.field("description", s.description);
    w.key("object");
    writeLabel(w, s.object);
    if (s.is_group) {
      w.key("group");
      writeGroupRef(w, s.group);
      w.key("holders").beginArray();
      for (const analysis::HolderCount& h : s.holders) {
        w.beginObject().field("holder", h.holder).field("members", h.members).endObject();
      }
      w.endArray();
    }
    w.field("retained", s.retained).field("share", s.share);
    w.key("accumulation_point").beginObject();
    w.key("node");
    writeLabel(w, s.accumulation_point);
    w.field("retained", s.accumulation_retained);
    w.field("children", s.accumulation_children);
    w.endObject();
    w.key("path");
    writePathSteps(w, s.path);
    w.key("accumulated").beginObject();
    w.field("count", s.accumulated_count).field("bytes", s.accumulated_bytes);
    w.field("groups", s.accumulated_types);
    w.key("top").beginArray();
    for (const analysis::AccumulatedType& a : s.accumulated) {
      w.beginObject();
      w.field("name", a.name).field("source", a.source).field("count", a.count);
      w.field("bytes", a.bytes);
      w.endObject();
    }
    w.endArray();
    w.endObject();
    if (!s.is_group) {
      w.key("merged_groups").beginArray();
      for (const analysis::SuspectGroupRef& g : s.merged_groups) writeGroupRef(w, g);
      w.endArray();
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

}  // namespace goheap::query
