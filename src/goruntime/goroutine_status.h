// A goroutine's status, as runtime2.go numbers it (the same numbers in every
// release goheap reads), and what goheap calls each one. The numbers are
// stored in runtime.g's atomicstatus, written by a heap dump's goroutine
// record and read from a core; the names are the runtime traceback's
// (gStatusStrings) and goheap's own, longer ones.
#pragma once

#include <cstdint>
#include <string_view>

namespace goheap::goruntime {

enum GStatus : uint32_t {
  kGidle = 0,        // just allocated, not yet initialised
  kGrunnable = 1,    // on a run queue, not running
  kGrunning = 2,     // on a thread, running user code
  kGsyscall = 3,     // in a system call, not running user code
  kGwaiting = 4,     // blocked in the runtime: the wait reason says on what
  kGdead = 6,        // unused: exited, or on a free list
  kGcopystack = 8,   // its stack being moved
  kGpreempted = 9,   // stopped itself for a suspendG preemption
  kGleaked = 10,     // Go 1.26+ (GOEXPERIMENT=goroutineleakprofile), 1.27
  kGdeadextra = 11,  // Go 1.26+: dead, kept for a cgo callback's thread
  kGscan = 0x1000,   // or'ed in while the GC scans the stack
};

// The status without the scan bit.
constexpr uint64_t withoutScanBit(uint64_t status) {
  return status & ~uint64_t{kGscan};
}

// The name the runtime's traceback prints for a status (gStatusStrings),
// scan bit dropped; "???" for one it does not know.
std::string_view gStatusName(uint64_t status);

// What goheap's goroutine listings say of a status: the traceback's name,
// except "leaked (marked by the runtime)"; "unknown" for one it does not know.
std::string_view gStatusDescription(uint64_t status);

}  // namespace goheap::goruntime
