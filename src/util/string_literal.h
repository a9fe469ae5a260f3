// A string as a double-quoted literal that C++ and Graphviz's DOT read back
// the same: `"` and `\` escaped, a newline written \n. The generated
// runtime table (goruntime/runtime_tables.inc) and the DOT export write
// their strings so.
#pragma once

#include <string>
#include <string_view>

namespace goheap {

inline std::string quotedLiteral(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

}  // namespace goheap
