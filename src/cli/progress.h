// What a long command tells the person waiting for it: a progress line on
// stderr while a phase runs ("reading dump  42% (1.2 GiB / 2.9 GiB)"), and
// with --timings the wall time of every phase and the peak memory at the end.
//
// A command owns one Progress and one PhaseTimer and opens a Phase for each
// step; the Phase times the step and drives the progress line:
//
//   Progress progress(stderr, Progress::wanted(stderr, args.has("no-progress") || json));
//   PhaseTimer timer;
//   {
//     Phase read = timer.phase("reading dump", &progress, file.size());
//     ... read.update(bytes_done); ...
//   }  // the line is cleared and the time recorded here
//   if (args.getBool("timings")) std::fputs(timer.render().c_str(), stderr);
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/process_memory.h"
#include "util/sink.h"

namespace goheap {
class JsonWriter;
}

namespace goheap::cli {

using Clock = std::chrono::steady_clock;
// Where the time comes from; tests pass a fake clock. Empty means Clock::now.
using NowFn = std::function<Clock::time_point()>;

// What the units of a phase count, for the numbers on the progress line.
enum class ProgressUnit : uint8_t { Bytes, Items };

class Progress {
 public:
  // The minimum time between two redraws: ten a second looks live and costs
  // nothing next to the work.
  static constexpr std::chrono::milliseconds kRedrawInterval{100};

  // Draws on `out` only when `enabled`; a disabled Progress does nothing and
  // costs one branch per call.
  Progress(std::FILE* out, bool enabled, NowFn now = {});
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Whether a command should enable progress on `out`: it is a terminal and
  // the caller did not opt out (--no-progress, or --json, whose consumers are
  // programs).
  static bool wanted(std::FILE* out, bool disabled_by_caller);

  bool enabled() const { return enabled_; }

  // Starts a phase and draws its line at once. `total` 0 means unknown: the
  // line then shows the amount done without a percentage.
  void begin(std::string_view phase, uint64_t total = 0, ProgressUnit unit = ProgressUnit::Bytes);
  // The amount done so far in this phase. Cheap enough for a loop that calls
  // it every few thousand items; redraws at most every kRedrawInterval. May
  // be called from several threads (one of them draws, the rest return).
  void update(uint64_t done);
  // Adds to the amount done, for workers that each know only their share.
  void advance(uint64_t delta);
  // Clears the line; the phase is over.
  void end();
  // Prints `line` (a warning, say) on a line of its own without leaving the
  // progress line garbled; the progress line is redrawn under it.
  void message(std::string_view line);

 private:
  void maybeDraw();
  void drawLocked();
  void clearLocked();
  Clock::time_point now() const;

  std::FILE* out_;
  bool enabled_;
  NowFn now_;
  std::mutex mutex_;  // guards everything below but done_
  std::atomic<uint64_t> done_{0};
  std::string phase_;
  uint64_t total_ = 0;
  ProgressUnit unit_ = ProgressUnit::Bytes;
  bool active_ = false;
  size_t drawn_width_ = 0;  // code points on screen now, to blank them later
  Clock::time_point last_draw_{};
};

// The wall time of one phase; depth > 0 for phases opened inside another.
struct PhaseRecord {
  std::string name;
  double seconds = 0;
  uint32_t depth = 0;
  // The most anonymous memory seen while the phase ran; 0 when the timer
  // samples none.
  uint64_t peak_anonymous_bytes = 0;
};

class PhaseTimer;

// Times one phase from construction to finish() or destruction and, when
// given a Progress, shows the phase on it meanwhile.
class [[nodiscard]] Phase {
 public:
  Phase(PhaseTimer* timer, Progress* progress, std::string name, uint64_t total = 0,
        ProgressUnit unit = ProgressUnit::Bytes);
  Phase(Phase&& other) noexcept;
  Phase& operator=(Phase&&) = delete;
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
  ~Phase() { finish(); }

