// core::readProcessMemory: every mapped byte of a process in its core, put
// into one category of model::ProcessMemory (`goheap memory`).
//
// The mappings are the snap note's (every line of /proc/PID/maps, with its
// Rss) when the core is a snap's, else the core's PT_LOAD segments named by
// NT_FILE: a kernel core lists every mapping, gdb's gcore only those it
// wrote. A byte goes to the first of these that claims it:
//  1. The Go runtime's structures: the heap arenas of mheap_.arenas and in
//     them the spans (in use: objects and fragmentation; manual: goroutine
//     stacks; the rest of the arena's accessible memory: free, or released
//     as far as memstats' HeapReleased says); the heapArena structs, the
//     arena index's second level, runtime.persistentChunks, the page
//     allocator's summaries and bitmaps and the memory profile's hash table:
//     metadata; the g0 stacks of allm's threads: thread stacks.
//  2. File mappings: the executable (and its bss) and libraries, or files.
//  3. glibc's malloc, by its own structures: chunks mapped one by one
//     (IS_MMAPPED in the size word) and a non-main arena's heap_info at a
//     64 MiB boundary. These come before thread stacks, whose evidence is
//     a whole mapping, and the kernel merges a pthread stack with chunks
//     mapped just above it.
//  4. Thread stacks: the main thread's (where the auxiliary vector points),
//     a mapping holding a thread's stack pointer, or one just above a
//     guard page (glibc's pthread stacks, which cgo's threads run on).
//  5. The main arena's brk heap: snap's [heap], else the first mapping
//     above the executable whose chunks tile it.
//  6. Reserved: address space without access (PROT_NONE).
//  7. Other: the rest.
// Only a snap knows residency: each mapping's Rss goes to its categories in
// proportion to their bytes, none to released or reserved memory.
#pragma once

#include <cstdint>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "model/heap_model.h"
#include "model/process_memory.h"

namespace goheap::core {

struct ProcessMemoryInputs {
  const CoreFile* core = nullptr;
  const MemoryImage* memory = nullptr;
  const bin::Binary* executable = nullptr;
  uint64_t bias = 0;
  const bin::DebugInfo* runtime_types = nullptr;  // for runtime.persistentChunks
  const RuntimeLayout* layout = nullptr;
  const HeapBitsLayout* bits = nullptr;
  const HeapObjects* heap = nullptr;
  const model::MemStats* memstats = nullptr;  // for HeapReleased; may be absent
};

model::ProcessMemory readProcessMemory(const ProcessMemoryInputs& in);

}  // namespace goheap::core
