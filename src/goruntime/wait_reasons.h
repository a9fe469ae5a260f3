// What a goroutine's wait reason (runtime2.go's waitReasonStrings, whose
// text every release since Go 1.19 keeps for these) says about what blocks
// it: the runtime's own goroutine leak detection (Go 1.26+'s
// goroutineleak profile) treats channel and sync waits as possibly
// leaked, and the nil-channel and no-case waits as leaked by definition.
#pragma once

#include <cstdint>
#include <string_view>

namespace goheap::goruntime {

// isChanWait, the nil-channel and no-case waits (Forever), isSyncWait (with
// Go 1.25 and older's "semacquire", which a Mutex, RWMutex or WaitGroup wait
// was reported as), or none of these.
enum class BlockingWait : uint8_t { None, Channel, Forever, Sync };
BlockingWait blockingWaitOf(std::string_view wait_reason);

}  // namespace goheap::goruntime
