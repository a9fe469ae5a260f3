#include "support/skip_allowlist.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace goheap::testing {

namespace {

std::string trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r");
  return std::string(s.substr(begin, end - begin + 1));
}

bool globMatches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace

std::string oneLine(std::string_view message) {
  std::string out(message);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return trimmed(out);
}

Expected<SkipAllowlist> SkipAllowlist::parse(std::string_view text) {
  SkipAllowlist list;
  std::istringstream lines{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    number++;
    const std::string content = trimmed(line);
    if (content.empty() || content.starts_with("#")) continue;
    const size_t first = content.find('|');
    const size_t second = first == std::string::npos ? first : content.find('|', first + 1);
    if (second == std::string::npos) {
      return Error("line " + std::to_string(number) +
                   ": expected TEST PATTERN | MESSAGE PATTERN | REASON, got: " + content);
    }
    SkipAllowance a{trimmed(std::string_view(content).substr(0, first)),
                    trimmed(std::string_view(content).substr(first + 1, second - first - 1)),
                    trimmed(std::string_view(content).substr(second + 1))};
    if (a.test_pattern.empty() || a.message_pattern.empty() || a.reason.empty()) {
      return Error("line " + std::to_string(number) +
                   ": the test pattern, the message pattern and the reason must all be given");
    }
    list.entries_.push_back(std::move(a));
  }
  return list;
}

Expected<SkipAllowlist> SkipAllowlist::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(path + ": cannot read the skip allowlist");
  std::ostringstream text;
  text << in.rdbuf();
  Expected<SkipAllowlist> list = parse(text.str());
  if (!list) return list.error().inFile(path);
  return list;
}

const SkipAllowance* SkipAllowlist::covering(std::string_view test,
                                             std::string_view message) const {
  const std::string name(test), said = oneLine(message);
  for (const SkipAllowance& a : entries_) {
    if (globMatches(a.test_pattern, name) && globMatches(a.message_pattern, said)) return &a;
  }
  return nullptr;
}

}  // namespace goheap::testing
