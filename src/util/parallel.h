// Work split over a few threads, with results that do not depend on how
// many: each helper divides its input into contiguous parts and puts the
// parts' results back together in input order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <thread>
#include <vector>

namespace goheap {

// Runs fn(part, first, last) for `parts` contiguous ranges that together
// cover [0, n), part 0 on the calling thread and each other part on a
// thread of its own; returns when all have returned. Parts may be empty.
template <class Fn>
void forEachRange(size_t n, unsigned parts, Fn&& fn) {
  parts = std::max(1u, parts);
  std::vector<std::thread> workers;
  auto bound = [&](unsigned p) { return n * p / parts; };
  for (unsigned p = 1; p < parts; p++) {
    workers.emplace_back([&fn, p, first = bound(p), last = bound(p + 1)] { fn(p, first, last); });
  }
  fn(0u, bound(0), bound(1));
  for (std::thread& w : workers) w.join();
}

// std::sort(first, last, less) on up to `threads` threads: the middle
// element is put in place first (std::nth_element, linear), then each half
// is sorted on its own thread. `less` must be a strict weak order; with a
// total order the result is exactly std::sort's. Ranges shorter than
// `min_parallel` are sorted on one thread: below the default a thread costs
// more than the half it would sort.
template <class It, class Less>
void sortOnThreads(It first, It last, Less less, unsigned threads,
                   std::ptrdiff_t min_parallel = 1 << 16) {
  const auto n = std::distance(first, last);
  if (threads < 2 || n < std::max<std::ptrdiff_t>(min_parallel, 2)) {
    std::sort(first, last, less);
    return;
  }
  const It middle = first + n / 2;
  std::nth_element(first, middle, last, less);
  const unsigned left_threads = threads / 2;
  std::thread left([=] { sortOnThreads(first, middle, less, left_threads, min_parallel); });
  sortOnThreads(middle + 1, last, less, threads - left_threads, min_parallel);
  left.join();
}

}  // namespace goheap
