// The typing pass's rounds over every thread (typer.h).
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "typing/heap_types.h"
#include "typing/typer.h"
#include "util/worker_team.h"

namespace goheap::typing {

// The typing pass's scan of pending objects, in rounds over every thread.
//
// A round scans a wave of chunks: those with pending objects among
// TypingOptions::chunks_per_wave consecutive ones, each on one thread. A
// chunk's scan sweeps its objects in address order, as many times as its
// own assignments add objects to scan, and writes its own objects only;
// what it finds for an object of another chunk is deferred. The deferred
// assignments are then applied chunk by chunk, each chunk's in the order
// of the chunks that made them and, within one, in the order they were
// made. Waves follow each other in address order, and the sweep of waves
// starts again until no chunk has objects to scan: as in a serial sweep,
// what a wave types ahead of it is scanned in the same sweep. Only one
// wave's deferred assignments are held at a time.
//
// So what every step reads and writes depends on the chunks alone, never on
// which thread ran it or when: the types come out the same on any number of
// threads. A heap of one chunk is the serial sweep exactly.
class TypingRounds {
 public:
  TypingRounds(TypingState& shared, std::vector<Typer*> typers, WorkerTeam& team,
               const TypingOptions& options)
      : shared_(shared), typers_(std::move(typers)), team_(team), options_(options) {}

  void drain() {
    const size_t count = shared_.pending.size();
    const size_t per_wave = std::max<size_t>(1, options_.chunks_per_wave);
    std::vector<size_t> chunks;
    for (bool swept_any = true; swept_any;) {
      swept_any = false;
      for (size_t first = 0; first < count; first += per_wave) {
        chunks.clear();
        for (size_t c = first; c < std::min(count, first + per_wave); c++) {
          if (!shared_.pending[c].empty()) chunks.push_back(c);
        }
        if (chunks.empty()) continue;
        swept_any = true;
        round(chunks);
      }
    }
    for (size_t w = 1; w < typers_.size(); w++) {
      typers_[0]->counts() += typers_[w]->counts();
      typers_[w]->counts() = {};
    }
  }

  // Calls fn(typer, part) for each part in [0, parts), on every thread,
  // with the calling thread's Typer; for work that reads the assignments
  // and writes none.
  void forEachPart(size_t parts, const std::function<void(Typer&, size_t)>& fn) {
    team_.run(parts, workers(), [&](unsigned w, size_t p) { fn(*typers_[w], p); });
  }

 private:
  // Scans `chunks` (ascending), then applies what they deferred.
  void round(const std::vector<size_t>& chunks) {
    // Waking a thread costs tens of microseconds, and a long list whose
    // nodes lie far apart takes a round per node: a round with little to
    // do runs on this thread alone (which thread runs it changes nothing).
    size_t pending = 0;
    for (const size_t c : chunks) pending += shared_.pending[c].size();
    const auto scan = [&](unsigned w, size_t i) { typers_[w]->scanChunk(chunks[i]); };
    const bool shared = pending >= options_.fewest_to_share && chunks.size() > 1;
    if (shared) {
      team_.run(chunks.size(), workers(), scan);
    } else {
      team_.run(chunks.size(), 1u, scan);
    }
    // The deferred assignments in the order made: by the chunks that made
    // them, then as each made them. Every chunk they are for is one part's
    // (its number modulo the parts), and each part's thread reads them all
    // and applies its own: no two threads write one chunk, and each chunk
    // gets its assignments in that order.
    size_t deferred = 0;
    for (const size_t c : chunks) deferred += shared_.deferred[c].size();
    // As many parts as threads may work now: any split applies each
    // chunk's assignments in the same order.
    const size_t parts = deferred < options_.fewest_to_share
                             ? 1
                             : std::clamp<size_t>(workers().load(), 1, typers_.size());
    if (options_.rounds != nullptr) {
      options_.rounds->rounds++;
      options_.rounds->shared += shared || parts > 1 ? 1 : 0;
    }
    team_.run(parts, workers(), [&](unsigned w, size_t part) {
      for (const size_t c : chunks) typers_[w]->applyDeferred(shared_.deferred[c], part, parts);
    });
    for (const size_t c : chunks) DeferredAssigns().swap(shared_.deferred[c]);
  }

  // How many threads may work now; it may grow during a round.
  const std::atomic<unsigned>& workers() const {
    return options_.threads_now != nullptr ? *options_.threads_now : all_threads_;
  }

  TypingState& shared_;
  std::vector<Typer*> typers_;  // one per worker of the team; [0] runs the seeds
  WorkerTeam& team_;
  const TypingOptions& options_;
  const std::atomic<unsigned> all_threads_{options_.threads};
};

}  // namespace goheap::typing
