// Durations as users type them on the command line (goheap watch --every
// 2s): a number and a unit.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/error.h"

namespace goheap {

// A duration in milliseconds: a number with a unit ms, s, m or h, like
// "500ms", "2s", "1.5m", "1h"; a fraction is rounded to the millisecond
// ("0.0001s" is too short: an error, as is a bare number, whose unit would
// be a guess).
Expected<uint64_t> parseDurationMs(std::string_view text);

// The sentence help texts show next to duration flags.
inline constexpr std::string_view kDurationUnitsHelp =
    "durations are a number and a unit: ms, s, m or h (500ms, 2s, 1.5m, 1h)";

}  // namespace goheap
