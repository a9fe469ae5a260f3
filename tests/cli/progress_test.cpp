#include "cli/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "util/json_writer.h"

namespace goheap::cli {
namespace {

using std::chrono::milliseconds;

// A temporary file standing in for stderr; what was written is read back.
class Capture {
 public:
  Capture() : file_(std::tmpfile(), &std::fclose) {}
  std::FILE* get() const { return file_.get(); }
  std::string text() const {
    std::fflush(file_.get());
    std::rewind(file_.get());
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_.get())) > 0) s.append(buf, n);
    return s;
  }

 private:
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
};

// A clock that moves only when told to.
struct FakeClock {
  Clock::time_point t{};
  NowFn fn() {
    return [this] { return t; };
  }
  void advance(milliseconds d) { t += d; }
};

TEST(Progress, DisabledWritesNothing) {
  Capture out;
  Progress p(out.get(), false);
  p.begin("reading dump", 2048);
  p.update(1024);
  p.end();
  EXPECT_EQ(out.text(), "");
  EXPECT_FALSE(p.enabled());
}

TEST(Progress, NotWantedWhenNotATerminalOrOptedOut) {
  Capture out;
  EXPECT_FALSE(Progress::wanted(out.get(), false));  // a file is not a terminal
  EXPECT_FALSE(Progress::wanted(stderr, true));
  EXPECT_FALSE(Progress::wanted(nullptr, false));
}

TEST(Progress, DrawsPercentAndAmountsThenClears) {
  Capture out;
  FakeClock clock;
  {
    Progress p(out.get(), true, clock.fn());
    p.begin("reading dump", 3 * 1024 * 1024);
    clock.advance(milliseconds(150));
    p.update(1024 * 1024 + 512 * 1024);
    p.end();
  }
  EXPECT_EQ(out.text(),
            "\rreading dump  0% (0 B / 3 MiB)"
            "\rreading dump  50% (1.5 MiB / 3 MiB)"
            "\r" +
                std::string(35, ' ') + "\r");
}

TEST(Progress, RedrawsAtMostTenTimesASecond) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("scan", 100, ProgressUnit::Items);
  for (int i = 1; i <= 50; ++i) {
    clock.advance(milliseconds(10));
    p.update(static_cast<uint64_t>(i));
  }
  std::string text = out.text();
  size_t draws = 0;
  for (char c : text) draws += c == '\r';
  // The first draw at begin(), then one per 100 ms of the 500 ms.
  EXPECT_EQ(draws, 6u) << text;
  EXPECT_NE(text.find("\rscan  50% (50 / 100)"), std::string::npos) << text;
}

TEST(Progress, ItemsAreCountedWithSeparators) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("building graph", 2000000, ProgressUnit::Items);
  clock.advance(milliseconds(100));
  p.update(1234567);
  EXPECT_NE(out.text().find("\rbuilding graph  61% (1,234,567 / 2,000,000)"), std::string::npos)
      << out.text();
}

TEST(Progress, UnknownTotalShowsTheAmountOnly) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("dominators");
  clock.advance(milliseconds(100));
  p.update(2048);
  EXPECT_EQ(out.text(), "\rdominators\rdominators  2 KiB");
}

TEST(Progress, NeverShowsMoreThanTheTotal) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("x", 10, ProgressUnit::Items);
  clock.advance(milliseconds(100));
  p.update(99);
  EXPECT_NE(out.text().find("x  100% (10 / 10)"), std::string::npos) << out.text();
}

TEST(Progress, AlmostDoneIsNotYetHundred) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("x", 100000, ProgressUnit::Items);
  clock.advance(milliseconds(100));
  p.update(99999);
  EXPECT_NE(out.text().find("x  99% ("), std::string::npos) << out.text();
}

TEST(Progress, AdvanceAddsUp) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("x", 10, ProgressUnit::Items);
  p.advance(3);
  clock.advance(milliseconds(100));
  p.advance(2);
  EXPECT_NE(out.text().find("x  50% (5 / 10)"), std::string::npos) << out.text();
}

TEST(Progress, ShorterLineBlanksTheRestOfTheLongerOne) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("a long phase name");
  p.end();
  p.begin("short");
  EXPECT_EQ(out.text(), "\ra long phase name\r                 \r\rshort");
}

TEST(Progress, MessageKeepsTheLineIntact) {
  Capture out;
  FakeClock clock;
  Progress p(out.get(), true, clock.fn());
  p.begin("reading");
  p.message("warning: no executable");
  EXPECT_EQ(out.text(), "\rreading\r       \rwarning: no executable\n\rreading");
}

TEST(Progress, MessageIsPrintedEvenWhenDisabled) {
  Capture out;
  Progress p(out.get(), false);
  p.message("warning: x");
  EXPECT_EQ(out.text(), "warning: x\n");
}

