// Asking a question as every front end asks it: through the question table
// (questions/catalog.h), its parameters given as the HTTP API's, its answer
// the JSON document of `goheap NAME --json` and /api/NAME. And the test
// programs' heaps to ask it of, with the report each program wrote of what
// it built: the oracle.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/snapshot.h"
#include "query/session.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "util/error.h"

namespace goheap::testing {

using QuestionParams = std::vector<std::pair<std::string, std::string>>;

// The JSON answer to the question `name`, or the Error reading its
// parameters or answering it.
Expected<std::string> questionJson(const std::string& name, const QuestionParams& params,
                                   const query::Session& current,
                                   const query::Session* base = nullptr);
// The same, parsed; Null with a test failure when there is no answer.
JsonValue askQuestion(const std::string& name, const QuestionParams& params,
                      const query::Session& current, const query::Session* base = nullptr);

// A test program's dump, opened with its executable, and its report.
struct ProgramHeap {
  SessionPtr session;
  JsonValue report;
};
// GOHEAP_TESTDUMPS_DIR/VERSION/PROG.dump with PROG and PROG.json; a null
// session with a test failure when it cannot be opened.
ProgramHeap openProgramHeap(const std::string& version, const std::string& prog);

// What the roots reach, found by a plain walk of the graph (no dominators):
// the objects and their bytes; with `removed` taken out of the graph, what
// is left (so the reachable objects minus these are what `removed`
// dominates).
struct Reached {
  uint64_t objects = 0, bytes = 0;
};
Reached reachedObjects(const analysis::Snapshot& s, NodeId removed = kNoNode);

}  // namespace goheap::testing
