// core::readRuntimeLayout over the retention program's executables of each Go
// release: runtime.mheap_'s address must be the ELF symbol's that Go's own
// debug/elf reads (the binoracle's EXE.symtab.json), and the span fields
// the widths the runtime's sources declare (mheap.go: freeindex and nelems
// uintptr in Go 1.19, uint16 in 1.24 and later; startAddr, npages, elemsize
// uintptr; allocBits a pointer; state an mSpanStateBox of one byte).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/runtime_layout.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;

class RuntimeLayoutOf : public ::testing::TestWithParam<std::string> {};

TEST_P(RuntimeLayoutOf, MatchesTheSymbolTableAndTheRuntimeSources) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/retention";
  if (!std::filesystem::exists(exe + ".symtab.json")) {
    GTEST_SKIP() << exe << ".symtab.json is missing (tests/programs/make-dumps.sh writes it)";
  }
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  auto dwarf = bin::DebugInfo::read(binary->container());
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  auto layout = core::readRuntimeLayout(*dwarf, 8);
  ASSERT_TRUE(layout) << layout.error().message();

  uint64_t symbol = 0;
  for (const JsonValue& s : JsonValue::parseFile(exe + ".symtab.json")["symbols"].items()) {
    if (s.has("name") && s["name"].str() == "runtime.mheap_") symbol = s["value"].hexAddress();
  }
  ASSERT_NE(symbol, 0u) << "no runtime.mheap_ in the symbol table";
  EXPECT_EQ(layout->mheap_addr, symbol);

  // uintptr until Go 1.22 made them uint16.
  const uint32_t index_width = GetParam() == "go1.19" || GetParam() == "go1.21" ? 8 : 2;
  EXPECT_EQ(layout->span_freeindex.size, index_width);
  EXPECT_EQ(layout->span_nelems.size, index_width);
  EXPECT_EQ(layout->span_start_addr.size, 8u);
  EXPECT_EQ(layout->span_start_addr.offset, 24u);  // after next, prev and list
  EXPECT_EQ(layout->span_npages.size, 8u);
  EXPECT_EQ(layout->span_elemsize.size, 8u);
  EXPECT_EQ(layout->span_alloc_bits.size, 8u);
  EXPECT_EQ(layout->span_state.size, 1u);
  EXPECT_GT(layout->mspan_size, layout->span_elemsize.offset);
}

INSTANTIATE_TEST_SUITE_P(Versions, RuntimeLayoutOf,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
