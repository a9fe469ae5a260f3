#include "support/reported_types.h"

#include "analysis/slots.h"

namespace goheap::testing {

ReportedTypes checkReportedTypes(const analysis::Snapshot& snap, const JsonValue& values) {
  ReportedTypes r;
  for (const JsonValue& v : values.items()) {
    r.total++;
    auto o = analysis::objectAt(snap, v["addr"].hexAddress());
    const std::string got = o ? snap.namer().typeName(*o) : "(no object)";
    if (got == v["type"].str()) {
      r.right++;
    } else {
      if (got.empty()) r.untyped++;
      r.wrong += "  " + v["what"].str() + " at " + v["addr"].str() + ": want " + v["type"].str() +
                 ", got " + (got.empty() ? "(untyped)" : got) + "\n";
    }
  }
  return r;
}

}  // namespace goheap::testing
