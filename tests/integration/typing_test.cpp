// Types from DWARF against tests/programs/zoo, which reports the address (%p)
// and the reflect type of each value it made: goheap must give at least 99%
// of them exactly that type, and type at least 95% of the reachable bytes.
// Run natively for Go 1.19 and 1.24, and under qemu-user for s390x
// (big-endian) and arm (32-bit).
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/queries.h"
#include "analysis/snapshot.h"
#include "support/json_value.h"

namespace goheap {
namespace {

using testing::JsonValue;

struct ZooCase {
  std::string name;
  std::string exe;  // EXE.dump and EXE.json beside it
};

void PrintTo(const ZooCase& c, std::ostream* os) {
  *os << c.exe;
}

std::vector<ZooCase> zooCases() {
  std::vector<ZooCase> cases;
  for (const std::string v : {"go1.19", "go1.24"}) {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + v;
    const std::string id = v == "go1.19" ? "go1_19" : "go1_24";
    cases.push_back({id + "_amd64", dir + "/zoo"});
    for (const std::string arch : {"s390x", "arm"}) {
      cases.push_back({id + "_" + arch, dir + "/cross/zoo-" + arch});
    }
  }
  return cases;
}

class ZooTypes : public ::testing::TestWithParam<ZooCase> {
 protected:
  void SetUp() override {
    const std::string& exe = GetParam().exe;
    if (!std::filesystem::exists(exe + ".dump")) {
      GTEST_SKIP() << exe << ".dump is missing (make-dumps.sh runs the cross builds under "
                   << "qemu-user when it is installed)";
    }
    report_ = JsonValue::parseFile(exe + ".json");
    auto snap = analysis::loadSnapshot(exe + ".dump");
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    snap_ = snap.take();
    Status s = analysis::attachExecutable(*snap_, exe);
    ASSERT_TRUE(s.ok()) << s.error().message();
    Status t = analysis::typeObjects(*snap_);
    ASSERT_TRUE(t.ok()) << t.error().message();
  }
  JsonValue report_;
  std::unique_ptr<analysis::Snapshot> snap_;
};

TEST_P(ZooTypes, EveryReportedValueHasItsType) {
  size_t right = 0, total = 0;
  std::string wrong;
  for (const JsonValue& v : report_["values"].items()) {
    total++;
    auto o = analysis::objectAt(*snap_, v["addr"].hexAddress());
    std::string got = "(no object)";
    if (o) got = snap_->namer().typeName(*o);
    if (got == v["type"].str()) {
      right++;
    } else {
      wrong += "  " + v["what"].str() + " at " + v["addr"].str() + ": want " + v["type"].str() +
               ", got " + (got.empty() ? "(untyped)" : got) + "\n";
    }
  }
  ASSERT_GT(total, 40u);
  EXPECT_GE(right * 100, total * 99) << right << " of " << total << " typed right:\n" << wrong;
}

TEST_P(ZooTypes, MostReachableBytesAreTyped) {
  const analysis::Summary sum = analysis::summarize(*snap_, 0);
  ASSERT_TRUE(sum.typed);
  EXPECT_GE(sum.typed_bytes * 100, sum.reachable_bytes * 95)
      << sum.typed_bytes << " of " << sum.reachable_bytes << " reachable bytes typed; "
      << sum.typed_objects << " of " << sum.reachable_objects << " objects";
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooTypes, ::testing::ValuesIn(zooCases()),
                         [](const auto& p) { return p.param.name; });

}  // namespace
}  // namespace goheap
