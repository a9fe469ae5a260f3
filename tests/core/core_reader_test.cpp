// core::CoreReader's stages when the runtime's types lack what a stage
// needs: each says why, naming what is missing, rather than reading with a
// layout it does not have. The stages over real cores are tested through
// their callers (core_model_test.cpp, kernel_core_test.cpp's core-info).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/core_reader.h"
#include "core/heap_walk.h"
#include "support/core_builder.h"

namespace goheap {
namespace {

// Whether error `e` names `what`, with the message when it does not.
::testing::AssertionResult names(const Error& e, const std::string& what) {
  if (e.message().find(what) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << e.message() << "\" does not name " << what;
}

TEST(CoreReader, StagesWithoutTheRuntimeLayoutSayWhatIsMissing) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/coreprog";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << exe << " is missing (make-dumps.sh builds it)";
  auto binary = bin::Binary::open(exe);
  ASSERT_TRUE(binary) << binary.error().message();
  const std::vector<uint8_t> bytes =
      testsupport::CoreBuilder().segment(0x10000, std::vector<uint8_t>(64, 0)).build();
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  // Runtime types without a single type or global, as a stripped
  // executable's would be with no layout table.
  const bin::DebugInfo none = bin::DebugInfo::fromParts({}, {}, {});
  const core::CoreReader reader(*core, *binary, 0, none);

  ASSERT_FALSE(reader.spanLayout());
  EXPECT_TRUE(names(reader.spanLayout().error(), "runtime.mheap_"));
  ASSERT_FALSE(reader.heapBitsLayout());

  const Expected<core::HeapObjects> heap = reader.walkHeap(nullSink());
  ASSERT_FALSE(heap);
  EXPECT_TRUE(names(heap.error(), "runtime.mheap_"));
  const Expected<core::PointerMasks> masks =
      reader.readPointerMasks(core::HeapObjects{}, nullSink());
  ASSERT_FALSE(masks);
  EXPECT_TRUE(names(masks.error(), "runtime.mheap_"));
  const Expected<core::Specials> specials = reader.readSpecials(nullSink());
  ASSERT_FALSE(specials);
  EXPECT_TRUE(names(specials.error(), "runtime.mheap_"));
  const Expected<core::Goroutines> goroutines = reader.readGoroutines(nullSink());
  ASSERT_FALSE(goroutines);
  EXPECT_TRUE(names(goroutines.error(), "runtime.g"));
}

}  // namespace
}  // namespace goheap
