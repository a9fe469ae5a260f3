// The truth of tests/programs/goleak, which the tests of the goroutine leak
// analysis check a heap of it against: dumps and cores
// (tests/analysis/goroutine_leaks_test.cpp) and snaps (tests/acquire).
#pragma once

#include "analysis/snapshot.h"
#include "support/json_value.h"

namespace goheap::testing {

// The leaks analysis of `s`, a heap of the goleak program, against the
// program's report `truth`: the leaked goroutines by blocking function
// exactly, every leak the runtime's own profile reported, and what they
// retain together. `with_dwarf`: the layouts must come from DWARF (else
// from the table).
void expectGoleakTruth(const analysis::Snapshot& s, const JsonValue& truth, bool with_dwarf);

}  // namespace goheap::testing
