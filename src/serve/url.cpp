#include "serve/url.h"

namespace goheap::serve {

namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> percentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); i++) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;  // "%" or "%4" at the end
      const int high = hexDigit(text[i + 1]), low = hexDigit(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

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
