// Reading a running program's heap over HTTP, as a user does: the real
// goheap binary given http://127.0.0.1:PORT/debug/heapdump, served by the
// capture package's handler in tests/programs/captureprog (built with each
// Go release by make-dumps.sh). The oracle is the program's own report: how
// many *main.Session it holds and where each one is (%p), the garbage it
// dropped, its NumGC. Also: ?gc=1, a second request while a dump is in
// progress (429, named by goheap), diff and serve over URLs, and no
// temporary file left behind on either side.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/capture_program.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/param_names.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::CaptureProgram;
using testing::JsonValue;
using testing::RunResult;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().string());
  return names;
}

// Polls until `dir` is empty, for up to `seconds`: the handler removes its
// temporary file after the last byte, which goheap may have read first.
bool emptiesWithin(const std::string& dir, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!filesIn(dir).empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One test per Go release: captureprog built with it, run in a folder of
// the test's own; goheap's own temporary files (the downloads) go to
// another, and both must be empty when the test ends.
class CaptureEndToEnd : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    exe_ = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/captureprog";
    ASSERT_TRUE(fs::exists(exe_)) << exe_ << " missing: make-dumps.sh builds it";
    const std::string name =
        testing::testName(::testing::UnitTest::GetInstance()->current_test_info()->name());
    dir_ = testing::scratch().file("capture-" + name);
    goheap_tmp_ = dir_ + "/goheap-tmp";
    fs::create_directories(goheap_tmp_);
    const char* old = std::getenv("TMPDIR");
    had_tmpdir_ = old != nullptr;
    if (old != nullptr) saved_tmpdir_ = old;
    // goheap inherits it: its downloads go there.
    ::setenv("TMPDIR", goheap_tmp_.c_str(), 1);
    program_ = std::make_unique<CaptureProgram>(exe_, dir_ + "/program");
    ASSERT_TRUE(program_->started()) << program_->problem();
  }

  void TearDown() override {
    if (program_ && program_->started()) {
      EXPECT_TRUE(emptiesWithin(program_->tmpdir(), 10))
          << "the capture handler left " << filesIn(program_->tmpdir()).front();
    }
    EXPECT_TRUE(filesIn(goheap_tmp_).empty())
        << "goheap left its download " << filesIn(goheap_tmp_).front();
    program_.reset();
    if (had_tmpdir_) {
      ::setenv("TMPDIR", saved_tmpdir_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

  std::string url(const std::string& target = "/debug/heapdump") const {
    return program_->url(target);
  }
  const JsonValue& report() const { return program_->report(); }

  // goheap ARGS, expected to succeed with one JSON document on stdout.
  JsonValue runJson(const std::vector<std::string>& args) {
    RunResult r = testing::runGoheap(args);
    EXPECT_TRUE(r.exited && r.code == 0) << r.describe();
    if (!r.exited || r.code != 0) return JsonValue();
    return JsonValue::parse(r.out);
  }

  std::string exe_, dir_, goheap_tmp_, saved_tmpdir_;
  bool had_tmpdir_ = false;
  std::unique_ptr<CaptureProgram> program_;
};

TEST_P(CaptureEndToEnd, SummaryAndTopCountTheSessionsTheProgramHolds) {
  const uint64_t sessions = report()["sessions"].u64();
  ASSERT_GE(sessions, 500u);

  const JsonValue summary = runJson({"summary", url(), exe_, "--json"});
  EXPECT_EQ(summary["file"].str(), url()) << "the heap is named by its URL, not the download";
  EXPECT_TRUE(summary["executable"]["used"].boolean()) << summary["executable"]["problem"].str();
  EXPECT_EQ(summary["go_version"].str(), report()["go_version"].str());

  // The download is a phase of its own: after "request", the wait while
  // the handler writes the dump.
  RunResult timed = testing::runGoheap({"summary", url(), exe_, "--timings"});
  EXPECT_TRUE(timed.exited && timed.code == 0) << timed.describe();
  EXPECT_TRUE(contains(timed.err, "request") && contains(timed.err, "download"))
      << timed.describe();

  const JsonValue by_type = runJson({"top", url(), exe_, "--json", "--by", "type", "-n", "0"});
  const JsonValue* row = nullptr;
  for (const JsonValue& r : by_type["rows"].items()) {
    if (r["name"].str() == "main.Session") row = &r;
  }
  ASSERT_NE(row, nullptr) << "no main.Session row in top --by type";
  EXPECT_EQ((*row)["count"].u64(), sessions);
  EXPECT_GE((*row)["shallow"].u64(), sessions * report()["session_size"].u64());

  // allocsites set MemProfileRate to 1 before the sessions were made: every
  // one of them is named by its allocation site.
  const JsonValue by_site =
      runJson({"top", url(), exe_, "--json", "--by", "site", "--filter", "main.newSession"});
  ASSERT_EQ(by_site["rows"].size(), 1u) << "one allocation site of the sessions";
  EXPECT_EQ(by_site["rows"][0]["count"].u64(), sessions) << by_site["rows"][0]["name"].str();
}

TEST_P(CaptureEndToEnd, TheReportedAddressesAreSessionsInTheDownloadedHeap) {
  const auto& addrs = report()["session_addrs"].items();
  ASSERT_EQ(addrs.size(), report()["sessions"].u64());
  for (const size_t i : {size_t{0}, addrs.size() / 2, addrs.size() - 1}) {
    const std::string addr = addrs[i].str();
    SCOPED_TRACE(addr);
    const JsonValue obj = runJson({"obj", url(), exe_, addr, "--json"});
    EXPECT_EQ(obj["object"]["address"].hexAddress(), addrs[i].hexAddress());
    EXPECT_EQ(obj["type"].str(), "main.Session");
    EXPECT_TRUE(obj["reachable"].boolean());
    EXPECT_GE(obj["size"].u64(), report()["session_size"].u64());
  }
}

TEST_P(CaptureEndToEnd, GcParameterCollectsTheDroppedGarbageFirst) {
  const uint64_t garbage = report()["garbage"].u64();
  const uint64_t num_gc = report()["num_gc"].u64();

  // The collector is off in the program: the garbage it dropped is still
  // in the heap, and no collection ran.
  const JsonValue before = runJson({"summary", url(), "--json"});
  EXPECT_GE(before["objects"]["garbage_count"].u64(), garbage);
  EXPECT_EQ(before["memstats"]["num_gc"].u64(), num_gc);

  const std::string gc_url = url("/debug/heapdump?gc=1");
  const JsonValue after = runJson({"summary", gc_url, "--json"});
  EXPECT_EQ(after["file"].str(), gc_url);
  EXPECT_GT(after["memstats"]["num_gc"].u64(), num_gc) << "?gc=1 ran no collection";
  EXPECT_LT(after["objects"]["garbage_count"].u64(), garbage)
      << "the dropped objects outlived the collection";
  // The sessions are alive either way.
  EXPECT_GE(after["objects"]["reachable_count"].u64(), report()["sessions"].u64());
}

TEST_P(CaptureEndToEnd, ASecondRequestDuringADumpIsRefusedWith429) {
  // The first download holds the dump: the program's /slow/heapdump waits
  // with the body until /release, with the capture lock held.
  const std::string out = dir_ + "/first.out", err = dir_ + "/first.err";
  const pid_t first = testing::spawnGoheap({"summary", url("/slow/heapdump"), exe_}, out, err);
  ASSERT_GT(first, 0);
  // The dump is written when its temporary file appears.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (filesIn(program_->tmpdir()).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(filesIn(program_->tmpdir()).size(), 1u) << "the first dump was not being written";

  RunResult second = testing::runGoheap({"summary", url(), exe_});
  EXPECT_TRUE(second.exited && second.code == 1) << second.describe();
  EXPECT_EQ(second.out, "");
  EXPECT_TRUE(contains(second.err, "goheap: cannot download " + url() +
                                       ": the server answered 429 Too Many Requests: another "
                                       "heap dump is being written; try again in "))
      << second.describe();

  const testing::HttpAnswer released = testing::httpGet("127.0.0.1", program_->port(), "/release");
  EXPECT_EQ(released.status, 200);
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 3000 && !exited; i++) {  // up to a minute
    exited = ::waitpid(first, &status, WNOHANG) == first;
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exited) {
    ::kill(first, SIGKILL);
    ::waitpid(first, &status, 0);
  }
  ASSERT_TRUE(exited) << "the first download did not finish after /release";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << readWholeFile(err);
  EXPECT_TRUE(contains(readWholeFile(out), url("/slow/heapdump"))) << readWholeFile(out);

  // Once it is done, dumps are given again.
  const JsonValue again = runJson({"summary", url(), "--json"});
  EXPECT_EQ(again["file"].str(), url());
}

TEST_P(CaptureEndToEnd, DiffReportAndServeReadUrls) {
  // Two dumps of the running program, one after the other: the sessions
  // are old in the second (same addresses, sites and types).
  const JsonValue diff = runJson({"diff", url(), url("/debug/heapdump?gc=1"), exe_, "--json"});
  EXPECT_EQ(diff["old"]["file"].str(), url());
  EXPECT_EQ(diff["new"]["file"].str(), url("/debug/heapdump?gc=1"));
  for (const JsonValue& row : diff["rows"].items()) {
    EXPECT_NE(row["name"].str(), "main.Session") << "the sessions changed between two dumps";
  }

  // report takes the URL for the dump (not for the executable).
  const std::string html = dir_ + "/report.html";
  RunResult report_run = testing::runGoheap({"report", url(), exe_, "--html", html});
  EXPECT_TRUE(report_run.exited && report_run.code == 0) << report_run.describe();
  const JsonValue report_json = JsonValue::parseFile(dir_ + "/report.json");
  EXPECT_EQ(report_json["dump"].str(), url());

  testing::ServeProcess serve({url(), exe_, "--http", "127.0.0.1:0"});
  ASSERT_TRUE(serve.serving()) << serve.stderrText();
  ASSERT_EQ(serve.waitLoaded(), "ready") << serve.stderrText();
  const testing::HttpAnswer summary = serve.get("/api/summary");
  ASSERT_EQ(summary.status, 200) << summary.body;
  EXPECT_EQ(JsonValue::parse(summary.body)["file"].str(), url());
  // The download stays while the server reads from it, and goes with it:
  // TearDown checks that goheap's TMPDIR is empty after the server stops.
  EXPECT_EQ(filesIn(goheap_tmp_).size(), 1u) << "the server's heap is its download";
}

INSTANTIATE_TEST_SUITE_P(Go, CaptureEndToEnd, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
