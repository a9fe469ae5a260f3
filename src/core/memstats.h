// core::readMemStats: runtime.MemStats as runtime.ReadMemStats would have
// reported it when the process died, from the runtime's raw state in the
// core. ReadMemStats stops the world, flushes every P's mcache and then
// derives its numbers (readmemstats_m in mstats.go); a core is none of
// that, so each field comes from where it can be read without the flush:
//  - HeapAlloc, Alloc, HeapObjects: the heap walk's allocated objects (what
//    the flush would count: a slot is allocated until the sweeper frees it,
//    a tiny block is one object, a large object its whole span);
//  - HeapInuse, HeapSys, HeapIdle, HeapReleased: gcController.heapInUse,
//    heapFree and heapReleased, which the allocator keeps current;
//  - StackInuse, StackSys, GCSys, Sys: the same sums as readmemstats_m of
//    runtime.memstats' *_sys counters and the consistent heap stats' stack,
//    work buffer and pointer bitmap bytes (summed over their three
//    generations, which are only moved between, never cached per P);
//  - NumGC, PauseTotalNs, PauseNs, LastGC: runtime.memstats as they are;
//  - NextGC: gcController's heap goal for GOGC with the adjustments of
//    heapGoalInternal (sweep distance, the minimum runway past the trigger),
//    known only while no memory limit is set (a limit's goal depends on
//    totals the mcaches hold back);
//  - MSpanInuse, MCacheInuse: mheap_.spanalloc and cachealloc.
// TotalAlloc, Mallocs and Frees are cumulative counts of which each P's
// mcache holds back a part until it is flushed: they stay unknown, as does
// anything whose runtime field the executable's DWARF does not have (a
// stripped executable's layout table has none of these: no memstats).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bin/debug_info.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "model/heap_model.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

struct CoreMemStats {
  model::MemStats stats;  // `known` says which fields were derived
};

// Reads the memstats of the process in `mem` whose runtime types and
// globals `dwarf` describes, with its heap as `heap` found it. An Error when
// runtime.memstats itself cannot be read (no such global, as in a stripped
// executable, or not in the core): then there are no memstats at all. Each
// runtime field that could not be read is a warning told to `told`,
// naming it.
Expected<CoreMemStats> readMemStats(const MemoryImage& mem, const bin::DebugInfo& dwarf,
                                    const HeapObjects& heap, Sink& told);

// Where an integer field of a runtime global lies at link time (add the
// load bias for a position-independent executable) and its width, 4 or 8
// bytes: `global` "runtime.gcController", `path` "heapInUse" (dotted for a
// nested field). goheap watch reads it from a running process between
// snaps, as readMemStats reads it from a core. An Error naming what the
// executable's DWARF lacks.
struct RuntimeField {
  uint64_t address = 0;
  uint32_t width = 0;
};
Expected<RuntimeField> runtimeField(const bin::DebugInfo& dwarf, std::string_view global,
                                    std::string_view path);

}  // namespace goheap::core
