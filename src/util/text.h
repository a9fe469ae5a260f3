#pragma once
// Case-insensitive text matching, as filters (--filter, ?filter=) and host
// names compare. ASCII only: Go identifiers and host names are.
#include <optional>
#include <string>
#include <string_view>

namespace goheap {

// 'A'..'Z' as 'a'..'z'; every other byte as it is.
constexpr char asciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string asciiLowerCase(std::string_view text);

// Whether `part` occurs in `text`, ignoring ASCII case; an empty `part` does.
bool containsIgnoringCase(std::string_view text, std::string_view part);

// `text` with every %XX replaced by the byte it names; with `plus_is_space`
// (a URL's query), `+` is a space. Nothing when a `%` is not followed by two
// hex digits: such text is malformed, not something to guess at.
std::optional<std::string> percentDecode(std::string_view text, bool plus_is_space);

}  // namespace goheap
