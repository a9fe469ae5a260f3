// The web UI's flame graph of retained bytes by chain of types (/api/flame).
#include <algorithm>

#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "flame",
    .summary = "the web UI's flame graph: retained bytes by chain of types",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = false,
    .kept = false,
    .description =
        "The web UI's flame graph of retained bytes: each frame a chain of types down the "
        "dominator tree from the roots, its width the bytes it keeps alive; frames smaller "
        "than min_bytes fold into their parents.",
    .examples =
        {
            {"GET /api/flame", "the whole heap's flame graph, frames under 1/1000 of it folded"},
            {"GET /api/flame?min_bytes=1M&max_depth=16", "only frames of 1 MiB or more, 16 deep"},
        },
};

void writeFlameNode(JsonWriter& w, const analysis::Flame& f, uint32_t i) {
  const analysis::FlameNode& n = f.nodes[i];
  w.beginObject();
  w.field("name", n.name).field("value", n.value).field("self", n.self).field("count", n.count);
  w.key("children").beginArray();
  for (uint32_t c : n.children) writeFlameNode(w, f, c);
  w.endArray();
  w.endObject();
}

const Parts<FlameQuery, analysis::Flame> kParts{
    .fields =
        {
            field<&FlameQuery::min_bytes>(
                byteSizeParam(
                    "min_bytes", "", "SIZE",
                    "fold frames retaining less into their parents (default: 1/1000 of the heap)")
                    .apiOnly()),
            field<&FlameQuery::max_depth>(
                uintParam("max_depth", "64", "N", "longest chain of frames (1 to 1024)").apiOnly()),
        },
    .check =
        [](FlameQuery& q, query::ParamReader& r) {
          if (q.max_depth == 0 || q.max_depth > 1024)
            r.fail("max_depth", "must be between 1 and 1024");
        },
    .run = [](const Heaps& h, const FlameQuery& q) -> Expected<analysis::Flame> {
      return queryFlame(h.current, q);
    },
    .json = [](const Heaps& h, const FlameQuery& /*q*/,
               const analysis::Flame& f) { return flameJson(h.current.snapshot(), f); },
};

}  // namespace

const Question& flameQuestion() {
  return questionOf<kInfo, kParts>();
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
  return jsonDocument(
      [&](JsonWriter& w) {
        w.field("total", snap.retained[snap.heap.superRoot()]);
        w.key("root");
        writeFlameNode(w, flame, 0);
      },
      JsonWriter::Style::Compact);
}

}  // namespace goheap::questions
