// goheap's own version, as `goheap version` prints it and index cache
// entries record it.
#pragma once

#include <string_view>

namespace goheap {

inline constexpr std::string_view kGoheapVersion = "0.1.0";

}  // namespace goheap
