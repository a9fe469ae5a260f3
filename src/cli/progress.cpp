#include "cli/progress.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <utility>

#include "util/format.h"
#include "util/json_writer.h"
#include "util/text_table.h"

namespace goheap::cli {
namespace {

// Longer than this and an 80-column terminal would wrap the line, after
// which "\r" no longer returns to its start.
constexpr size_t kMaxLineWidth = 79;

std::string amount(uint64_t n, ProgressUnit unit) {
  return unit == ProgressUnit::Bytes ? formatBytes(n) : formatCount(n);
}

}  // namespace

// ---- Progress ----

Progress::Progress(std::FILE* out, bool enabled, NowFn now)
    : out_(out), enabled_(enabled && out != nullptr), now_(std::move(now)) {}

Progress::~Progress() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  clearLocked();
}

bool Progress::wanted(std::FILE* out, bool disabled_by_caller) {
  return !disabled_by_caller && out != nullptr && ::isatty(::fileno(out)) == 1;
}

Clock::time_point Progress::now() const {
  return now_ ? now_() : Clock::now();
}

void Progress::begin(std::string_view phase, uint64_t total, ProgressUnit unit) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  phase_ = phase;
  total_ = total;
  unit_ = unit;
  done_.store(0, std::memory_order_relaxed);
  active_ = true;
  drawLocked();
  last_draw_ = now();
}

void Progress::update(uint64_t done) {
  if (!enabled_) return;
  done_.store(done, std::memory_order_relaxed);
  maybeDraw();
}

void Progress::advance(uint64_t delta) {
  if (!enabled_) return;
  done_.fetch_add(delta, std::memory_order_relaxed);
  maybeDraw();
}

void Progress::maybeDraw() {
  // A worker that finds another drawing has nothing to add: its count is
  // already in done_ and the next redraw shows it.
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !active_) return;
  Clock::time_point t = now();
  if (t - last_draw_ < kRedrawInterval) return;
  drawLocked();
  last_draw_ = t;
}

void Progress::end() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  clearLocked();
  active_ = false;
}

void Progress::message(std::string_view line) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  if (enabled_) clearLocked();
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fputc('\n', out_);
  if (enabled_ && active_) drawLocked();
  std::fflush(out_);
}

void Progress::drawLocked() {
  uint64_t done = done_.load(std::memory_order_relaxed);
  std::string line = phase_;
  if (total_ > 0) {
    uint64_t shown = std::min(done, total_);
    // Rounded down, so that 100% means everything is done.
    uint64_t pct = 100;
    if (shown < total_) {
      double fraction = static_cast<double>(shown) / static_cast<double>(total_);
      pct = std::min<uint64_t>(static_cast<uint64_t>(fraction * 100.0), 99);
    }
    line += "  " + std::to_string(pct) + "% (" + amount(shown, unit_) + " / " +
            amount(total_, unit_) + ")";
  } else if (done > 0) {
    line += "  " + amount(done, unit_);
  }
  line = elide(line, kMaxLineWidth);
  size_t width = displayWidth(line);
  std::string text = "\r" + line;
  // Blank what is left of a longer previous line.
  if (drawn_width_ > width) text.append(drawn_width_ - width, ' ');
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
  drawn_width_ = width;
}

void Progress::clearLocked() {
  if (drawn_width_ == 0) return;
  std::string text(drawn_width_ + 2, ' ');  // "\r", blanks, "\r"
  text.front() = text.back() = '\r';
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
  drawn_width_ = 0;
}

// ---- Phase ----

Phase::Phase(PhaseTimer* timer, Progress* progress, std::string name, uint64_t total,
             ProgressUnit unit)
    : timer_(timer), progress_(progress) {
  if (progress_ != nullptr) progress_->begin(name, total, unit);
  if (timer_ != nullptr) {
    start_ = timer_->now();
    index_ = timer_->open(std::move(name));
  }
}

