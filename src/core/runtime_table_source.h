// The generator of goruntime/runtime_tables.inc (goruntime/runtime_table.h):
// one executable's entry, read from its DWARF and its data.
#pragma once

#include <string>
#include <string_view>

#include "bin/container.h"
#include "bin/debug_info.h"
#include "goruntime/runtime_table.h"
#include "util/error.h"

namespace goheap::core {

// The table entry for one executable, as the C++ text runtime_tables.inc
// holds for it (the generator writes it; the tests compare it with the
// committed entry's text): from its DWARF `dwarf`, the wait reasons read
// from its data. An Error names what the DWARF lacks.
Expected<std::string> runtimeTableSource(const bin::DebugInfo& dwarf, const bin::Container& exe,
                                         std::string_view go_version, std::string_view goarch);
}  // namespace goheap::core
