// The wait reasons' classes against the runtime's own (runtime2.go's
// isChanWait, isSyncWait and the waits that can never end).
#include "goruntime/wait_reasons.h"

#include <gtest/gtest.h>

namespace goheap::goruntime {
namespace {

TEST(WaitReasons, ClassesAsTheRuntimesLeakDetectionSeesThem) {
  EXPECT_EQ(blockingWaitOf("chan receive"), BlockingWait::Channel);
  EXPECT_EQ(blockingWaitOf("select"), BlockingWait::Channel);
  EXPECT_EQ(blockingWaitOf("select (no cases)"), BlockingWait::Forever);
  EXPECT_EQ(blockingWaitOf("chan send (nil chan)"), BlockingWait::Forever);
  EXPECT_EQ(blockingWaitOf("semacquire"), BlockingWait::Sync);
  EXPECT_EQ(blockingWaitOf("sync.WaitGroup.Wait"), BlockingWait::Sync);
  EXPECT_EQ(blockingWaitOf("sleep"), BlockingWait::None);
  EXPECT_EQ(blockingWaitOf("IO wait"), BlockingWait::None);
  EXPECT_EQ(blockingWaitOf("chan receive (durable)"), BlockingWait::None);
}

}  // namespace
}  // namespace goheap::goruntime
