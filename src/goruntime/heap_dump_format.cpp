#include "goruntime/heap_dump_format.h"

#include <array>

#include "util/enum_names.h"

namespace goheap::goruntime {

namespace {

constexpr std::array<std::string_view, 4> kFormatVersionNames = {"go1.3", "go1.4", "go1.5",
                                                                 "go1.7"};
static_assert(namesEveryValue(kFormatVersionNames, FormatVersion::Go17));

}  // namespace

std::string_view formatVersionName(FormatVersion v) {
  return enumName(v, kFormatVersionNames, "unknown");
}

}  // namespace goheap::goruntime
