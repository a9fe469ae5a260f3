// The versions of the heap dump format runtime/debug.WriteHeapDump has
// written, named after the Go release that introduced each header line
// (docs/dump-format.md). The dump reader decides the record layouts by it;
// the model carries it (model/heap_dump_facts.h) and the index cache stores
// its name.
#pragma once

#include <cstdint>
#include <string_view>

namespace goheap::goruntime {

enum class FormatVersion : uint8_t { Go13, Go14, Go15, Go17 };

// "go1.3", "go1.4", "go1.5", "go1.7"; "unknown" for any other value.
std::string_view formatVersionName(FormatVersion v);

}  // namespace goheap::goruntime
