#include "query/answer_cache.h"

#include <bit>
#include <cstdio>

namespace goheap::query {

AnswerKey& AnswerKey::add(std::string_view name, uint64_t value) {
  key_ += ' ';
  key_ += name;
  key_ += '=';
  key_ += std::to_string(value);
  return *this;
}

AnswerKey& AnswerKey::add(std::string_view name, double value) {
  // The exact bits: to_string's six decimals made 2.5000001 and 2.5 one key.
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(std::bit_cast<uint64_t>(value)));
  key_ += ' ';
  key_ += name;
  key_ += "=d";
  key_ += hex;
  return *this;
}

AnswerKey& AnswerKey::add(std::string_view name, bool value) {
  key_ += ' ';
  key_ += name;
  key_ += value ? "=true" : "=false";
  return *this;
}

AnswerKey& AnswerKey::add(std::string_view name, std::string_view value) {
  key_ += ' ';
  key_ += name;
  key_ += '=';
  key_ += std::to_string(value.size());
  key_ += ':';
  key_ += value;
  return *this;
}

std::shared_ptr<const std::string> AnswerCache::find(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);  // iterators stay valid
  return it->second->answer;
}

void AnswerCache::insert(const std::string& key, std::shared_ptr<const std::string> answer) {
  if (answer == nullptr) return;
  const uint64_t cost = answer->size() + key.size() + kEntryOverhead;
  std::lock_guard lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) eraseLocked(it->second);
  if (cost > max_bytes_) return;
  while (bytes_ + cost > max_bytes_ && !lru_.empty()) eraseLocked(std::prev(lru_.end()));
  lru_.push_front(Entry{key, std::move(answer), cost});
  index_.emplace(lru_.front().key, lru_.begin());
  bytes_ += cost;
}

void AnswerCache::eraseLocked(std::list<Entry>::iterator it) {
  bytes_ -= it->cost;
  index_.erase(it->key);
  lru_.erase(it);
}

uint64_t AnswerCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

size_t AnswerCache::entries() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

}  // namespace goheap::query
