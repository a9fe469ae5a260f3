// Goroutines blocked forever, found offline: the runtime's goroutine leak
// detection (Go 1.27's findGoroutineLeaks in mgc.go, proposal
// golang/go#74609) run on the object graph of any heap goheap reads, of any
// release.
//
// The runtime's rule: a goroutine blocked on a channel operation, a select
// or a sync primitive can only ever run again if another goroutine that can
// run reaches what it waits on. So marking starts from every root but the
// stacks of such blocked goroutines, with the pointers from their sudogs to
// what they wait on hidden (sudog.c for channel waits, sudog.elem for sync
// waits), as setSyncObjectsUntraceable hides them. A blocked goroutine
// whose channel (any of a select's) or primitive gets marked becomes a root
// in turn, its stack marked from, until nothing changes. The blocked
// goroutines left over are leaked. A channel or primitive outside the heap
// (a global) counts as marked, as isMarkedOrNotInHeap does.
//
// goheap is exact where the runtime cannot be: the tiny allocator packs
// small pointer-free values into one 16-byte block, which the collector
// sees as one object, so a Mutex that shares a block with a global's bytes
// looks reachable. Within such a block a pointer reaches only the bytes
// its static type covers (analysis/slots.h, typedReach), and any pointer
// into the primitive's own bytes reaches it; where a pointer elsewhere in
// the block has no known type, the runtime's answer stands and the
// goroutine is listed in not_leaked_because, with why.
//
// What a goroutine waits on is in its sudogs, listed from g.waiting. Go
// 1.25 and older list none there for a sync wait; its sudog is then the
// heap object of a sudog's size whose g is the goroutine, and the primitive
// is where its elem points (a semaphore) or the object that queues it (a
// Cond's notifyList).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/goroutine_info.h"
#include "analysis/snapshot.h"
#include "goruntime/wait_reasons.h"

namespace goheap::analysis {

using goruntime::BlockingWait;
using goruntime::blockingWaitOf;

// Where the runtime keeps what a goroutine waits on: g.waiting, the first
// of its sudogs, linked by sudog.waitlink; each with the channel (c) or the
// sync primitive's address (elem). From the executable's DWARF, else the
// layout table of the heap's release and architecture.
struct WaitLayout {
  uint64_t g_waiting = 0, sudog_g = 0, sudog_elem = 0, sudog_c = 0, sudog_waitlink = 0;
  uint64_t sudog_size = 0;
  std::string source;  // "DWARF", "layout table go1.24 amd64"
};
Expected<WaitLayout> waitLayoutOf(const Snapshot& s);

// The function a goroutine is blocked in, as the runtime's goroutineleak
// profile and a reader of its stack name it: the innermost frame outside
// the packages runtime, sync, internal/sync and sync/atomic; empty when
// every frame is in them.
std::string_view blockingFunction(const model::HeapModel& d, const model::Goroutine& g);
// Whether function `fn` is outside those packages.
bool outsideRuntimeAndSync(std::string_view fn);

struct GoroutineLeaks {
  // Empty when the analysis could not run: `problem` says why.
  std::string problem;
  std::string layout_source;
  // Per goroutine record of the model: 1 when leaked.
  std::vector<uint8_t> leaked;
  uint32_t leaked_count = 0;
  // What the leaked goroutines keep alive together: the bytes of the
  // objects no other root reaches, each counted once.
  uint64_t leaked_retained = 0;
  // Blocked on a sync primitive, with no sudog found to say which: counted
  // as able to run, as the runtime's own check would. Go 1.25 and older set
  // no g.waiting for a sync wait; the sudog is then found as the one whose
  // g is the goroutine (see findGoroutineLeaks).
  uint32_t unlinked_sync_waits = 0;
  // Goroutine 1 (main) in select {}: leaked for the analysis (its stack is
  // no root), left out of `leaked` as Go 1.27's profile leaves it out
  // (golang/go#78922).
  bool main_in_select_forever = false;
  // Blocked goroutines that are not called leaked only because their sync
  // primitive shares a tiny block (16 bytes the allocator packs small
  // pointer-free values into) with memory a pointer of unknown type holds:
  // the runtime counts the whole block reached, and so does goheap then.
  // By goroutine record, with the reason in words.
  std::vector<std::pair<uint32_t, std::string>> not_leaked_because;
  // The reason for goroutine record `record`, or empty.
  std::string_view notLeakedBecause(uint32_t record) const;
};
GoroutineLeaks findGoroutineLeaks(const Snapshot& s);

// The root nodes of each goroutine record: its goroutine node (its frames
// and its g hang below it), its defers and its panics.
std::vector<std::vector<NodeId>> rootsByGoroutine(const Snapshot& s);

// The bytes of the objects that `roots` (root nodes) reach and no other
// root does: what would be freed if they all went away at once.
uint64_t jointlyRetained(const Snapshot& s, std::span<const NodeId> roots);

// Goroutines `gs` by the function they are blocked in (blocked_in), most
// first, with how many are leaked and what each group's roots keep alive
// together (jointlyRetained).
struct GoroutineGroup {
  std::string function;
  uint64_t goroutines = 0;
  uint64_t leaked = 0;
  uint64_t retained = 0;
};
std::vector<GoroutineGroup> groupGoroutines(const Snapshot& s,
                                            const std::vector<GoroutineInfo>& gs);

}  // namespace goheap::analysis
