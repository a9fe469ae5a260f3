#include "analysis/process_memory.h"

#include <algorithm>

#include "util/format.h"

namespace goheap::analysis {
namespace {

using model::MemoryCategory;
using model::MemStat;

// Big enough to be worth a word of advice: a fifth of the accessible
// memory and 16 MiB.
constexpr uint64_t kAdviceMinBytes = 16 << 20;

// A dump's categories: what its memstats say, the rest unknown.
model::ProcessMemory fromMemStats(const model::MemStats& m) {
  model::ProcessMemory out;
  out.source = "memstats";
  out.notes.push_back(
      "a heap dump holds no mappings: C memory (cgo), thread stacks, mapped files, the "
      "executable and reserved address space are not in it; goheap memory on a core or a "
      "snap (goheap snap PID) sees them");
  if (!m.present) {
    out.total_is = "nothing: the dump has no memstats";
    for (model::MemoryCategoryUse& c : out.categories) c.known = false;
    return out;
  }
  out.total_is = "Sys: what the Go runtime obtained from the OS (memstats)";
  out.total = m.sys;
  auto set = [&](MemoryCategory c, uint64_t bytes, std::string detail) {
    out[c].bytes = bytes;
    out[c].detail = std::move(detail);
  };
  auto minus = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  set(MemoryCategory::HeapObjects, m.heap_alloc, "HeapAlloc");
  set(MemoryCategory::HeapFragmentation, minus(m.heap_inuse, m.heap_alloc),
      "HeapInuse - HeapAlloc");
  set(MemoryCategory::HeapFree, minus(m.heap_idle, m.heap_released), "HeapIdle - HeapReleased");
  set(MemoryCategory::HeapReleased, m.heap_released, "HeapReleased");
  set(MemoryCategory::GoroutineStacks, m.stack_inuse, "StackInuse");
  set(MemoryCategory::ThreadStacks, minus(m.stack_sys, m.stack_inuse),
      "StackSys - StackInuse: stacks the runtime had from the OS for threads");
  set(MemoryCategory::RuntimeMetadata,
      m.mspan_sys + m.mcache_sys + m.buck_hash_sys + m.gc_sys + m.other_sys,
      "MSpanSys + MCacheSys + BuckHashSys + GCSys + OtherSys");
  for (MemoryCategory c : {MemoryCategory::CHeap, MemoryCategory::MappedFiles,
                           MemoryCategory::ExecutableAndLibraries, MemoryCategory::Reserved}) {
    out[c].known = false;
    out[c].detail = "not in a heap dump";
  }
  uint64_t sum = 0;
  for (const model::MemoryCategoryUse& c : out.categories) sum += c.bytes;
  set(MemoryCategory::Other, minus(out.total, sum), "Sys less the figures above");
  return out;
}

// The memstats figure beside category `c` of a core, where one holds the same.
std::optional<MemstatsFigure> figureFor(MemoryCategory c, const model::MemStats& m, uint64_t ours) {
  auto figure = [&](std::string field, std::initializer_list<MemStat> needs,
                    uint64_t bytes) -> std::optional<MemstatsFigure> {
    for (MemStat f : needs) {
      if (!m.has(f)) return std::nullopt;
    }
    const uint64_t diff = ours > bytes ? ours - bytes : bytes - ours;
    return MemstatsFigure{std::move(field), bytes, diff * 10 > bytes && diff > (64 << 10)};
  };
  if (!m.present) return std::nullopt;
  switch (c) {
    case MemoryCategory::HeapObjects:
      return figure("HeapAlloc", {MemStat::HeapAlloc}, m.heap_alloc);
    case MemoryCategory::HeapFree:
      return figure("HeapIdle - HeapReleased", {MemStat::HeapIdle, MemStat::HeapReleased},
                    m.heap_idle > m.heap_released ? m.heap_idle - m.heap_released : 0);
    case MemoryCategory::HeapReleased:
      return figure("HeapReleased", {MemStat::HeapReleased}, m.heap_released);
    case MemoryCategory::GoroutineStacks:
      return figure("StackInuse", {MemStat::StackInuse}, m.stack_inuse);
    case MemoryCategory::RuntimeMetadata:
      return figure("MSpanSys + MCacheSys + BuckHashSys + GCSys + OtherSys",
                    {MemStat::MSpanSys, MemStat::MCacheSys, MemStat::BuckHashSys, MemStat::GCSys,
                     MemStat::OtherSys},
                    m.mspan_sys + m.mcache_sys + m.buck_hash_sys + m.gc_sys + m.other_sys);
    default:
      return std::nullopt;
  }
}

}  // namespace

ProcessMemoryView processMemory(const Snapshot& s) {
  ProcessMemoryView v;
  const model::MemStats& m = s.model.memstats;
  if (!s.model.process_memory) {
    v.memory = fromMemStats(m);
  } else {
    v.memory = *s.model.process_memory;
    for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
      const uint64_t counted = v.memory.categories[c].bytes -
                               std::min(v.memory.categories[c].bytes, v.memory.outside_memstats[c]);
      v.memstats[c] = figureFor(static_cast<MemoryCategory>(c), m, counted);
    }
  }
  model::MemoryCategoryUse& objects = v.memory[MemoryCategory::HeapObjects];
  if (objects.known) {
    objects.detail += (objects.detail.empty() ? "" : "; ") + std::string("live ") +
                      formatBytes(s.reachable_bytes) + " (" + formatCount(s.reachable_objects) +
                      " reachable objects), garbage " + formatBytes(s.garbage_bytes) + " (" +
                      formatCount(s.garbage_objects) + " unreachable, not yet swept)";
  }

  const uint64_t accessible =
      v.memory.total - std::min(v.memory.total, v.memory[MemoryCategory::Reserved].bytes);
  auto large = [&](MemoryCategory c) {
    const uint64_t b = v.memory[c].bytes;
    return v.memory[c].known && b >= kAdviceMinBytes && b * 5 >= accessible;
  };
  const uint64_t idle = v.memory[MemoryCategory::HeapFree].bytes;
  if (large(MemoryCategory::HeapFree)) {
    v.advice.push_back("heap_free: " + formatBytes(idle) +
                       " of idle heap is kept. The runtime returns idle memory to the OS over "
                       "minutes; debug.FreeOSMemory() returns it now, and GOMEMLIMIT bounds it.");
  }
  if (large(MemoryCategory::CHeap)) {
    v.advice.push_back("c_heap: " + formatBytes(v.memory[MemoryCategory::CHeap].bytes) +
                       " is outside the Go heap, allocated by C code (cgo): Go's profiles and "
                       "the object graph do not see into it. What is known: " +
                       v.memory[MemoryCategory::CHeap].detail + ".");
  }
  if (large(MemoryCategory::GoroutineStacks)) {
    v.advice.push_back("goroutine_stacks: " + formatCount(s.model.goroutines.size()) +
                       " goroutines hold " +
                       formatBytes(v.memory[MemoryCategory::GoroutineStacks].bytes) +
                       " of stacks; goheap goroutines lists them (--leaked: those blocked "
                       "forever).");
  }
  return v;
}

}  // namespace goheap::analysis
