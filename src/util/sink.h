// Where every stage of opening a heap tells what it is doing and what the
// user should know: the phases it runs (with their progress) and its
// warnings and notes. One interface from the readers up: the dump and core
// readers, snap, the download, the analysis, the cache and the exporters all
// report to a Sink, and each front end shows it its own way (the commands a
// progress line and warnings on stderr, the server its /api/status).
//
// Calls come from the thread that runs the stage; every member may be left
// as it is, so a stage given no Sink reports to a NullSink.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace goheap {

class Sink {
 public:
  virtual ~Sink() = default;
  // A phase starts: "read dump", "build graph", ... `total` is the amount
  // progress() counts towards (the file's bytes for reading), 0 when the
  // phase does not report progress.
  virtual void beginPhase(std::string_view /*name*/, uint64_t /*total*/) {}
  virtual void progress(uint64_t /*done*/) {}
  virtual void endPhase() {}
  // Something the user should know, already worded: a dump's oddity, an
  // executable that does not match.
  virtual void warning(const std::string& /*text*/) {}
  // Worth saying but not wrong: the executable has no DWARF.
  virtual void note(const std::string& /*text*/) {}
};

// Hears nothing.
class NullSink final : public Sink {};

// Appends the warnings told to it to `into` (notes go nowhere): where a
// stage's warnings are kept as data (a heap model's, which the index cache
// stores with it) or shown apart from others' (goheap core-info's sections).
class WarningList final : public Sink {
 public:
  explicit WarningList(std::vector<std::string>& into) : into_(into) {}
  void warning(const std::string& text) override { into_.push_back(text); }

 private:
  std::vector<std::string>& into_;
};

// A NullSink for a stage whose caller gives none (it holds no state).
inline Sink& nullSink() {
  static NullSink sink;
  return sink;
}

// Times `fn` as the phase `name` of `sink` (no progress), and returns what it
// returns.
template <class Fn>
auto inPhase(Sink& sink, std::string_view name, Fn&& fn) {
  struct End {
    Sink& s;
    ~End() { s.endPhase(); }
  };
  sink.beginPhase(name, 0);
  End end{sink};
  return fn();
}

// Passes everything on to `to`, each phase's name with `suffix` (" (OLD)"):
// what tells apart the phases of two heaps a front end opens at once.
class SuffixedSink final : public Sink {
 public:
  SuffixedSink(Sink& to, std::string suffix) : to_(to), suffix_(std::move(suffix)) {}
  void beginPhase(std::string_view name, uint64_t total) override {
    to_.beginPhase(std::string(name) + suffix_, total);
  }
  void progress(uint64_t done) override { to_.progress(done); }
  void endPhase() override { to_.endPhase(); }
  void warning(const std::string& text) override { to_.warning(text); }
  void note(const std::string& text) override { to_.note(text); }

 private:
  Sink& to_;
  std::string suffix_;
};

}  // namespace goheap
