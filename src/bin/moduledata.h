// The runtime's firstmoduledata, found in the executable's data: the
// linker-written record of where text, data and bss are, and of gofunc, the
// base of Go 1.18+ funcdata offsets. Stripped executables have no symbols
// that say so, but every Go executable has this record, because the runtime
// needs it too.
#pragma once

#include <optional>

#include "bin/binary.h"
#include "bin/container.h"
#include "bin/pclntab.h"

namespace goheap::bin {

// Looks for the moduledata whose first word points at `t` (pcHeader since Go
// 1.16, the pclntable slice before) and whose other fields agree with `t`;
// reads the module's ranges (source "moduledata") from it. nullopt when no
// word in the file's data validates (a position-independent executable keeps
// those pointers in relocations, not in the file). `go_minor` (27 for
// go1.27.4) picks the release's field positions; unknown, they are told
// apart by the fields themselves.
std::optional<ModuleLayout> moduleLayoutFromModuledata(const Container& c, const Pclntab& t,
                                                       std::optional<int> go_minor);

}  // namespace goheap::bin
