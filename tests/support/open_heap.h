// Opening a heap in a test as every front end opens one (query::open), with
// no output: the Snapshot (or the Session, for queries) of a real dump.
#pragma once

#include <memory>
#include <string>

#include "analysis/snapshot.h"
#include "query/open.h"
#include "util/error.h"

namespace goheap::testing {

using SnapshotPtr = std::shared_ptr<const analysis::Snapshot>;
using SessionPtr = std::shared_ptr<const query::Session>;

// `exe` may be empty; when it cannot be used the snapshot says why
// (exe_problem, types_problem).
// `types`: type the objects from the executable's DWARF (as every command does).
Expected<SessionPtr> openSession(const std::string& dump, const std::string& exe = {},
                                 bool types = true);
Expected<SnapshotPtr> openSnapshot(const std::string& dump, const std::string& exe = {},
                                   bool types = true);
// Opens `snap`'s dump again with `exe`, as `goheap CMD DUMP EXE` would: an
// Error (Snapshot::exe_problem) when the executable is not used.
Status reopenWithExecutable(SnapshotPtr& snap, const std::string& exe, bool types = true);
// Whether the snapshot has DWARF types, else why not.
Status typesOf(const analysis::Snapshot& snap);
// A dump already read (the stages after the reader), as a Session.
SessionPtr sessionOf(std::unique_ptr<analysis::Snapshot> snapshot);

}  // namespace goheap::testing
