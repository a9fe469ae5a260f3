// Rendering pieces the commands share: how a node is written in text and in
// JSON, so every command names objects and roots the same way.
#pragma once

#include <string>

#include "analysis/labels.h"
#include "analysis/paths.h"
#include "util/json_writer.h"

namespace goheap::query {

// "main.main main.go:35 @0xc000123456" for an object; a root's description
// ("goroutine 18 (chan receive)", "bss segment at 0x5a1000") for a root.
std::string labelText(const analysis::NodeLabel& label);

// {"kind", "name", "source"?, "address"?, "node"}
void writeLabel(JsonWriter& w, const analysis::NodeLabel& label);

// A path from a root as an array of steps: [{"node", "offset"?,
// "slot_address"?, "field"?}], as `paths` and `suspects` write it.
void writePathSteps(JsonWriter& w, const analysis::Path& path);

}  // namespace goheap::query
