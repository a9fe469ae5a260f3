#include "util/worker_team.h"

#include <algorithm>

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
  workers = static_cast<unsigned>(std::min<size_t>({workers, size(), items}));
  if (workers <= 1) {
    for (size_t i = 0; i < items; i++) fn(0, i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    items_ = items;
    next_item_.store(0, std::memory_order_relaxed);
    workers_ = workers;
    busy_ = workers - 1;
    generation_++;
  }
  started_.notify_all();
  takeItems(0);
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return busy_ == 0; });
  fn_ = nullptr;
}

void WorkerTeam::takeItems(unsigned worker) {
  for (size_t i = next_item_.fetch_add(1); i < items_; i = next_item_.fetch_add(1)) {
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
