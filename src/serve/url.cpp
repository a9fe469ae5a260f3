#include "serve/url.h"

namespace goheap::serve {

Expected<Target> parseTarget(std::string_view target) {
  const size_t question = target.find('?');
  const std::string_view raw_path = target.substr(0, question);
  Target out;
  std::optional<std::string> path = percentDecode(raw_path, false);
  if (!path) return Error("bad percent-escape in the path \"" + std::string(raw_path) + "\"");
  out.path = std::move(*path);
  if (question == std::string_view::npos) return out;

  std::string_view rest = target.substr(question + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;  // "a=1&&b=2"
    const size_t eq = pair.find('=');
    std::optional<std::string> name = percentDecode(pair.substr(0, eq), true);
    std::optional<std::string> value = percentDecode(
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!name || !value) {
      return Error("bad percent-escape in the query parameter \"" + std::string(pair) + "\"");
    }
    out.query.emplace_back(std::move(*name), std::move(*value));
  }
  return out;
}

}  // namespace goheap::serve
