// The request target of an HTTP request, decoded: the path and the query
// parameters, with percent-escapes undone (and `+` read as a space in the
// query, as HTML forms and URLSearchParams write it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"
#include "util/text.h"

namespace goheap::serve {

// A request target's %XX escapes (util/text.h).
using ::goheap::percentDecode;

struct Target {
  std::string path;  // "/api/top"
  // In the order given; a name may repeat. "a&b=" gives ("a", "") and ("b", "").
  std::vector<std::pair<std::string, std::string>> query;
};

// Splits "/api/top?by=site&n=5" at the first `?` and at `&` and `=`, then
// decodes each part. An error says which part is badly escaped.
Expected<Target> parseTarget(std::string_view target);

}  // namespace goheap::serve
