// core::runtimeTypes: what the core readers (readRuntimeLayout,
// readHeapBitsLayout, readGoroutines, readDataRoots, readSpecials) take as
// the executable's DWARF. An executable with DWARF gives its own; a stripped
// one (-ldflags='-s -w') a small bin::DebugInfo built from the committed
// layout table of its Go release and architecture (goruntime/runtime_table.h),
// with the runtime's globals found in the process's memory
// (core/runtime_globals.h). Building a DebugInfo rather than asking the
// readers to take another source keeps them unchanged: the same lookups by
// name answer from either.
#pragma once

#include <cstdint>
#include <string>

#include <memory>
#include <string>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/memory_image.h"
#include "core/runtime_globals.h"
#include "goruntime/runtime_table.h"
#include "util/error.h"

namespace goheap::core {

struct RuntimeTypes {
  // The types: the executable's DWARF (which the Binary keeps, parsed once
  // for every stage that reads it), or the layout table's.
  const bin::DebugInfo& info() const { return dwarf != nullptr ? *dwarf : *from_table; }
  // "DWARF", or "layout table go1.24 amd64" for a stripped executable.
  std::string source;
  const bin::DebugInfo* dwarf = nullptr;
  std::shared_ptr<const bin::DebugInfo> from_table;
};

// The executable's DWARF, else the table's types with the globals found in
// `mem` (the process's memory with `exe` mapped at mem.bias()). An Error
// says why neither: no table for the release or architecture, a build with
// GOEXPERIMENTs that change layouts, or a global not found.
Expected<RuntimeTypes> runtimeTypes(const bin::Binary& exe, const MemoryImage& mem);

// The DebugInfo of table `t` with globals `g` (runtime.mheap_,
// runtime.allgs, runtime.firstmoduledata and, when found,
// runtime.waitReasonStrings). Holds only the runtime's types: a stripped
// executable's program types are for the type descriptors to tell.
bin::DebugInfo tableDebugInfo(const goruntime::RuntimeTable& t, const RuntimeGlobals& g,
                              uint32_t ptr_size);

}  // namespace goheap::core
