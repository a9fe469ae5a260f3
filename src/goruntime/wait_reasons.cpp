#include "goruntime/wait_reasons.h"

namespace goheap::goruntime {

BlockingWait blockingWaitOf(std::string_view reason) {
  if (reason == "chan receive" || reason == "chan send" || reason == "select") {
    return BlockingWait::Channel;
  }
  if (reason == "chan receive (nil chan)" || reason == "chan send (nil chan)" ||
      reason == "select (no cases)") {
    return BlockingWait::Forever;
  }
  if (reason == "sync.Cond.Wait" || reason == "sync.Mutex.Lock" || reason == "sync.RWMutex.RLock" ||
      reason == "sync.RWMutex.Lock" || reason == "sync.WaitGroup.Wait" || reason == "semacquire") {
    return BlockingWait::Sync;
  }
  return BlockingWait::None;
}

}  // namespace goheap::goruntime
