// The answers goheap serve keeps (suspects, dups, waste, diff take seconds
// on a big heap and the dump never changes while it is served), bounded by
// bytes so that a script walking through parameter values cannot grow the
// server without limit: the least recently used answers go first.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace goheap::query {

// A cache key made of an endpoint's *parsed* parameters, so two requests
// share an answer exactly when they ask the same question: "n=05" and "n=5"
// are one key, thresholds 2.5 and 2.5000001 are two (a double is keyed by
// its bit pattern, never by a rounded decimal).
class AnswerKey {
 public:
  explicit AnswerKey(std::string_view endpoint) : key_(endpoint) {}

  AnswerKey& add(std::string_view name, uint64_t value);
  AnswerKey& add(std::string_view name, double value);
  AnswerKey& add(std::string_view name, bool value);
  // Length-prefixed, so that no text can imitate another parameter.
  AnswerKey& add(std::string_view name, std::string_view value);
  AnswerKey& add(std::string_view name, const char* value) {
    return add(name, std::string_view(value));
  }

  const std::string& str() const { return key_; }

 private:
  std::string key_;
};

// Least-recently-used, thread-safe. What an entry costs is its answer's and
// its key's bytes plus kEntryOverhead (the list and hash nodes): the total
// never exceeds the bound. An answer handed out stays valid after it is
// evicted (it is shared), so memory can briefly exceed the bound by the
// answers being sent.
class AnswerCache {
 public:
  static constexpr uint64_t kEntryOverhead = 128;

  // 0 keeps nothing.
  explicit AnswerCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // The answer kept for `key`, now the most recently used; null if none.
  std::shared_ptr<const std::string> find(const std::string& key);
  // Keeps `answer` for `key` (replacing what was there), evicting the least
  // recently used answers until it fits; one larger than the bound by
  // itself is not kept.
  void insert(const std::string& key, std::shared_ptr<const std::string> answer);

  uint64_t bytes() const;
  size_t entries() const;
  uint64_t maxBytes() const { return max_bytes_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> answer;
    uint64_t cost = 0;
  };
  void eraseLocked(std::list<Entry>::iterator it);

  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // views of lru_ keys
  uint64_t bytes_ = 0;
};

}  // namespace goheap::query
