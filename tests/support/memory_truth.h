// The truth of tests/programs/memprog, which `goheap memory` of a core or a
// snap of it is checked against (tests/core/process_memory_test.cpp,
// tests/acquire/snap_test.cpp): what it malloc'd in C, mapped, parked and
// freed, and its own runtime.MemStats.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "support/json_value.h"

namespace goheap::testing {

// |got - want| <= fraction * want, saying what is not.
::testing::AssertionResult withinFraction(const char* what, uint64_t got, uint64_t want,
                                          double fraction);

// Checks `memory`, goheap memory's JSON of a heap of memprog, against the
// program's report `truth`: the categories add up to the total, `other` is
// at most 5% of it, the heap, stacks and C heap within a few percent of
// what the program says, its mapped file counted (but by gcore, which
// leaves shared file mappings out).
void expectMemoryTruth(const JsonValue& memory, const JsonValue& truth, bool gcore = false);

// A snap's resident total: within 5% of the kernel's Rss of the process,
// which the test reads before and after the snap (`rss_before`,
// `rss_after`: the runtime's scavenger may return memory in between).
void expectResidentTruth(const JsonValue& memory, uint64_t rss_before, uint64_t rss_after);

}  // namespace goheap::testing
