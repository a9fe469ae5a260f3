// An opened heap and what has been computed from it: the one place where
// goheap keeps work for later. The Snapshot underneath is never written; the
// results queries share (each grouping's totals, the flame graph, the typed
// headers, a diff's new objects) and whole answers are computed on first use
// and kept here, so the CLI and the server answer from the same memo. Every
// member is safe to call from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "analysis/diff.h"
#include "analysis/flame.h"
#include "analysis/goroutine_info.h"
#include "analysis/goroutine_leaks.h"
#include "analysis/headers.h"
#include "analysis/histogram.h"
#include "analysis/snapshot.h"
#include "query/answer_cache.h"
#include "util/error.h"
#include "util/temporary_file.h"

namespace goheap::query {

// A value computed once, on first use, by whichever thread asks first; the
// others wait for it.
template <class T>
class Once {
 public:
  template <class Fn>
  const T& get(Fn&& compute) const {
    std::call_once(flag_, [&] { value_ = std::make_unique<const T>(compute()); });
    return *value_;
  }
  // The value known already (kept with the heap elsewhere), before any get.
  void set(T value) {
    std::call_once(flag_, [&] { value_ = std::make_unique<const T>(std::move(value)); });
  }

 private:
  mutable std::once_flag flag_;
  mutable std::unique_ptr<const T> value_;
};

class Session {
 public:
  // `answer_cache_bytes`: how much the kept answers may take (0: none).
  // `input_file`: the temporary file the heap was read from (a download, a
  // snapshot of a live process), removed with the Session; null for a
  // user's file. `backing`: memory the snapshot's columns are views of (the
  // index cache's entry it was restored from), kept as long as it.
  explicit Session(std::unique_ptr<const analysis::Snapshot> snapshot,
                   uint64_t answer_cache_bytes = 0,
                   std::unique_ptr<TemporaryFile> input_file = nullptr,
                   std::shared_ptr<const void> backing = nullptr);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Waits for the work given to runInBackground.
  ~Session();

  // Runs `work` on a thread of its own while the Session answers (writing
  // the index cache's entry: nothing that changes what the Session
  // answers). Once, before the Session is shared; the destructor waits.
  void runInBackground(std::function<void(const Session&)> work);
  // The goroutine leak analysis, known already (the index cache keeps it):
  // goroutineLeaks() answers it. Before the Session is shared.
  void setGoroutineLeaks(analysis::GoroutineLeaks leaks) { leaks_.set(std::move(leaks)); }

  const analysis::Snapshot& snapshot() const { return *snapshot_; }
  // The snapshot was restored from the index cache.
  bool fromCache() const { return backing_ != nullptr; }

  // Every group's totals by `by`: `top` sorts, filters and pages them.
  const analysis::Histogram& groupTotals(typing::GroupKind by) const;
  // The whole flame graph, pruned per request.
  const analysis::Flame& fullFlame() const;
  // The goroutines blocked forever (the runtime's leak detection, offline),
  // and every goroutine with its frames: summary, goroutines, suspects and
  // the SQL tables all read them.
  const analysis::GoroutineLeaks& goroutineLeaks() const;
  const std::vector<analysis::GoroutineInfo>& goroutineInfos() const;
  // The string, slice and map headers in typed memory (dups and waste).
  const std::vector<analysis::Header>& typedHeaders() const;
  // The objects new since `base` (this session being the later heap), by
  // holder: the costly part of a diff, the same for every sort and page.
  const analysis::NewSince& newSince(const Session& base, typing::GroupKind by) const;

  // The answer kept for `key` (an AnswerKey's text), else `compute`'s,
  // then kept within the answer-cache bytes. An error, and an answer
  // computed while a file changed on disk, are not kept. Two first
  // requests for one key may both compute it; the answer is the same.
  Expected<std::shared_ptr<const std::string>> answer(
      const std::string& key, const std::function<Expected<std::string>()>& compute) const;
  const AnswerCache& answers() const { return answers_; }

  // An Error naming the file when the heap's files (the dump, the
  // executable) changed on disk since they were opened, or a read of their
  // mapping faulted: what was computed from them since is not to be trusted.
  // A stat per file: cheap enough to ask per request.
  Status checkFilesUnchanged() const { return snapshot_->checkFilesUnchanged(); }

  // What a layer above derives from this heap once and keeps for the
  // Session's life (the SQL tables' indexes), one value per type T: `make`
  // returns a std::unique_ptr<T>, and runs under a lock, so it should be
  // cheap and leave costly work for later.
  template <class T, class Make>
  const T& derived(Make&& make) const {
    std::lock_guard lock(derived_mu_);
    std::shared_ptr<const void>& slot = derived_[std::type_index(typeid(T))];
    if (!slot) slot = std::shared_ptr<const T>(make());
    return *static_cast<const T*>(slot.get());
  }

  // Computes now what a web UI asks for first (the default histogram, the
  // flame graph and the full interface scan), so no request waits for it.
  void prepareForServing() const;

 private:
  std::unique_ptr<TemporaryFile> input_file_;  // outlives snapshot_, which maps it
  std::shared_ptr<const void> backing_;        // outlives snapshot_, which views it
  std::unique_ptr<const analysis::Snapshot> snapshot_;
  std::array<Once<analysis::Histogram>, 4> groups_;  // by GroupKind
  Once<analysis::Flame> flame_;
  Once<std::vector<analysis::Header>> headers_;
  Once<analysis::GoroutineLeaks> leaks_;
  Once<std::vector<analysis::GoroutineInfo>> goroutines_;
  mutable std::mutex new_since_mu_;
  mutable std::map<std::pair<const Session*, typing::GroupKind>,
                   std::shared_ptr<const analysis::NewSince>>
      new_since_;
  mutable AnswerCache answers_;
  std::thread background_;
  // Last: what is derived from the snapshot goes before it.
  mutable std::mutex derived_mu_;
  mutable std::map<std::type_index, std::shared_ptr<const void>> derived_;
};

}  // namespace goheap::query
