// How many of the values a test program reports (their address, %p, and
// reflect's type) a snapshot types exactly as the program says: the typing
// oracle of tests/programs/zoo, for a dump and for a core alike.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/snapshot.h"
#include "support/json_value.h"

namespace goheap::testing {

struct ReportedTypes {
  size_t right = 0, total = 0;
  size_t untyped = 0;  // of the others, those given no type at all (the rest are misnamed)
  std::string wrong;   // one line per value typed otherwise
};

// `values`: [{addr, type, what}], as zoo reports them.
ReportedTypes checkReportedTypes(const analysis::Snapshot& snap, const JsonValue& values);

}  // namespace goheap::testing
