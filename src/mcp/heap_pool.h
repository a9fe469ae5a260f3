// The heaps `goheap mcp` has opened, kept open so that a conversation's
// follow-up questions answer at once: a least-recently-used set bounded by
// an estimate of the memory each takes. Two calls that need one heap not
// yet open wait for one open, not two. A heap read from a running program
// (an http:// URL or pid:PID) is a moment of it: it is kept for
// `live_seconds`, after which a question takes a new one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "query/open.h"
#include "query/session.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::mcp {

struct HeapPoolOptions {
  query::OpenOptions open;
  uint64_t max_bytes = uint64_t{8} << 30;  // --heap-memory
  double live_seconds = 60;
};

// What an opened heap is estimated to take in memory: its graph, its
// dominators and columns, per node and per edge, as measured on the test
// dumps (the dump file itself is mapped, and the kernel pages it out).
uint64_t estimatedBytes(const query::Session& session);

class HeapPool {
 public:
  explicit HeapPool(HeapPoolOptions options) : options_(std::move(options)) {}

  // The heap `source` names, opened now (its phases and warnings told to
  // `sink`) or kept from before. The heap just opened stays even when it
  // alone is over the bound; older ones make room.
  Expected<std::shared_ptr<const query::Session>> open(const query::Source& source, Sink& sink);

  // Heaps open now, and their estimated bytes (tests, messages).
  size_t size() const;
  uint64_t bytes() const;

 private:
  struct Entry {
    std::string key;
    bool live = false;
    std::chrono::steady_clock::time_point opened;
    // Set once opened; until then the other askers wait on `ready`.
    std::shared_ptr<const query::Session> session;
    std::shared_ptr<Error> failure;
    bool done = false;
    uint64_t bytes = 0;
  };
  void evict();

  HeapPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::list<std::shared_ptr<Entry>> entries_;  // most recently used first
};

}  // namespace goheap::mcp
