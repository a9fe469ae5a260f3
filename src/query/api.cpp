#include "query/api.h"

#include "query/queries.h"

namespace goheap::query {

namespace {

ApiAnswer json(std::string text) {
  return {std::make_shared<const std::string>(std::move(text)), std::nullopt};
}
ApiAnswer failed(QueryError e) {
  return {nullptr, std::move(e)};
}
ApiAnswer kept(std::shared_ptr<const std::string> text) {
  return {std::move(text), std::nullopt};
}

ApiAnswer summary(const ApiHeaps& h, const ParamValues& v) {
  SummaryQuery q;
  if (auto e = readSummary(v, q)) return failed(*e);
  return json(summaryJson(querySummary(h.current, q)));
}

ApiAnswer top(const ApiHeaps& h, const ParamValues& v) {
  TopQuery q;
  if (auto e = readTop(v, q)) return failed(*e);
  return json(topJson(q, queryTop(h.current, q)));
}

ApiAnswer dom(const ApiHeaps& h, const ParamValues& v) {
  DomQuery q;
  if (auto e = readDom(v, q)) return failed(*e);
  std::optional<QueryError> error;
  auto rows = queryDom(h.current, q, error);
  if (!rows) return failed(*error);
  return json(domJson(h.current.snapshot(), *rows));
}

ApiAnswer paths(const ApiHeaps& h, const ParamValues& v) {
  PathsQuery q;
  if (auto e = readPaths(v, q)) return failed(*e);
  std::optional<QueryError> error;
  auto found = queryPaths(h.current, q, error);
  if (!found) return failed(*error);
  return json(pathsJson(h.current.snapshot(), *found));
}

ApiAnswer obj(const ApiHeaps& h, const ParamValues& v) {
  ObjQuery q;
  if (auto e = readObj(v, q)) return failed(*e);
  std::optional<QueryError> error;
  auto info = queryObj(h.current, q, error);
  if (!info) return failed(*error);
  return json(objJson(h.current.snapshot(), *info, q.bytes));
}

ApiAnswer goroutines(const ApiHeaps& h, const ParamValues& v) {
  GoroutinesQuery q;
  if (auto e = readGoroutines(v, q)) return failed(*e);
  return json(goroutinesJson(queryGoroutines(h.current, q), q.frames));
}

ApiAnswer flame(const ApiHeaps& h, const ParamValues& v) {
  FlameQuery q;
  if (auto e = readFlame(v, q)) return failed(*e);
  return json(flameJson(h.current.snapshot(), queryFlame(h.current, q)));
}

ApiAnswer search(const ApiHeaps& h, const ParamValues& v) {
  SearchQuery q;
  if (auto e = readSearch(v, q)) return failed(*e);
  return json(searchJson(h.current, q));
}

// The answers below take seconds on a big heap; they are kept by their
// parsed parameters (AnswerKey), so "n=05" and "n=5" share one.
ApiAnswer suspects(const ApiHeaps& h, const ParamValues& v) {
  SuspectsQuery q;
  if (auto e = readSuspects(v, q)) return failed(*e);
  const AnswerKey key = AnswerKey("suspects")
                            .add("threshold", q.threshold)
                            .add("limit", q.limit)
                            .add("accumulation", q.accumulation);
  return kept(h.current.answer(key, [&] { return suspectsJson(querySuspects(h.current, q)); }));
}

ApiAnswer diff(const ApiHeaps& h, const ParamValues& v) {
  DiffQuery q;
  if (auto e = readDiff(v, q)) return failed(*e);
  if (h.base == nullptr) {
    return failed({QueryError::Kind::NotFound, "",
                   "no base dump to compare with: start the server with "
                   "`goheap serve NEW [EXE] --base OLD`"});
  }
  const AnswerKey key = AnswerKey("diff")
                            .add("by", q.by)
                            .add("sort", q.sort)
                            .add("limit", q.limit)
                            .add("offset", q.offset)
                            .add("unchanged", q.unchanged)
                            .add("filter", q.filter);
  return kept(h.current.answer(key, [&] { return diffJson(q, queryDiff(*h.base, h.current, q)); }));
}

ApiAnswer dups(const ApiHeaps& h, const ParamValues& v) {
  DupsQuery q;
  if (auto e = readDups(v, q)) return failed(*e);
  const AnswerKey key =
      AnswerKey("dups").add("kind", q.kind).add("n", q.limit).add("min_wasted", q.min_wasted);
  return kept(h.current.answer(
      key, [&] { return dupsJson(h.current.snapshot(), q, queryDups(h.current, q)); }));
}

ApiAnswer waste(const ApiHeaps& h, const ParamValues& v) {
  WasteQuery q;
  if (auto e = readWaste(v, q)) return failed(*e);
  return kept(h.current.answer(AnswerKey("waste").add("n", q.limit), [&] {
    return wasteJson(h.current.snapshot(), q, queryWaste(h.current, q));
  }));
}

constexpr ApiEndpoint kEndpoints[] = {
    {"summary", summaryParams, summary},
    {"top", topParams, top},
    {"dom", domParams, dom},
    {"search", searchParams, search},
    {"flame", flameParams, flame},
    {"paths", pathsParams, paths},
    {"obj", objParams, obj},
    {"goroutines", goroutinesParams, goroutines},
    {"suspects", suspectsParams, suspects},
    {"diff", diffParams, diff},
    {"dups", dupsParams, dups},
    {"waste", wasteParams, waste},
};

}  // namespace

std::span<const ApiEndpoint> apiEndpoints() {
  return kEndpoints;
}

const ApiEndpoint* findApiEndpoint(std::string_view name) {
  for (const ApiEndpoint& e : kEndpoints) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace goheap::query
