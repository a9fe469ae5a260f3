#include "util/text.h"

#include <algorithm>

namespace goheap {

std::string asciiLowerCase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), asciiLower);
  return out;
}

bool containsIgnoringCase(std::string_view text, std::string_view part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [](char a, char b) { return asciiLower(a) == asciiLower(b); }) != text.end();
}

}  // namespace goheap
