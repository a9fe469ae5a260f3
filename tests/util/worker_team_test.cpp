#include "util/worker_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace goheap {
namespace {

TEST(WorkerTeam, RunsEveryItemOnceOnAtMostTheWorkersAsked) {
  WorkerTeam team(4);
  EXPECT_EQ(team.size(), 4u);
  for (const unsigned workers : {1u, 2u, 4u, 9u}) {
    for (const size_t items : {size_t{0}, size_t{1}, size_t{3}, size_t{1000}}) {
      std::vector<std::atomic<int>> runs(items);
      std::vector<std::atomic<int>> by_worker(team.size());
      team.run(items, workers, [&](unsigned w, size_t i) {
        runs[i]++;
        by_worker[w]++;
      });
      for (size_t i = 0; i < items; i++) EXPECT_EQ(runs[i], 1) << i;
      for (unsigned w = std::min(workers, team.size()); w < team.size(); w++) {
        EXPECT_EQ(by_worker[w], 0) << "worker " << w << " of " << workers;
      }
    }
  }
}

TEST(WorkerTeam, OneWorkerOrOneItemRunsOnTheCaller) {
  WorkerTeam team(3);
  const std::thread::id caller = std::this_thread::get_id();
  std::set<std::thread::id> seen;
  team.run(5, 1, [&](unsigned, size_t) { seen.insert(std::this_thread::get_id()); });
  team.run(1, 3, [&](unsigned, size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{caller});
}

// Typing starts on the threads the dominators leave it and takes theirs
// when they are done: workers let in during a run take the items left.
TEST(WorkerTeam, WorkersLetInDuringARunTakeTheItemsLeft) {
  WorkerTeam team(3);
  std::atomic<unsigned> allowed{1};
  std::vector<std::atomic<int>> by_worker(team.size());
  std::atomic<int> runs{0};
  team.run(200, allowed, [&](unsigned w, size_t i) {
    if (i == 0) {
      EXPECT_EQ(w, 0u) << "only the caller at first";
      allowed = 3;
      // Hold the caller here until a helper has taken an item (or 5 s).
      for (int waited = 0; waited < 5000 && by_worker[1] + by_worker[2] == 0; waited++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    by_worker[w]++;
    runs++;
  });
  EXPECT_EQ(runs, 200);
  EXPECT_GT(by_worker[1] + by_worker[2], 0);
}

}  // namespace
}  // namespace goheap
