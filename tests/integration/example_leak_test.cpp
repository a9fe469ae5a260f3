// examples/leaky.dump: the example program leaks one goroutine per
// recommendation lookup that missed its 10 ms timeout (about 15; the number
// depends on timing), each blocked in `result <- r` and the only holder of a
// *Recommendations with an 8 KiB Blob (examples/leaky/main.go). The value being
// sent lives in an address-taken stack slot that the dump's frame field
// lists leave out, so this checks the conservative frame scan too.
#include <gtest/gtest.h>

#include "analysis/goroutine_info.h"
#include "analysis/snapshot.h"
#include "dump/reader.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

TEST(ExampleLeak, EachBlockedSenderRetainsItsEightKibBlob) {
  auto snap =
      goheap::testing::openSnapshot(std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump");
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  int leaked = 0;
  for (const analysis::GoroutineInfo& g : analysis::goroutines(**snap)) {
    bool in_lookup = false;
    for (const analysis::FrameInfo& f : g.frames)
      in_lookup |= f.function == "main.lookupRecommendations";
    if (!in_lookup || g.wait_reason != "chan send") continue;
    leaked++;
    EXPECT_GE(g.retained, 8192u) << "goroutine " << g.id;
  }
  EXPECT_GE(leaked, 5);
}

TEST(ExampleLeak, ListedFrameSlotsAloneWouldCallTheBlobsGarbage) {
  // The reason for the conservative scan, kept as a test: without it the
  // senders' values are unreachable.
  auto d = dump::readDumpFile(std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump");
  ASSERT_TRUE(d.ok());
  analysis::LoadOptions options;
  options.conservative_stacks = false;
  auto snap = analysis::buildSnapshot(d.take(), options);
  ASSERT_TRUE(snap.ok());
  int senders = 0;
  for (const analysis::GoroutineInfo& g : analysis::goroutines(**snap)) {
    if (g.wait_reason == "chan send") {
      senders++;
      EXPECT_LT(g.retained, 8192u);
    }
  }
  EXPECT_GE(senders, 5) << "the blocked senders of the test above";
}

}  // namespace
}  // namespace goheap
