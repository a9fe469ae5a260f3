// What a heap dump file says of itself that no other source of a heap model
// has (docs/dump-format.md). The dump reader fills it; the model carries it
// (HeapModel::heap_dump) for the index cache, which stores a heap dump's model
// whole, and for the reader's tests. Nothing that analyses the heap reads it.
#pragma once

#include <array>
#include <cstdint>

#include "goruntime/heap_dump_format.h"
#include "util/column.h"

namespace goheap::model {

// The header line selects the record layouts (see docs/dump-format.md).
using goruntime::FormatVersion;

// Record tags 0 to 17 (dump::Tag).
inline constexpr uint64_t kDumpTagCount = 18;

// go1.3 objects' type index when the type record is missing or unusable
// (every word may be a pointer), or when the runtime gave no type because the
// object holds no pointers (type address 0, kind 0).
constexpr uint32_t kUnknownType = UINT32_MAX;
constexpr uint32_t kNoPointerType = UINT32_MAX - 1;

struct HeapDumpFacts {
  FormatVersion version = FormatVersion::Go17;
  // How many records of each tag (dump::Tag) the file holds.
  std::array<uint64_t, kDumpTagCount> record_counts{};
  uint64_t hchan_size = 0;  // go1.3 only
  uint64_t thechar = 0;     // before go1.7: '6' amd64, '8' 386, '5' arm, ...
  // go1.3 only, one an object in the model's object order (sorting the
  // objects permutes them too): the type record's address and the object
  // kind (0 plain, 1 array, 2 channel, 127 conservative), from which the
  // reader made the object's layout, and the type record's index in
  // HeapModel::types, or kUnknownType (scan every word) or kNoPointerType.
  Column<uint64_t> object_type_addr;
  Column<uint32_t> object_type_index;
  Column<uint8_t> object_kind;
};

}  // namespace goheap::model
