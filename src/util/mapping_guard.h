// Survives a mapped file that shrinks under us.
//
// goheap maps its dump and executable and reads them in place. When another
// program truncates the file (a Go service rewriting its dump with
// os.Create, say), a read of a page past the new end raises SIGBUS, which
// by default kills the process. A guarded mapping is instead replaced, on
// its first fault, by zero-filled pages of the same size, and marked as
// faulted; the read that faulted is retried and sees zeros. The code that
// read it runs on with meaningless but harmless bytes (every decoder is
// fuzzed against arbitrary bytes), and whoever owns the mapping asks
// faulted() before trusting what it computed: a command fails with a
// message, the server answers 409.
//
// The table of guarded ranges is process-wide because a signal handler can
// reach nothing else; it is a fixed array of atomics, so the handler takes
// no lock and allocates nothing.
#pragma once

#include <cstddef>

namespace goheap::mapping_guard {

// The capacity of the table. A mapping beyond it is not guarded (it still
// works; a truncation would then be fatal as before).
constexpr int kMaxGuarded = 256;

// Guards the mapping [begin, begin + size), page-aligned `begin`; installs
// the SIGBUS handler on first use. Returns the slot, or -1 when the table
// is full.
int guard(const void* begin, size_t size);
// Stops guarding a slot (before its memory is unmapped).
void release(int slot);
// Whether a read of the slot's mapping faulted since it was guarded.
bool faulted(int slot);

}  // namespace goheap::mapping_guard
