// Large arrays (one element per object, node or edge) backed by transparent
// huge pages.
//
// goheap fills each of its big arrays once, soon after allocating it. With
// 4 KiB pages every 4 KiB of a new array costs a page fault on first touch;
// on the benchmark's 10-million-object dump those faults (and the kernel
// zeroing pages one at a time) took about half of all the time, more so in a
// virtual machine where each fault is a trap to the hypervisor. 2 MiB pages
// take 512 times fewer faults. Linux's default policy ("madvise") gives them
// only to memory marked with madvise(MADV_HUGEPAGE), so these helpers mark an
// array's memory before anything touches it. Elsewhere, or when the kernel
// refuses, the advice is a no-op and only the speed differs.
//
// The arrays stay plain std::vector so that every API keeps its types.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace goheap {

// Asks malloc to give every allocation of 1 MiB or more its own mapping,
// returned to the system when freed. Left to itself, glibc raises that
// threshold to the size of each large block freed (up to 32 MiB), so the
// big arrays of one phase land in the heap, and what a phase frees there
// stays resident as holes the next phase's arrays do not fit: 13 MiB of the
// record dump's peak, and 18 MiB of the 10M benchmark's. Per process, so
// only a program's main calls it, before it allocates much.
void keepLargeAllocationsMapped();

// Marks the whole pages inside [data, data + bytes) for huge pages. Cheap
// and harmless on memory already touched (it affects later faults only);
// does nothing for ranges too small to hold a huge page.
void adviseHugePages(const void* data, size_t bytes);

// v.reserve(n), with new memory advised before its first touch. Only an
// empty vector's reserve touches nothing, so callers reserve first, fill
// after.
template <class T>
void reserveLarge(std::vector<T>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

// v.assign(n, value) into advised memory.
template <class T>
void assignLarge(std::vector<T>& v, size_t n, const T& value) {
  if (n > v.capacity()) {
    std::vector<T>().swap(v);  // nothing to keep, so nothing to copy
    reserveLarge(v, n);
  }
  v.assign(n, value);
}

// v.resize(n) into advised memory; existing elements are kept.
template <class T>
void resizeLarge(std::vector<T>& v, size_t n) {
  reserveLarge(v, n);
  v.resize(n);
}

// v.reserve(n) for a vector that may hold elements: they move to new memory
// that was advised before they arrived.
template <class T>
void growLarge(std::vector<T>& v, size_t n) {
  if (n <= v.capacity()) return;
  std::vector<T> bigger;
  reserveLarge(bigger, n);
  bigger.insert(bigger.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  v.swap(bigger);
}

// The elements of `parts`, in order, in one vector in advised memory; each
// part is emptied (and its memory freed) once copied.
template <class T>
std::vector<T> joinLarge(std::vector<std::vector<T>>& parts) {
  size_t total = 0;
  for (const std::vector<T>& p : parts) total += p.size();
  std::vector<T> out;
  reserveLarge(out, total);
  for (std::vector<T>& p : parts) {
    out.insert(out.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
    std::vector<T>().swap(p);
  }
  return out;
}

// v.push_back(x) for a vector whose final size is not known and may be
// large: it doubles into advised memory.
template <class T>
void pushBackLarge(std::vector<T>& v, const T& x) {
  if (v.size() == v.capacity()) growLarge(v, std::max<size_t>(4096, v.capacity() * 2));
  v.push_back(x);
}

}  // namespace goheap
