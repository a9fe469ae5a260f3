// The NEW dump of tests/programs/leaks with its report (the oracle), loaded
// once per toolchain and per with/without the executable, for the dups and
// waste tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "analysis/snapshot.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap::testing {

struct LeaksDump {
  JsonValue report;
  goheap::testing::SnapshotPtr snap;
};

// Null (with a test failure) when the dump cannot be loaded; a skip is the
// caller's when the files are missing.
inline const LeaksDump* leaksDump(const std::string& version, bool with_exe) {
  static std::map<std::pair<std::string, bool>, std::unique_ptr<LeaksDump>> cache;
  auto& slot = cache[{version, with_exe}];
  if (slot) return slot.get();
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version;
  if (!std::filesystem::exists(dir + "/leaks.dump")) return nullptr;
  auto d = std::make_unique<LeaksDump>();
  d->report = JsonValue::parseFile(dir + "/leaks.json");
  auto snap = goheap::testing::openSnapshot(dir + "/leaks.dump");
  if (!snap.ok()) {
    ADD_FAILURE() << snap.error().message();
    return nullptr;
  }
  d->snap = snap.take();
  if (with_exe) {
    if (!goheap::testing::reopenWithExecutable(d->snap, dir + "/leaks").ok() ||
        !goheap::testing::typesOf(*d->snap).ok()) {
      ADD_FAILURE() << "cannot type " << dir << "/leaks.dump with its executable";
      return nullptr;
    }
  }
  slot = std::move(d);
  return slot.get();
}

// The report's addresses as numbers.
inline std::set<uint64_t> reportAddresses(const JsonValue& list) {
  std::set<uint64_t> out;
  for (const JsonValue& a : list.items()) out.insert(a.hexAddress());
  return out;
}

// The same, with a test failure saying how to make the dump when it is
// missing (the dups and waste tests need it).
inline const LeaksDump* requireLeaksDump(const std::string& version, bool with_exe) {
  const LeaksDump* d = leaksDump(version, with_exe);
  if (d == nullptr && !::testing::Test::HasFailure()) {
    ADD_FAILURE() << version << "/leaks.dump is missing: tests/programs/make-dumps.sh makes it";
  }
  return d;
}

}  // namespace goheap::testing
