// Precise scanning of a core's goroutine stacks, as the Go collector and the
// heap dumper do it (runtime/heapdump.go dumpframe, runtime/mgcmark.go
// scanstack and scanframeworker, runtime/stkframe.go getStackMap): for each
// physical frame of each goroutine core::readGoroutines unwound, the words of
// the frame that hold live pointers by the compiler's stack maps; the
// frame's stack objects and which of them the collector would scan; and
// each goroutine's pending defers and panics.
//
// The pointer words are listed the way the heap dumper lists them, so that
// they compare word for word with a heap dump of the same goroutine: a
// frame holds its own locals (FUNCDATA_LocalsPointerMaps at the PC's
// PCDATA_StackMapIndex) and the outgoing arguments of the frame it called
// (that callee's FUNCDATA_ArgsPointerMaps), with the dumper's conservative
// fallbacks when a map is missing. Go 1.19 and 1.24 through 1.27 (amd64 and
// arm64); frames the runtime would scan conservatively (asynchronous
// preemption) are listed by their maps all the same.
//
// Usage: Goroutines from readGoroutines, then
//   auto scan = core::scanStacks(*goroutines, mem, exe, dwarf, bias);
//   for (const StackScanFrame& f : scan->frames) for (uint64_t off : scan->offsetsOf(f)) ...
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/goroutines.h"
#include "core/memory_image.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

// One physical frame (the inlined calls at its PC are not frames here).
struct StackScanFrame {
  uint32_t goroutine = 0;  // index into Goroutines::goroutines
  uint32_t depth = 0;      // 0 for the innermost frame of its goroutine
  uint64_t sp = 0;
  uint64_t fp = 0;  // the caller's SP: the frame is [sp, fp)
  uint64_t entry = 0, pc = 0;
  // Where the function continues (pc, but after a runtime.sigpanic call the
  // deferreturn call, or 0 for a frame that will not resume).
  uint64_t continpc = 0;
  std::string_view function;  // a view into the executable
  // Into StackScan::offsets: byte offsets from sp of the live pointer
  // words, ascending, as the heap dumper lists them.
  uint32_t first_offset = 0, offset_count = 0;
  // Into StackScan::objects: the frame's stack objects.
  uint32_t first_object = 0, object_count = 0;
};

// A stack object (FUNCDATA_StackObjects): an addressed local or argument
// whose liveness the collector decides by whether a live stack word points
// into it.
struct StackObject {
  uint64_t addr = 0;  // frame's varp or argp plus the record's offset
  uint32_t size = 0, ptr_bytes = 0;
  uint32_t frame = 0;    // index into StackScan::frames
  bool scanned = false;  // reached from a live word, transitively
  // Into StackScan::object_offsets: byte offsets from addr of its pointer
  // words (by its GC mask), ascending.
  uint32_t first_offset = 0, offset_count = 0;
};

// A g._defer record, as the heap dumper writes it (model::Defer).
struct StackDefer {
  uint32_t goroutine = 0;
  uint64_t addr = 0, sp = 0, pc = 0;
  uint64_t fn_val = 0, fn_pc = 0;  // the func value and its code (0, 0 for an open-coded defer)
  uint64_t link = 0;
};

// A g._panic record, as the heap dumper writes it (model::Panic).
struct StackPanic {
  uint32_t goroutine = 0;
  uint64_t addr = 0;
  uint64_t eface_type = 0, eface_data = 0;  // the panic value
  uint64_t link = 0;
};

// Dense columns for every goroutine, in Goroutines order; a goroutine's
// frames, defers and panics are contiguous.
struct StackScan {
  std::vector<StackScanFrame> frames;
  std::vector<uint64_t> offsets;
  std::vector<StackObject> objects;
  std::vector<uint32_t> object_offsets;
  std::vector<StackDefer> defers;
  std::vector<StackPanic> panics;

  std::span<const uint64_t> offsetsOf(const StackScanFrame& f) const {
    return std::span<const uint64_t>(offsets).subspan(f.first_offset, f.offset_count);
  }
  std::span<const StackObject> objectsOf(const StackScanFrame& f) const {
    return std::span<const StackObject>(objects).subspan(f.first_object, f.object_count);
  }
  std::span<const uint32_t> offsetsOf(const StackObject& o) const {
    return std::span<const uint32_t>(object_offsets).subspan(o.first_offset, o.offset_count);
  }
};

// Scans the stacks of `gs` (read from `mem` by readGoroutines with the same
// `exe`, `dwarf` and load `bias`). An Error only when the DWARF lacks the
// runtime's _defer, _panic or moduledata fields, or the executable its
// module layout; everything unreadable in the core (frames, maps or
// records, each naming the address; a frame whose map cannot be read has no
// offsets) is a warning told to `told`.
Expected<StackScan> scanStacks(const Goroutines& gs, const MemoryImage& mem, const bin::Binary& exe,
                               const bin::DebugInfo& dwarf, uint64_t bias, Sink& told);

}  // namespace goheap::core
