// core::RuntimeTable: the layouts of the runtime structures the core readers
// use, per Go release and architecture, for executables built with
// -ldflags='-s -w', which have no DWARF to read them from. The table is data
// generated from each toolchain's DWARF (runtime_tables.inc, written by
// tools/runtime-layouts/) and holds only what the readers ask for: struct
// sizes, field offsets and widths, array lengths, and the wait reasons'
// names (runtime.waitReasonStrings), plus _defer, _panic and itab for the
// readers to come. core/runtime_types.h turns one entry into a small
// bin::DebugInfo, so the readers read it as they read DWARF.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bin/container.h"
#include "bin/debug_info.h"
#include "util/error.h"

namespace goheap::core {

struct TableStruct {
  std::string_view name;  // "runtime.mspan"
  uint64_t size = 0;
};

// One field of a table struct. An array field has its length in `count`;
// an array of pointers to arrays (mheap.arenas) the inner length in
// `inner_count`. A field whose type is another table struct (g.sched, a
// runtime.gobuf) names it in `type`, so that paths like "sched.pc" resolve.
struct TableField {
  std::string_view owner, name;
  uint64_t offset = 0, size = 0;
  uint64_t count = 0, inner_count = 0;
  std::string_view type;
};

struct RuntimeTable {
  std::string_view go_version;  // "go1.24": layouts do not change within a release
  std::string_view goarch;      // "amd64", "arm64"
  std::span<const TableStruct> structs;
  std::span<const TableField> fields;  // grouped by owner, in structs' order
  std::span<const std::string_view> wait_reasons;

  const TableStruct* structNamed(std::string_view name) const;
  const TableField* field(std::string_view owner, std::string_view name) const;
};

// Every committed table.
std::span<const RuntimeTable> runtimeTables();
// The table for a release ("go1.24.4" or "go1.24") and GOARCH, or null.
const RuntimeTable* runtimeTableFor(std::string_view go_version, std::string_view goarch);

// The table entry for one executable, as the C++ text runtime_tables.inc
// holds for it (the generator writes it; the tests compare it with the
// committed entry's text): from its DWARF `dwarf`, the wait reasons read
// from its data. An Error names what the DWARF lacks.
Expected<std::string> runtimeTableSource(const bin::DebugInfo& dwarf, const bin::Container& exe,
                                         std::string_view go_version, std::string_view goarch);
// The same text for a committed entry.
std::string runtimeTableSource(const RuntimeTable& t);
// The C++ name prefix of an entry's arrays ("kgo1_24_amd64").
std::string runtimeTableName(std::string_view go_version, std::string_view goarch);

}  // namespace goheap::core
