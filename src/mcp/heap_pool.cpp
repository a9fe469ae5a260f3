#include "mcp/heap_pool.h"

#include <exception>
#include <variant>

namespace goheap::mcp {

namespace {

std::string keyOf(const query::Source& source) {
  return source.describe() + '\n' + source.exe_path;
}

bool isLive(const query::Source& source) {
  return std::holds_alternative<query::HeapUrl>(source.heap) ||
         std::holds_alternative<query::LiveProcess>(source.heap);
}

}  // namespace

uint64_t estimatedBytes(const query::Session& session) {
  const graph::Heap& heap = session.snapshot().heap;
  // Per node: its columns (address, size, type, dominator, retained,
  // names) and the CSR offsets both ways; per edge: a target both ways.
  return uint64_t{96} * heap.nodeCount() + uint64_t{8} * heap.successors.edgeCount();
}

Expected<std::shared_ptr<const query::Session>> HeapPool::open(const query::Source& source,
                                                               Sink& sink) {
  const std::string key = keyOf(source);
  const bool live = isLive(source);
  std::shared_ptr<Entry> entry;
  bool opener = false;
  {
    std::unique_lock lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if ((*it)->key != key) continue;
      const bool stale =
          (*it)->done && (*it)->live &&
          std::chrono::duration<double>(now - (*it)->opened).count() > options_.live_seconds;
      if (stale || ((*it)->done && (*it)->failure)) {
        entries_.erase(it);  // read again
        break;
      }
      entry = *it;
      entries_.splice(entries_.begin(), entries_, it);
      break;
    }
    if (!entry) {
      entry = std::make_shared<Entry>();
      entry->key = key;
      entry->live = live;
      entries_.push_front(entry);
      opener = true;
    } else {
      ready_.wait(lock, [&] { return entry->done; });
    }
  }
  if (!opener) {
    if (entry->failure) return *entry->failure;
    return entry->session;
  }
  // Whatever happens, the entry ends done: the others wait for it.
  Expected<std::shared_ptr<const query::Session>> opened = Error("not opened");
  try {
    opened = query::open(source, sink, options_.open);
  } catch (const std::exception& e) {
    opened = Error(std::string("internal error while opening: ") + e.what());
  }
  std::lock_guard lock(mu_);
  entry->done = true;
  entry->opened = std::chrono::steady_clock::now();
  if (opened) {
    entry->session = *opened;
    entry->bytes = estimatedBytes(**opened);
  } else {
    // Kept for those waiting now; the next ask opens again (the file may
    // have been fixed).
    entry->failure = std::make_shared<Error>(opened.error());
  }
  evict();
  ready_.notify_all();
  return opened;
}

void HeapPool::evict() {
  uint64_t total = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& e = **it;
    const bool first = it == entries_.begin();
    if (e.done && e.failure) {
      it = entries_.erase(it);
      continue;
    }
    if (e.done && !first && total + e.bytes > options_.max_bytes) {
      it = entries_.erase(it);  // its Session closes when the last call using it ends
      continue;
    }
    total += e.bytes;
    ++it;
  }
}

size_t HeapPool::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

uint64_t HeapPool::bytes() const {
  std::lock_guard lock(mu_);
  uint64_t total = 0;
  for (const auto& e : entries_) total += e->bytes;
  return total;
}

}  // namespace goheap::mcp
