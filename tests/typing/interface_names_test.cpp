// ObjectNamer finds an object's interface type through its referrers until
// that has cost about one full scan, then scans every slot once. Both ways
// must name every object alike; checked on real dumps, where interfaces,
// self references, globals and stack frames all point at objects.
#include <gtest/gtest.h>

#include <string>

#include "analysis/snapshot.h"
#include "support/go_versions.h"
#include "support/open_heap.h"
#include "support/param_names.h"
#include "typing/names.h"

namespace goheap::typing {
namespace {

class InterfaceNames : public ::testing::TestWithParam<std::string> {};

TEST_P(InterfaceNames, ReferrerLookupAgreesWithTheFullScan) {
  const std::string path =
      std::string(GOHEAP_SOURCE_DIR) + "/tests/fixtures/" + GetParam() + "/retention.dump";
  auto loaded = goheap::testing::openSnapshot(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  const analysis::Snapshot& snap = **loaded;

  ObjectNamer scanned(snap.model, snap.heap);
  scanned.group(GroupKind::Name);  // runs the full scan
  uint32_t named = 0;
  for (NodeId o = 0; o < snap.heap.objectCount(); o++) {
    // A fresh namer per object, so that each lookup goes through referrers.
    const ObjectNamer fresh(snap.model, snap.heap);
    const std::string_view expected = scanned.interfaceTypeOf(o);
    EXPECT_EQ(fresh.interfaceTypeOf(o), expected) << "object " << o;
    if (!expected.empty()) named++;
  }
  // The retention program stores values in interfaces on purpose, so the
  // comparison covers objects that have a name as well as those without.
  EXPECT_GT(named, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, InterfaceNames,
                         ::testing::ValuesIn(goheap::testing::fixtureNames()),
                         goheap::testing::pathParamName);

}  // namespace
}  // namespace goheap::typing