TEST(PhaseTimer, RecordsPhasesAndRendersShares) {
  FakeClock clock;
  PhaseTimer timer(clock.fn());
  {
    Phase read = timer.phase("read dump");
    clock.advance(milliseconds(1500));
  }
  {
    Phase graph = timer.phase("build graph");
    clock.advance(milliseconds(500));
  }
  ASSERT_EQ(timer.phases().size(), 2u);
  EXPECT_DOUBLE_EQ(timer.phases()[0].seconds, 1.5);
  EXPECT_DOUBLE_EQ(timer.totalSeconds(), 2.0);
  EXPECT_EQ(timer.render(3 * 1024 * 1024),
            "phase        seconds   share\n"
            "read dump      1.500   75.0%\n"
            "build graph    0.500   25.0%\n"
            "total          2.000  100.0%\n"
            "peak memory: 3 MiB\n");
}

TEST(PhaseTimer, NestedPhasesAreIndentedAndNotCountedTwice) {
  FakeClock clock;
  PhaseTimer timer(clock.fn());
  {
    Phase outer = timer.phase("graph");
    clock.advance(milliseconds(100));
    {
      Phase inner = timer.phase("sort edges");
      clock.advance(milliseconds(300));
    }
  }
  EXPECT_DOUBLE_EQ(timer.totalSeconds(), 0.4);
  ASSERT_EQ(timer.phases().size(), 2u);
  EXPECT_EQ(timer.phases()[1].depth, 1u);
  EXPECT_EQ(timer.render(0),
            "phase         seconds   share\n"
            "graph           0.400  100.0%\n"
            "  sort edges    0.300   75.0%\n"
            "total           0.400  100.0%\n"
            "peak memory: 0 B\n");
}

// The oracle is the kernel's own count (RssAnon): 64 MiB touched inside the
// middle phase must show there, and a parent shows its children's peak.
TEST(PhaseTimer, SampledMemoryGivesEachPhaseItsOwnPeak) {
  if (anonymousMemoryBytes() == 0) GTEST_SKIP() << "no RssAnon on this system";
  AnonymousMemoryPeak memory;
  PhaseTimer timer;
  timer.sampleMemory(&memory);
  constexpr size_t kBlock = 64u << 20;
  uint64_t before_block = 0;
  {
    Phase outer = timer.phase("outer");
    { Phase quiet = timer.phase("quiet"); }
    before_block = anonymousMemoryBytes();
    {
      Phase busy = timer.phase("busy");
      std::vector<uint8_t> block(kBlock, 1);
      EXPECT_EQ(block[kBlock / 2], 1);
      busy.finish();
    }
    { Phase after = timer.phase("after"); }
  }
  const std::vector<PhaseRecord>& p = timer.phases();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_GE(p[2].peak_anonymous_bytes, before_block + kBlock * 9 / 10);
  EXPECT_LT(p[3].peak_anonymous_bytes, p[2].peak_anonymous_bytes - kBlock / 2);
  EXPECT_GE(p[0].peak_anonymous_bytes, p[2].peak_anonymous_bytes);
  EXPECT_NE(timer.render(0).find("peak anonymous memory"), std::string::npos);
}

TEST(PhaseTimer, FinishEndsAPhaseEarlyOnce) {
  FakeClock clock;
  PhaseTimer timer(clock.fn());
  Phase p = timer.phase("x");
  clock.advance(milliseconds(200));
  p.finish();
  clock.advance(milliseconds(900));
  p.finish();
  EXPECT_DOUBLE_EQ(timer.phases()[0].seconds, 0.2);
}

TEST(PhaseTimer, PhaseDrivesTheProgressLine) {
  Capture out;
  FakeClock clock;
  Progress progress(out.get(), true, clock.fn());
  PhaseTimer timer(clock.fn());
  {
    Phase p = timer.phase("reading dump", &progress, 4096);
    clock.advance(milliseconds(100));
    p.update(1024);
  }
  EXPECT_EQ(out.text(),
            "\rreading dump  0% (0 B / 4 KiB)"
            "\rreading dump  25% (1 KiB / 4 KiB)"
            "\r" +
                std::string(33, ' ') + "\r");
  EXPECT_DOUBLE_EQ(timer.phases()[0].seconds, 0.1);
}

TEST(PhaseTimer, PhaseWorksWithoutATimer) {
  Capture out;
  Progress progress(out.get(), true);
  { Phase p(nullptr, &progress, "x"); }
  EXPECT_EQ(out.text(), "\rx\r \r");
}

TEST(PhaseTimer, RecordsPhasesTimedElsewhere) {
  PhaseTimer timer;
  timer.add("external", 0.25);
  EXPECT_DOUBLE_EQ(timer.totalSeconds(), 0.25);
}

TEST(PhaseTimer, JsonForm) {
  FakeClock clock;
  PhaseTimer timer(clock.fn());
  {
    Phase p = timer.phase("read");
    clock.advance(milliseconds(250));
  }
  std::string out;
  JsonWriter json(out);
  timer.writeJson(json, 4096);
  EXPECT_EQ(out, R"({"phases":[{"name":"read","seconds":0.25,"depth":0}],)"
                 R"("total_seconds":0.25,"peak_rss_bytes":4096})");
  EXPECT_TRUE(json.complete());
}

TEST(PeakRss, IsKnownOnThisSystem) {
  EXPECT_GT(peakRssBytes(), 1024u * 1024u);  // a test binary uses more than a megabyte
}

}  // namespace
}  // namespace goheap::cli
