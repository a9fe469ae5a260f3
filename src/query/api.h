// The JSON API (docs/web-api.md) as a table: each endpoint's name, its
// parameters and the function that answers it from the parameters given.
// `goheap serve` maps /api/NAME?PARAMS onto it; what a parameter means and
// which values are wrong is decided by the same read functions the commands
// use (queries.h), and costly answers are kept in the Session's memo.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "query/params.h"
#include "query/session.h"

namespace goheap::query {

// The heaps an API request is answered from.
struct ApiHeaps {
  const Session& current;
  const Session* base = nullptr;  // goheap serve --base OLD, for /api/diff
};

struct ApiAnswer {
  std::shared_ptr<const std::string> json;  // the document, when answered
  std::optional<QueryError> error;          // else why not
};

struct ApiEndpoint {
  std::string_view name;  // "top" for /api/top
  const std::vector<ParamSpec>& (*params)();
  ApiAnswer (*answer)(const ApiHeaps& heaps, const ParamValues& values);
};

// Every endpoint that answers from a heap.
std::span<const ApiEndpoint> apiEndpoints();
const ApiEndpoint* findApiEndpoint(std::string_view name);

}  // namespace goheap::query
