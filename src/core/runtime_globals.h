// Finding the runtime's globals in a process whose executable has no symbol
// table (-ldflags=-s): runtime.firstmoduledata, runtime.mheap_,
// runtime.allgs and runtime.waitReasonStrings, at their link-time addresses.
//
// Why by their contents and not by decoding the code that references them:
// the contents can be checked so strongly that a false match is not
// plausible, and the same code serves amd64 and arm64 (and any release the
// table has), where instruction decoding would need a decoder per
// architecture and knowledge of which instruction of which function
// touches which global, which the compiler is free to change. Reconsidered
// for memstats and gcController (issue 28), which no content check can
// recognise: the runtime's own pointers to memstats anchor it for every
// release and architecture alike, so decoding is still not needed there.
// The typing pass does decode amd64 code now (bin/global_stores.h: which
// type the code allocates each global with), which could find
// gcController too, as the receiver the runtime passes to
// (*gcControllerState) methods, which it now does:
//   - firstmoduledata: the record whose first word points at the pclntab
//     header and whose other fields agree with it (bin/moduledata.h), found
//     in the executable's file.
//   - mheap_: the bss word at which, with the table's mheap layout, allspans
//     is a slice of spans each of which the heap's arena index
//     (mheap.arenas -> heapArena.spans) maps its first page back to.
//   - allgs: the bss slice of g pointers whose first g has goid 1 (the main
//     goroutine) and whose goids are distinct.
//   - waitReasonStrings: the data array of strings equal, one by one, to the
//     table's wait reasons for the release.
//   - memstats: a struct of counters with nothing to recognise it by, but
//     the runtime points at it: mheap_.spanalloc and .cachealloc were made
//     with &memstats.mspan_sys and &memstats.mcache_sys as their stat, and
//     both words must give the same base.
//   - gcController: no pointer leads to it, and its contents are counters
//     too. The code names it: the runtime calls gcControllerState's
//     methods (startCycle, heapGoalInternal, ...) with
//     `LEAQ runtime.gcController(SB), AX`, and the pclntab names the
//     methods in a stripped binary too (bin::findReceiverGlobal). amd64
//     only, as the decoder is; elsewhere its heapInUse, heapFree,
//     heapReleased and the GC goal stay unknown.
//   - mbuckets (the memory profile's list of buckets): the one global
//     that runtime.iterate_memprof, mProf_FlushLocked and stkbucket all
//     name in their code (bin::findGlobalNamedByAll; amd64 only).
// runtime.allglen (the slice's length is used instead) and runtime.inProgress
// (Go 1.24+: an empty byte, nothing to recognise it by) are not found.
#pragma once

#include <cstdint>

#include "bin/binary.h"
#include "core/memory_image.h"
#include "goruntime/runtime_table.h"
#include "util/error.h"

namespace goheap::core {

// Link-time addresses (add the memory image's bias for the process's).
struct RuntimeGlobals {
  uint64_t firstmoduledata = 0;
  uint64_t mheap = 0;
  uint64_t allgs = 0;
  uint64_t wait_reasons = 0;  // 0 when not found: the goroutines' wait reasons go unnamed
  uint64_t itab_table = 0;    // 0 when not found: interface values' dynamic types go unknown
  uint64_t memstats = 0;      // 0 when not found: memstats gives what the heap walk finds only
  // 0 when not found: HeapInuse, HeapIdle, HeapReleased, HeapSys, Sys and
  // NextGC stay unknown.
  uint64_t gc_controller = 0;
  // 0 when not found: the memory profile has only the sampled objects' buckets.
  uint64_t mbuckets = 0;
};

// Finds the globals of `exe`'s runtime in `mem` with the layouts of `table`:
// an Error naming the global not found (with the range searched).
Expected<RuntimeGlobals> findRuntimeGlobals(const bin::Binary& exe, const MemoryImage& mem,
                                            const goruntime::RuntimeTable& table);

}  // namespace goheap::core
