// `goheap dups --json` and /api/dups (docs/cli-json.md).
#include "query/queries.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::query {

namespace {

// Addresses listed per group in JSON; `obj` and `paths` take it from there.
constexpr size_t kAddressesShown = 10;

}  // namespace

analysis::Duplicates queryDups(const Session& session, const DupsQuery& q) {
  analysis::DupOptions o;
  o.strings = q.kind == "all" || q.kind == "strings";
  o.bytes = q.kind == "all" || q.kind == "bytes";
  o.objects = q.kind == "all" || q.kind == "objects";
  o.limit = static_cast<size_t>(q.limit);
  o.min_wasted = q.min_wasted;
  const analysis::Snapshot& snap = session.snapshot();
  return analysis::findDuplicates(snap, o, snap.types ? &session.typedHeaders() : nullptr);
}

std::string dupsJson(const analysis::Snapshot& snap, const DupsQuery& q,
                     const analysis::Duplicates& d) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("typed", d.typed);
  w.field("kind", q.kind).field("limit", q.limit).field("min_wasted", q.min_wasted);
  w.key("totals").beginObject();
  for (analysis::DupKind k :
       {analysis::DupKind::String, analysis::DupKind::Bytes, analysis::DupKind::Object}) {
    const analysis::DupTotals& t = d.totals[static_cast<size_t>(k)];
    w.key(analysis::dupKindName(k)).beginObject();
    w.field("groups", t.groups).field("copies", t.copies).field("wasted", t.wasted);
    w.endObject();
  }
  w.endObject();
  w.field("matching_groups", d.matching_groups);
  w.key("groups").beginArray();
  for (const analysis::DupGroup& g : d.groups) {
    w.beginObject();
    w.field("kind", analysis::dupKindName(g.kind)).field("name", g.name);
    w.field("preview", g.preview).field("length", g.length);
    w.field("size", g.size).field("copies", g.copies).field("total", g.total);
    w.field("wasted", g.wasted);
    w.key("addresses").beginArray();
    for (size_t i = 0; i < g.objects.size() && i < kAddressesShown; i++) {
      w.value(formatHex(snap.address(g.objects[i])));
    }
    w.endArray();
    w.key("holders").beginArray();
    for (const analysis::DupHolder& h : g.holders) {
      w.beginObject();
      w.field("name", h.name).field("count", h.count).field("node", h.node);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

}  // namespace goheap::query
