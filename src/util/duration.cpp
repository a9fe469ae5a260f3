#include "util/duration.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "util/text.h"

namespace goheap {

Expected<uint64_t> parseDurationMs(std::string_view text) {
  // Appended piece by piece: GCC 12 at -O3 takes "'" + std::string(...)
  // for an overlapping copy (a false -Wrestrict).
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted.append(1, '\'').append(text).append(1, '\'');
  auto invalid = [&] {
    return Error(quoted +
                 " is not a duration: expected a number and a unit ms, s, m or h, like 500ms, "
                 "2s or 1.5m");
  };
  size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  const std::string_view number = text.substr(0, i);
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      number.find('.') != number.rfind('.')) {
    return invalid();
  }
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string unit = asciiLowerCase(text.substr(i));
  double ms_per_unit = 0;
  if (unit == "ms") ms_per_unit = 1;
  if (unit == "s") ms_per_unit = 1e3;
  if (unit == "m" || unit == "min") ms_per_unit = 60e3;
  if (unit == "h") ms_per_unit = 3600e3;
  if (ms_per_unit == 0) {
    if (unit.empty()) return Error(quoted + " has no unit: add ms, s, m or h (2s, 1m)");
    return invalid();
  }
  const double ms = std::strtod(std::string(number).c_str(), nullptr) * ms_per_unit;
  // A year is far more than any wait goheap makes, and well inside a double.
  if (!(ms <= 365.0 * 24 * 3600e3)) return Error(quoted + " is too long (at most a year)");
  const auto rounded = static_cast<uint64_t>(std::llround(ms));
  if (rounded == 0 && ms > 0) return Error(quoted + " is shorter than a millisecond");
  return rounded;
}

}  // namespace goheap