Phase::Phase(Phase&& other) noexcept
    : timer_(std::exchange(other.timer_, nullptr)),
      progress_(std::exchange(other.progress_, nullptr)),
      index_(other.index_),
      start_(other.start_),
      finished_(std::exchange(other.finished_, true)) {}

void Phase::finish() {
  if (finished_) return;
  finished_ = true;
  if (progress_ != nullptr) progress_->end();
  if (timer_ != nullptr) {
    std::chrono::duration<double> elapsed = timer_->now() - start_;
    timer_->close(index_, elapsed.count());
  }
}

// ---- PhaseTimer ----

PhaseTimer::PhaseTimer(NowFn now) : now_(std::move(now)) {}

Clock::time_point PhaseTimer::now() const {
  return now_ ? now_() : Clock::now();
}

Phase PhaseTimer::phase(std::string name, Progress* progress, uint64_t total, ProgressUnit unit) {
  return Phase(this, progress, std::move(name), total, unit);
}

size_t PhaseTimer::open(std::string name) {
  creditMemoryToOpenPhases();  // and start the new phase's own window
  phases_.push_back(PhaseRecord{std::move(name), 0, open_depth_});
  open_.push_back(phases_.size() - 1);
  ++open_depth_;
  return phases_.size() - 1;
}

void PhaseTimer::close(size_t index, double seconds) {
  phases_[index].seconds = seconds;
  creditMemoryToOpenPhases();
  std::erase(open_, index);
  if (open_depth_ > 0) --open_depth_;
}

void PhaseTimer::creditMemoryToOpenPhases() {
  if (memory_ == nullptr) return;
  // The window since the last phase opened or closed lies inside every
  // phase open now.
  const uint64_t window = memory_->windowPeakBytes();
  for (size_t i : open_) {
    phases_[i].peak_anonymous_bytes = std::max(phases_[i].peak_anonymous_bytes, window);
  }
}

void PhaseTimer::add(std::string name, double seconds) {
  phases_.push_back(PhaseRecord{std::move(name), seconds, open_depth_});
}

double PhaseTimer::totalSeconds() const {
  double total = 0;
  for (const PhaseRecord& p : phases_) {
    if (p.depth == 0) total += p.seconds;
  }
  return total;
}

std::string PhaseTimer::render(uint64_t peak_rss_bytes) const {
  auto seconds = [](double s) {
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3f", s);
    return std::string(buf.data());
  };
  const double total = totalSeconds();
  TextTable table;
  table.addColumn("phase");
  table.addColumns({"seconds", "share"}, Align::Right);
  if (memory_ != nullptr) table.addColumn("peak anonymous memory", Align::Right);
  for (const PhaseRecord& p : phases_) {
    std::vector<std::string> row = {p.name, seconds(p.seconds),
                                    formatFraction(total > 0 ? p.seconds / total : 0)};
    if (memory_ != nullptr) row.push_back(formatBytes(p.peak_anonymous_bytes));
    table.addRow(std::move(row), p.depth);
  }
  std::vector<std::string> total_row = {"total", seconds(total), "100.0%"};
  if (memory_ != nullptr) total_row.push_back("");
  table.addRow(std::move(total_row));
  return table.renderText(0) + "peak memory: " + formatBytes(peak_rss_bytes) + "\n";
}

std::string PhaseTimer::render() const {
  return render(peakRssBytes());
}

void PhaseTimer::writeJson(JsonWriter& json, uint64_t peak_rss_bytes) const {
  json.beginObject();
  json.arrayOfObjects("phases", phases_, [&](const PhaseRecord& p) {
    json.field("name", p.name).field("seconds", p.seconds).field("depth", p.depth);
    if (memory_ != nullptr) json.field("peak_anonymous_bytes", p.peak_anonymous_bytes);
  });
  json.field("total_seconds", totalSeconds());
  json.field("peak_rss_bytes", peak_rss_bytes);
  json.endObject();
}

}  // namespace goheap::cli
