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

namespace goheap::serve {

// `text` with every %XX replaced by the byte it names; with `plus_is_space`
// (a query), `+` is a space. Nothing when a `%` is not followed by two hex
// digits: such a target is malformed, not something to guess at.
std::optional<std::string> percentDecode(std::string_view text, bool plus_is_space);

struct Target {
  std::string path;  // "/api/top"
  // In the order given; a name may repeat. "a&b=" gives ("a", "") and ("b", "").
  std::vector<std::pair<std::string, std::string>> query;
};

// Splits "/api/top?by=site&n=5" at the first `?` and at `&` and `=`, then
// decodes each part. An error says which part is badly escaped.
Expected<Target> parseTarget(std::string_view target);

}  // namespace goheap::serve
