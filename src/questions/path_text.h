// A path from a GC root as the commands print it (paths, suspects).
#pragma once

#include <string>
#include <string_view>

#include "analysis/paths.h"

namespace goheap::questions {

// One step a line, each after `indent` ("-> " before every step but the
// root), with the slot's offset and field; with `slot_addresses`, the
// slot's address too.
std::string pathStepsText(const analysis::Path& path, std::string_view indent, bool slot_addresses);

}  // namespace goheap::questions
