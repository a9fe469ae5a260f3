// The status names against the runtime's traceback (runtime/traceback.go's
// gStatusStrings, Go 1.26+), which prints them in a goroutine's header.
#include "goruntime/goroutine_status.h"

#include <gtest/gtest.h>

namespace goheap::goruntime {
namespace {

TEST(GoroutineStatus, NamesAsTheTracebackPrintsThem) {
  EXPECT_EQ(gStatusName(kGrunnable), "runnable");
  EXPECT_EQ(gStatusName(kGwaiting), "waiting");
  EXPECT_EQ(gStatusName(kGwaiting | kGscan), "waiting");
  EXPECT_EQ(gStatusName(kGleaked), "leaked");
  EXPECT_EQ(gStatusName(kGdeadextra), "waiting for cgo callback");
  EXPECT_EQ(gStatusName(5), "???");  // _Gmoribund_unused
}

TEST(GoroutineStatus, DescriptionsSayWhoMarkedALeak) {
  EXPECT_EQ(gStatusDescription(kGleaked), "leaked (marked by the runtime)");
  EXPECT_EQ(gStatusDescription(kGsyscall), "syscall");
  EXPECT_EQ(gStatusDescription(7), "unknown");
}

}  // namespace
}  // namespace goheap::goruntime
