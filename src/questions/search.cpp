// The web UI's search box (/api/search).
#include "analysis/globals.h"
#include "analysis/slots.h"
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "search",
    .summary = "the web UI's search box: an object at an address, groups and globals by name",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = false,
    .kept = false,
    .description =
        "The web UI's search box: the object at the address given, the groups whose name "
        "contains the text (as top --filter), and the global variables whose name does.",
    .examples =
        {
            {"GET /api/search?q=0xc000123450", "the object at that address"},
            {"GET /api/search?q=session&limit=5", "groups and globals named like *session*"},
        },
};

const Parts<SearchQuery, std::string> kParts{
    .fields =
        {
            field<&SearchQuery::q>(
                textParam("q", "TEXT", "an address or part of a name").apiOnly().mustBeGiven()),
            field<&SearchQuery::limit>(
                uintParam("limit", "20", "N", "at most this many of each kind (0: 20)")
                    .withAlias('n')
                    .apiOnly()),
        },
    .check =
        [](SearchQuery& q, query::ParamReader& r) {
          if (q.limit == 0) q.limit = 20;
          if (r.has("q") && q.q.empty()) r.fail("q", "is empty: search for an address or a name");
        },
    .run = [](const Heaps& h, const SearchQuery& q) -> Expected<std::string> {
      return searchJson(h.current, q);
    },
    .json = [](const Heaps& /*h*/, const SearchQuery& /*q*/,
               const std::string& json) { return json; },
};

}  // namespace

const Question& searchQuestion() {
  return questionOf<kInfo, kParts>();
}

std::string searchJson(const Session& session, const SearchQuery& search) {
  const analysis::Snapshot& snap = session.snapshot();
  const std::string& q = search.q;
  const uint64_t limit = search.limit;
  return jsonDocument([&](JsonWriter& w) {
    w.field("q", q);
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
    w.arrayOfObjects("groups", top.histogram.rows, [&](const analysis::HistogramRow& r) {
      w.field("name", r.name).field("source", r.source).field("count", r.count);
      w.field("shallow", r.shallow).field("retained", r.retained);
    });
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
  });
}

}  // namespace goheap::questions
