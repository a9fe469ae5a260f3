// goruntime::RuntimeTable: the layouts of the runtime structures the core
// readers use, per Go release and architecture, for executables built with
// -ldflags='-s -w', which have no DWARF to read them from. The table is data
// generated from each toolchain's DWARF (runtime_tables.inc, written by
// tools/runtime-layouts/ through core/runtime_table_source.h) and holds only
// what the readers ask for: struct sizes, field offsets and widths, array
// lengths, and the wait reasons' names (runtime.waitReasonStrings), plus
// _defer, _panic and itab for the readers to come. core/runtime_types.h turns
// one entry into a small bin::DebugInfo, so the readers read it as they read
// DWARF.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace goheap::goruntime {

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

// An entry with its own strings, as the generator reads it from DWARF: what
// runtimeTableSource prints.
struct RuntimeTableEntry {
  std::string go_version, goarch;
  std::vector<std::pair<std::string, uint64_t>> structs;
  struct Field {
    std::string owner, name;
    uint64_t offset, size, count, inner_count;
    std::string type;
  };
  std::vector<Field> fields;
  std::vector<std::string> wait_reasons;
};

// The C++ text runtime_tables.inc holds for an entry (the generator writes
// it; the tests compare a fresh entry's text with the committed one's).
std::string runtimeTableSource(const RuntimeTableEntry& e);
std::string runtimeTableSource(const RuntimeTable& t);
// The C++ name prefix of an entry's arrays ("kgo1_24_amd64").
std::string runtimeTableName(std::string_view go_version, std::string_view goarch);
// The release a version belongs to, as the tables name it: "go1.24" for
// "go1.24.4"; the version itself when it is not a go1.N one.
std::string releaseName(std::string_view go_version);

}  // namespace goheap::goruntime
