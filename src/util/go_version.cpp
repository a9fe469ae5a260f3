#include "util/go_version.h"

#include <charconv>

namespace goheap {

namespace {

// cmd/link appends the experiments as " X:a,b", or "-X:a,b" when the version
// has no '-' of its own (since Go 1.26, go.dev/issue/75953).
std::string_view experimentsOf(std::string_view version) {
  const size_t x = version.find("X:");
  if (x == std::string_view::npos || x == 0) return {};
  const char before = version[x - 1];
  if (before != ' ' && before != '-') return {};
  return version.substr(x + 2);
}

}  // namespace

bool GoVersion::hasExperiment(std::string_view name) const {
  std::string_view rest = experiments;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    if (rest.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

GoVersion parseGoVersion(std::string_view version) {
  GoVersion v;
  v.experiments = experimentsOf(version);
  if (!version.starts_with("go1.")) return v;
  version.remove_prefix(4);
  int minor = 0;
  auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), minor);
  if (ec == std::errc() && end != version.data()) v.minor = minor;
  return v;
}

}  // namespace goheap
