// dups, asked through the question table of tests/programs/leaks's heap: the
// copies of one string, one []byte and one Config the program made are one
// group each, with the program's count, size and addresses.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "support/ask_question.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

using testing::JsonValue;

class DupsQuestion : public ::testing::TestWithParam<std::string> {};

TEST_P(DupsQuestion, TheProgramsCopiesAreOneGroupEach) {
  const testing::ProgramHeap heap = testing::openProgramHeap(GetParam(), "leaks");
  ASSERT_TRUE(heap.session);
  const JsonValue dups = testing::askQuestion("dups", {{"limit", "0"}}, *heap.session);
  for (const auto& [made, kind] :
       {std::pair{"dup_string", "string"}, std::pair{"dup_bytes", "bytes"},
        std::pair{"identical_configs", "object"}}) {
    SCOPED_TRACE(made);
    const JsonValue& want = heap.report[made];
    std::set<std::string> addrs;
    for (const JsonValue& a : want["addrs"].items()) addrs.insert(a.str());
    const JsonValue* group = nullptr;
    for (const JsonValue& g : dups["groups"].items()) {
      if (addrs.contains(g["addresses"][size_t{0}].str())) group = &g;
    }
    ASSERT_NE(group, nullptr) << "no group holds the program's copies";
    EXPECT_EQ((*group)["kind"].str(), kind);
    EXPECT_EQ((*group)["copies"].u64(), want["copies"].u64());
    EXPECT_EQ((*group)["size"].u64(), want["size"].u64());
    EXPECT_EQ((*group)["wasted"].u64(), (want["copies"].u64() - 1) * want["size"].u64());
    for (const JsonValue& a : (*group)["addresses"].items()) {
      EXPECT_TRUE(addrs.contains(a.str())) << a.str() << " is not one of the program's copies";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Questions, DupsQuestion, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
