// The skips a CI run accepts (tests/skip-allowlist.txt). Under CI=true a
// skipped test fails unless an entry covers it (tests/support/test_main.cpp):
// a skip is otherwise untested code that a green run hides. Each entry names
// the tests it covers, the exact condition (a pattern for the skip message)
// and why a machine may lack it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace goheap::testing {

// One line of the allowlist. Patterns are shell globs (fnmatch(3) without
// flags: '*' also matches '/'), matched against the whole test name as
// gtest prints it ("Suite/Prefix.Name/param") and against the skip message
// with its lines joined by spaces.
struct SkipAllowance {
  std::string test_pattern;
  std::string message_pattern;
  std::string reason;
};

class SkipAllowlist {
 public:
  // One entry per line, "TEST PATTERN | MESSAGE PATTERN | REASON", every
  // part non-empty; blank lines and lines starting with '#' are comments.
  // An error names the line that is not of that form.
  static Expected<SkipAllowlist> parse(std::string_view text);
  static Expected<SkipAllowlist> read(const std::string& path);

  // The entry that allows `test` to skip with `message`, or null.
  const SkipAllowance* covering(std::string_view test, std::string_view message) const;

  const std::vector<SkipAllowance>& entries() const { return entries_; }

 private:
  std::vector<SkipAllowance> entries_;
};

// `message` on one line: newlines become spaces, the ends trimmed.
std::string oneLine(std::string_view message);

}  // namespace goheap::testing
