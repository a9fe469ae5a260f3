// One object as `goheap obj` shows it: its type and fields, its pointers
// out and in, its dominator and its allocation stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/labels.h"
#include "analysis/snapshot.h"
#include "typing/values.h"

namespace goheap::analysis {

struct Reference {
  // Within the holder; none when the holder has no contents (a goroutine's
  // g, a finalizer, defer or panic record).
  std::optional<uint64_t> offset;
  uint64_t slot_address = 0;  // address of the pointer word, with offset
  uint64_t value = 0;         // the pointer word (pointers out only)
  NodeLabel target;           // kind "non-heap" when it points outside the heap
  std::string field;          // with DWARF types: the word in the holder, as PathStep::field
};
// A frame of an allocation stack, as the dump records it, and with the
// executable the line where its function starts.
struct AllocFrame {
  std::string_view function;
  std::string_view file;
  uint64_t line = 0;
  int64_t function_start_line = 0;  // 0: unknown
  // With the executable: the frame is a call inlined into the function the
  // dump names (`function` is then the inlined one).
  bool inlined = false;
};

struct ObjectInfo {
  NodeLabel label;
  std::string type;                        // with DWARF types: "main.Session"; else empty
  std::vector<typing::FieldValue> fields;  // with DWARF types: its fields, decoded
  uint64_t size = 0;
  uint64_t retained = 0;
  bool reachable = false;
  bool runtime_metadata = false;  // a span's bitmaps, not an object (Snapshot::isRuntimeMetadata)
  NodeLabel idom;
  std::string shape;
  std::vector<Reference> pointers;      // out of this object, in offset order
  std::vector<Reference> referrers;     // into it: holder label and offset in the holder
  uint64_t referrer_count = 0;          // before any cut
  std::vector<AllocFrame> alloc_stack;  // leaf first; empty when not sampled
};
ObjectInfo objectInfo(const Snapshot& s, NodeId object, size_t max_referrers,
                      size_t max_fields = 64);

}  // namespace goheap::analysis
