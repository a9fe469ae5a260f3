#include "query/session.h"

namespace goheap::query {

Session::Session(std::unique_ptr<const analysis::Snapshot> snapshot, uint64_t answer_cache_bytes,
                 std::unique_ptr<TemporaryFile> input_file, std::shared_ptr<const void> backing)
    : input_file_(std::move(input_file)),
      backing_(std::move(backing)),
      snapshot_(std::move(snapshot)),
      answers_(answer_cache_bytes) {}

Session::~Session() {
  if (background_.joinable()) background_.join();
}

void Session::runInBackground(std::function<void(const Session&)> work) {
  background_ = std::thread([this, work = std::move(work)] { work(*this); });
}

const analysis::Histogram& Session::groupTotals(typing::GroupKind by) const {
  return groups_[static_cast<size_t>(by)].get(
      [&] { return analysis::groupTotals(*snapshot_, by); });
}

const analysis::Flame& Session::fullFlame() const {
  return flame_.get([&] { return analysis::fullFlame(*snapshot_); });
}

const std::vector<analysis::Header>& Session::typedHeaders() const {
  return headers_.get([&] { return analysis::findHeaders(*snapshot_); });
}

const analysis::GoroutineLeaks& Session::goroutineLeaks() const {
  return leaks_.get([&] { return analysis::findGoroutineLeaks(*snapshot_); });
}

const std::vector<analysis::GoroutineInfo>& Session::goroutineInfos() const {
  return goroutines_.get([&] { return analysis::goroutines(*snapshot_, goroutineLeaks()); });
}

const analysis::NewSince& Session::newSince(const Session& base, typing::GroupKind by) const {
  {
    std::lock_guard lock(new_since_mu_);
    auto it = new_since_.find({&base, by});
    if (it != new_since_.end()) return *it->second;
  }
  // Computed without the lock: other groupings need not wait for this one.
  auto computed = std::make_shared<const analysis::NewSince>(
      analysis::newSince(base.snapshot(), *snapshot_, by));
  std::lock_guard lock(new_since_mu_);
  auto [it, inserted] = new_since_.emplace(std::make_pair(&base, by), std::move(computed));
  return *it->second;
}

Expected<std::shared_ptr<const std::string>> Session::answer(
    const std::string& key, const std::function<Expected<std::string>()>& compute) const {
  if (auto kept = answers_.find(key)) return kept;
  GOHEAP_TRY(std::string computed, compute());
  auto body = std::make_shared<const std::string>(std::move(computed));
  if (checkFilesUnchanged()) answers_.insert(key, body);
  return body;
}

void Session::prepareForServing() const {
  snapshot_->namer().scanAllInterfaces();
  groupTotals(snapshot_->types ? typing::GroupKind::Type : typing::GroupKind::Name);
  fullFlame();
}

}  // namespace goheap::query