  void update(uint64_t done) {
    if (progress_ != nullptr) progress_->update(done);
  }
  void advance(uint64_t delta) {
    if (progress_ != nullptr) progress_->advance(delta);
  }
  // Ends the phase early; later calls do nothing.
  void finish();

 private:
  PhaseTimer* timer_;
  Progress* progress_;
  size_t index_ = 0;  // of this phase's record in the timer
  Clock::time_point start_;
  bool finished_ = false;
};

class PhaseTimer {
 public:
  explicit PhaseTimer(NowFn now = {});

  // Opens a phase; it is recorded in the order phases start, nested under
  // any phase still open. Give `progress` only to phases that should show a
  // line: a nested phase's line replaces its parent's.
  Phase phase(std::string name, Progress* progress = nullptr, uint64_t total = 0,
              ProgressUnit unit = ProgressUnit::Bytes);
  // Records a phase timed elsewhere (another thread, another tool).
  void add(std::string name, double seconds);
  // From now on, each phase also records the peak of `memory` while it ran
  // (PhaseRecord::peak_anonymous_bytes), and render() shows it. `memory`
  // must outlive the timer's phases.
  void sampleMemory(AnonymousMemoryPeak* memory) { memory_ = memory; }

  const std::vector<PhaseRecord>& phases() const { return phases_; }
  // The sum of the outermost phases (nested ones are inside them).
  double totalSeconds() const;

  // One line per phase: name (indented when nested), seconds, share of the
  // total and, when sampled, the phase's peak anonymous memory; then the
  // total and "peak memory: 1.2 GiB".
  std::string render(uint64_t peak_rss_bytes) const;
  std::string render() const;
  // {"phases":[{"name","seconds","depth"}...],"total_seconds","peak_rss_bytes"}
  // as one object, for --json together with --timings.
  void writeJson(JsonWriter& json, uint64_t peak_rss_bytes) const;

 private:
  friend class Phase;
  size_t open(std::string name);
  void close(size_t index, double seconds);
  void creditMemoryToOpenPhases();
  Clock::time_point now() const;

  NowFn now_;
  std::vector<PhaseRecord> phases_;
  uint32_t open_depth_ = 0;
  AnonymousMemoryPeak* memory_ = nullptr;
  std::vector<size_t> open_;  // indexes of the phases not yet closed
};

// A Sink for a command: each phase on the progress line and in --timings,
// the warnings and notes on stderr ("goheap: warning: ...").
class PhaseSink final : public Sink {
 public:
  // `unit`: what the phases count (bytes read, or items written).
  PhaseSink(Progress& progress, PhaseTimer& timer, ProgressUnit unit = ProgressUnit::Bytes)
      : progress_(progress), timer_(timer), unit_(unit) {}

  void beginPhase(std::string_view name, uint64_t total) override {
    current_.emplace(timer_.phase(std::string(name), &progress_, total, unit_));
  }
  void progress(uint64_t done) override {
    if (current_) current_->update(done);
  }
  void endPhase() override { current_.reset(); }
  void warning(const std::string& text) override { progress_.message("goheap: warning: " + text); }
  void note(const std::string& text) override { progress_.message("goheap: note: " + text); }

 private:
  Progress& progress_;
  PhaseTimer& timer_;
  ProgressUnit unit_;
  std::optional<Phase> current_;
};

// Warnings and notes on stderr, as PhaseSink tells them, for work with no
// progress line (what goes on after a heap is opened).
class WarningsOnStderr final : public Sink {
 public:
  // `who` starts each line: "goheap", or "goheap mcp" for the MCP server,
  // whose stdout is the protocol's.
  explicit WarningsOnStderr(std::string who = "goheap") : who_(std::move(who)) {}
  void warning(const std::string& text) override {
    std::fprintf(stderr, "%s: warning: %s\n", who_.c_str(), text.c_str());
  }
  void note(const std::string& text) override {
    std::fprintf(stderr, "%s: note: %s\n", who_.c_str(), text.c_str());
  }

 private:
  std::string who_;
};

}  // namespace goheap::cli
