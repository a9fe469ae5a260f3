// The heap dump format's own vocabulary: its header versions and record tags
// (docs/dump-format.md). Only the reader and its tests use it; the model the
// reader fills is source-neutral (model/heap_model.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "goruntime/heap_dump_format.h"
#include "model/heap_dump_facts.h"

namespace goheap::dump {

using goruntime::formatVersionName;
using model::FormatVersion;

enum class Tag : uint8_t {
  Eof = 0,
  Object = 1,
  OtherRoot = 2,
  Type = 3,
  Goroutine = 4,
  StackFrame = 5,
  Params = 6,
  Finalizer = 7,
  Itab = 8,
  OsThread = 9,
  MemStats = 10,
  QueuedFinalizer = 11,
  Data = 12,
  Bss = 13,
  Defer = 14,
  Panic = 15,
  MemProf = 16,
  AllocSample = 17,
};
constexpr uint64_t kTagCount = model::kDumpTagCount;
std::string_view tagName(uint64_t tag);  // "object", "stack frame", ... or "unknown"

// Field kinds, normalised across versions (go1.3 numbers them differently).
enum class FieldKind : uint8_t { Ptr = 1, String, Slice, Iface, Eface };

}  // namespace goheap::dump
