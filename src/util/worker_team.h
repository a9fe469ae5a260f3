// A few threads kept for many short parallel steps. Starting a thread costs
// tens of microseconds, and a pass made of thousands of rounds (the typing
// pass's) cannot pay that at each one; a team's threads wait between steps.
//
// Which worker runs an item is left to chance, so a caller whose results
// must not depend on the thread count keeps what each item makes apart, by
// item, never by worker.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace goheap {

class WorkerTeam {
 public:
  // `threads` workers in all: the caller's thread and threads - 1 more.
  explicit WorkerTeam(unsigned threads);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // Calls fn(worker, item) once for every item in [0, items), spread over
  // at most `workers` of the team (the caller is worker 0), and returns
  // when all calls have. One item, or one worker, runs on the caller alone.
  void run(size_t items, unsigned workers, const std::function<void(unsigned, size_t)>& fn);
  // The same with a number of workers that may grow while the call runs
  // (another phase finishes and leaves its core): a worker past it waits,
  // looking again every 2 ms, until it is let in or every item is taken.
  void run(size_t items, const std::atomic<unsigned>& workers,
           const std::function<void(unsigned, size_t)>& fn);

 private:
  void help(unsigned worker);
  void takeItems(unsigned worker);

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable started_, finished_, let_in_;
  uint64_t generation_ = 0;  // one more at each run(); helpers wait for a change
  bool stopping_ = false;
  unsigned workers_ = 0;                                    // of the current run
  const std::atomic<unsigned>* growing_workers_ = nullptr;  // of the current run, if it may grow
  unsigned busy_ = 0;                                       // helpers still in the current run
  size_t items_ = 0;
  std::atomic<size_t> next_item_{0};
  const std::function<void(unsigned, size_t)>* fn_ = nullptr;
};

}  // namespace goheap
