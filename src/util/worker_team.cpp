#include "util/worker_team.h"

#include <algorithm>
#include <chrono>

namespace goheap {

WorkerTeam::WorkerTeam(unsigned threads) {
  for (unsigned w = 1; w < std::max(1u, threads); w++)
    helpers_.emplace_back([this, w] { help(w); });
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  started_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

void WorkerTeam::run(size_t items, unsigned workers,
                     const std::function<void(unsigned, size_t)>& fn) {
  if (std::min<size_t>({workers, size(), items}) <= 1) {
    for (size_t i = 0; i < items; i++) fn(0, i);
    return;
  }
  const std::atomic<unsigned> fixed = workers;
  run(items, fixed, fn);
}

void WorkerTeam::run(size_t items, const std::atomic<unsigned>& workers,
                     const std::function<void(unsigned, size_t)>& fn) {
  // The helpers that may ever join: all, if the number may grow.
  const unsigned most = static_cast<unsigned>(std::min<size_t>(size(), items));
  if (most <= 1) {
    for (size_t i = 0; i < items; i++) fn(0, i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    items_ = items;
    next_item_.store(0, std::memory_order_relaxed);
    workers_ = most;
    growing_workers_ = &workers;
    busy_ = most - 1;
    generation_++;
  }
  started_.notify_all();
  takeItems(0);
  // Every item is taken: helpers still waiting to be let in are done. The
  // lock orders this after their look at next_item_.
  { std::lock_guard lock(mutex_); }
  let_in_.notify_all();
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return busy_ == 0; });
  fn_ = nullptr;
  growing_workers_ = nullptr;
}

void WorkerTeam::takeItems(unsigned worker) {
  while (next_item_.load() < items_) {
    if (worker > 0 && worker >= growing_workers_->load()) {
      std::unique_lock lock(mutex_);
      let_in_.wait_for(lock, std::chrono::milliseconds(2), [&] {
        return next_item_.load() >= items_ || worker < growing_workers_->load();
      });
      continue;
    }
    const size_t i = next_item_.fetch_add(1);
    if (i >= items_) return;
    (*fn_)(worker, i);
  }
}

void WorkerTeam::help(unsigned worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      started_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (worker >= workers_) continue;  // not wanted this time
    }
    takeItems(worker);
    std::lock_guard lock(mutex_);
    if (--busy_ == 0) finished_.notify_one();
  }
}

}  // namespace goheap
