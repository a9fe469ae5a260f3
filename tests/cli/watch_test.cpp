// goheap watch against a program that leaks all the time
// (tests/programs/watchprog: one *main.LeakedRecord and its buffer every
// 5 ms), run by the real binary as a user would:
//  - --every 2s --count 3 --json: three JSON lines, each with its pause;
//    the last one's diff names main.LeakedRecord, and its growth lies
//    within what the program says it leaked meanwhile;
//  - each trigger: the RSS crossing a bound (the kernel's VmRSS the
//    oracle), a v1 memory cgroup the test makes crossing a share of its
//    limit, a v2 cgroup folder the test lays out and then fills, the Go
//    heap's growth (the program's own runtime.MemStats the oracle);
//  - --keep: the baseline and the latest snaps stay, the executable once;
//  - the end: SIGTERM and the process exiting end the watch cleanly with a
//    closing report, and the process runs on, not stopped;
//  - --metrics: a real Prometheus scrapes it every second, and the leaking
//    type's series, read back through Prometheus's query API, grows.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/export_support.h"
#include "support/goheap_process.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/live_process.h"
#include "support/memory_cgroup.h"
#include "support/test_paths.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;
using testing::LiveProcess;
using testing::RunResult;

// The release the program is built with: any does, watch reads them all.
const std::string kVersion = "go1.24";
const std::string kLeakedType = "main.LeakedRecord";

using testing::readWholeFile;
using testing::writeWholeFile;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The number after `word ` in the program's answer to `word`.
uint64_t ask(LiveProcess& p, const std::string& word) {
  EXPECT_TRUE(p.writeLine(word));
  const std::string line = p.readLine();
  EXPECT_TRUE(line.starts_with(word + " ")) << line;
  return line.size() > word.size() ? std::stoull(line.substr(word.size() + 1)) : 0;
}

uint64_t vmRss(pid_t pid) {
  return testing::residentBytes(pid);
}

std::vector<std::string> coresIn(const std::string& dir) {
  std::vector<std::string> cores;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".core") cores.push_back(e.path().filename().string());
  }
  std::sort(cores.begin(), cores.end());
  return cores;
}

// Waits for `pid` (a goheap spawned by the test) at most `seconds`, then
// kills it; its exit code, or -1 when it had to be killed or crashed.
int waitFor(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  for (;;) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "goheap watch did not end within " << seconds << " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Polls `path` until it holds `lines` non-empty lines, at most `seconds`.
bool waitForLines(const std::string& path, size_t lines, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (linesOf(readWholeFile(path)).size() < lines) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The row of `rows` (a diff's) named `name`, or null.
const JsonValue* rowNamed(const JsonValue& rows, const std::string& name) {
  for (size_t i = 0; i < rows.size(); i++) {
    if (rows[i]["name"].str() == name) return &rows[i];
  }
  return nullptr;
}

// "1.55 MiB", "512 B" (formatBytes) in bytes.
double bytesIn(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  std::string unit;
  in >> value >> unit;
  const std::vector<std::pair<std::string, double>> units = {
      {"B", 1}, {"KiB", 1024}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return value * scale;
  }
  ADD_FAILURE() << "not a size: " << text;
  return 0;
}

class WatchSnap : public ::testing::Test {
 protected:
  void SetUp() override {
    exe_ = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + kVersion + "/watchprog";
    ASSERT_TRUE(fs::exists(exe_)) << exe_ << " missing: make-dumps.sh builds it";
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = testing::scratch().file("watch-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    snaps_ = dir_ + "/snaps";
  }

  // watchprog leaking `bytes` per record, ready.
  std::unique_ptr<LiveProcess> start(uint64_t bytes) {
    auto p =
        std::make_unique<LiveProcess>(std::vector<std::string>{exe_, std::to_string(bytes)}, dir_);
    EXPECT_TRUE(p->started());
    EXPECT_EQ(p->readLine(), "ready");
    return p;
  }

  std::string exe_, dir_, snaps_;
};

TEST_F(WatchSnap, EveryTwoSecondsJsonDiffNamesTheLeakingType) {
  auto prog = start(8192);
  const uint64_t count_before = ask(*prog, "count");
  const RunResult r = testing::runGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_,
                                          "--every", "2s", "--count", "3", "--json"});
  const uint64_t count_after = ask(*prog, "count");
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::vector<std::string> lines = linesOf(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.describe();
  std::vector<JsonValue> snaps;
  for (const std::string& line : lines) snaps.push_back(JsonValue::parse(line));
  for (const JsonValue& s : snaps) {
    EXPECT_TRUE(fs::exists(s["snap"].str())) << s["snap"].str();
    EXPECT_EQ(s["trigger"].str(), "every");
    // Each snap's pause is there, and short: the process forks.
    EXPECT_GT(s["pause_seconds"].number(), 0);
    EXPECT_LT(s["pause_seconds"].number(), 1.0);
    EXPECT_GT(s["rss_bytes"].u64(), 1u << 20);
    EXPECT_EQ(s["time"].str().size(), std::string("2026-11-29T14:05:02.123Z").size());
  }
  EXPECT_TRUE(snaps[0]["diff"].isNull());
  EXPECT_FALSE(snaps[1]["diff"].isNull());
  // The last diff is goheap diff --json of the first snap and the last.
  const JsonValue& diff = snaps[2]["diff"];
  EXPECT_EQ(diff["old"]["file"].str(), snaps[0]["snap"].str());
  EXPECT_EQ(diff["new"]["file"].str(), snaps[2]["snap"].str());
  const JsonValue* leaked = rowNamed(diff["rows"], kLeakedType);
  ASSERT_NE(leaked, nullptr) << lines[2];
  // Both snaps fell between the program's two counts, 4 s apart: at most
  // what it leaked meanwhile, and (at one per 5 ms, slept) a good part of it.
  const int64_t grown = static_cast<int64_t>(leaked->operator[]("count_delta").number());
  EXPECT_LE(grown, static_cast<int64_t>(count_after - count_before));
  EXPECT_GE(grown, 200);
  // Each record keeps its 8 KiB buffer.
  EXPECT_GE(leaked->operator[]("retained_delta").number(), static_cast<double>(grown) * 8192);
  // Three cores kept (--keep 3), and one copy of the executable.
  EXPECT_EQ(coresIn(snaps_).size(), 3u);
  EXPECT_TRUE(fs::exists(snaps_ + "/watchprog"));
  EXPECT_NE(r.err.find("watch ended: took the 3 snaps --count asked for"), std::string::npos)
      << r.err;
  EXPECT_EQ(testing::leftAsFound(prog->pid()), "");
}

TEST_F(WatchSnap, TextSaysWhatGrewAndTheCoresFindTheirCopiedExecutable) {
  // Run from a copy that is deleted while watched: the cores then find the
  // executable only through the copy in DIR.
  const std::string copy = dir_ + "/leaker";
  fs::copy_file(exe_, copy);
  exe_ = copy;
  auto prog = start(4096);
  fs::remove(copy);
  const RunResult r = testing::runGoheap(
      {"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "1s", "--count", "2"});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.out.find("what grew since the first snap"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kLeakedType), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("paused"), std::string::npos) << r.out;
  const std::vector<std::string> cores = coresIn(snaps_);
  ASSERT_EQ(cores.size(), 2u);
  const RunResult d = testing::runGoheap(
      {"diff", snaps_ + "/" + cores[0], snaps_ + "/" + cores[1], "--json", "-n", "0"});
  ASSERT_EQ(d.code, 0) << d.describe();
  const JsonValue diff = JsonValue::parse(d.out);
  EXPECT_EQ(diff["by"].str(), "type");
  EXPECT_NE(rowNamed(diff["rows"], kLeakedType), nullptr);
}

TEST_F(WatchSnap, KeepsTheBaselineAndTheLatest) {
  auto prog = start(1024);
  const RunResult r =
      testing::runGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "300ms",
                          "--count", "4", "--keep", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::vector<std::string> lines = linesOf(r.out);
  ASSERT_EQ(lines.size(), 4u);
  const std::string first = fs::path(JsonValue::parse(lines[0])["snap"].str()).filename();
  const std::string last = fs::path(JsonValue::parse(lines[3])["snap"].str()).filename();
  EXPECT_EQ(coresIn(snaps_), (std::vector<std::string>{first, last}));
}

TEST_F(WatchSnap, MaxDiskNeverDeletesTheBaseline) {
  auto prog = start(1024);
  const RunResult r =
      testing::runGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "300ms",
                          "--count", "3", "--max-disk", "1K", "--json"});
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::vector<std::string> lines = linesOf(r.out);
  ASSERT_EQ(lines.size(), 3u);
  // Every snap is over 1 KiB: each later one goes at once, the first stays,
  // and each diff was made before its snap went.
  const std::string first = fs::path(JsonValue::parse(lines[0])["snap"].str()).filename();
  EXPECT_EQ(coresIn(snaps_), (std::vector<std::string>{first}));
  EXPECT_FALSE(JsonValue::parse(lines[2])["diff"].isNull());
  EXPECT_NE(r.err.find("above the disk budget of 1 KiB"), std::string::npos) << r.err;
}

TEST_F(WatchSnap, RssAboveFiresWhenTheRssCrosses) {
  auto prog = start(32768);  // 6 MiB/s
  const uint64_t bound = vmRss(prog->pid()) + (12 << 20);
  const auto started = std::chrono::steady_clock::now();
  const RunResult r =
      testing::runGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_, "--rss-above",
                          std::to_string(bound), "--count", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::vector<std::string> lines = linesOf(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  const JsonValue snap = JsonValue::parse(lines[0]);
  EXPECT_EQ(snap["trigger"].str(), "rss");
  EXPECT_GE(snap["rss_bytes"].u64(), bound);
  EXPECT_GE(vmRss(prog->pid()), bound);
  // Not before the RSS could have got there: 12 MiB at 6 MiB/s at most.
  EXPECT_GT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1000));
}

TEST_F(WatchSnap, CgroupAboveFiresInAV1MemoryCgroup) {
  const testing::MemoryCgroup cgroup("watch-test");
  ASSERT_TRUE(cgroup.usable()) << testing::MemoryCgroup::whyNotUsable();
  const uint64_t limit = 256 << 20;
  cgroup.setLimit(limit);
  auto prog = start(32768);
  cgroup.add(prog->pid());
  // Charged from now: the usage starts near 0 and grows 6 MiB/s.
  const RunResult r = testing::runGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_,
                                          "--cgroup-above", "5%", "--count", "1", "--json"});
  const uint64_t usage = cgroup.usage();
  prog->finish();
  ASSERT_EQ(r.code, 0) << r.describe();
  const std::vector<std::string> lines = linesOf(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  const JsonValue snap = JsonValue::parse(lines[0]);
  EXPECT_EQ(snap["trigger"].str(), "cgroup");
  EXPECT_NE(snap["why"].str().find(cgroup.dir()), std::string::npos) << snap["why"].str();
  EXPECT_GE(usage, limit / 20);
}

TEST_F(WatchSnap, CgroupAboveReadsCgroupV2) {
  auto prog = start(1024);
  // The process's v2 path ("0::/PATH"), laid out under a root of the test's
  // own with the files cgroup v2 has; usage at 10% of the limit.
  const std::string cgroups = readWholeFile("/proc/" + std::to_string(prog->pid()) + "/cgroup");
  const size_t at = cgroups.find("0::");
  ASSERT_NE(at, std::string::npos) << cgroups;
  const std::string path = cgroups.substr(at + 3, cgroups.find('\n', at) - at - 3);
  const std::string root = dir_ + "/cgroup2";
  const std::string folder = root + path;
  fs::create_directories(folder);
  writeWholeFile(folder + "/memory.max", "100000000\n");
  writeWholeFile(folder + "/memory.current", "10000000\n");
  ::setenv("GOHEAP_CGROUP_ROOT", root.c_str(), 1);
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch = testing::spawnGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_,
                                            "--cgroup-above", "50", "--count", "1", "--json"},
                                           out, err);
  ::unsetenv("GOHEAP_CGROUP_ROOT");
  ASSERT_GT(watch, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(readWholeFile(out), "") << "fired at 10% of the limit";
  writeWholeFile(folder + "/memory.current", "60000000\n");
  EXPECT_EQ(waitFor(watch, 20), 0) << readWholeFile(err);
  const std::vector<std::string> lines = linesOf(readWholeFile(out));
  ASSERT_EQ(lines.size(), 1u) << readWholeFile(err);
  const JsonValue snap = JsonValue::parse(lines[0]);
  EXPECT_EQ(snap["trigger"].str(), "cgroup");
  EXPECT_NE(snap["why"].str().find("60.0%"), std::string::npos) << snap["why"].str();
}

TEST_F(WatchSnap, GrowthFiresWhenTheGoHeapGrows) {
  auto prog = start(16384);
  // Held still while watch takes its reference, so that the program's own
  // figure and watch's reading of the runtime's counter are of one heap.
  ASSERT_EQ((prog->writeLine("pause"), prog->readLine()), "paused");
  const uint64_t heap_before = ask(*prog, "heapinuse");
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch = testing::spawnGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_,
                                            "--growth", "50", "--count", "1", "--json"},
                                           out, err);
  ASSERT_GT(watch, 0);
  for (int i = 0; i < 500 && readWholeFile(err).find("watching process") == std::string::npos;
       i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(readWholeFile(out), "") << "fired while the heap stood still";
  ASSERT_EQ((prog->writeLine("resume"), prog->readLine()), "resumed");
  EXPECT_EQ(waitFor(watch, 30), 0) << readWholeFile(err);
  const uint64_t heap_after = ask(*prog, "heapinuse");
  const std::vector<std::string> lines = linesOf(readWholeFile(out));
  ASSERT_EQ(lines.size(), 1u) << readWholeFile(err);
  const JsonValue snap = JsonValue::parse(lines[0]);
  EXPECT_EQ(snap["trigger"].str(), "growth");
  // The Go heap, read from the runtime's counter, fired it (RSS, which
  // counts the program's text too, grows by half later).
  const std::string why = snap["why"].str();
  ASSERT_TRUE(why.starts_with("Go heap grew from ")) << why;
  // "Go heap grew from 1.02 MiB to 1.55 MiB": watch's readings of the
  // runtime's counter, the first at the start, the second when it fired.
  const size_t to = why.find(" to ");
  ASSERT_NE(to, std::string::npos) << why;
  const double from_bytes = bytesIn(why.substr(18, to - 18));
  const double to_bytes = bytesIn(why.substr(to + 4));
  EXPECT_GE(to_bytes, 1.5 * from_bytes) << why;
  // The program's own HeapInuse agrees with the counter: the same while it
  // stood still, and no less after than when watch fired.
  EXPECT_NEAR(from_bytes, static_cast<double>(heap_before), 0.02 * static_cast<double>(heap_before))
      << why;
  EXPECT_LE(to_bytes, 1.02 * static_cast<double>(heap_after)) << why;
}

TEST_F(WatchSnap, SigtermEndsTheWatchAndTheProcessRunsOn) {
  auto prog = start(1024);
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch = testing::spawnGoheap(
      {"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "500ms", "--json"}, out, err);
  ASSERT_GT(watch, 0);
  ASSERT_TRUE(waitForLines(out, 2, 20)) << readWholeFile(err);
  ::kill(watch, SIGTERM);
  EXPECT_EQ(waitFor(watch, 20), 0) << readWholeFile(err);
  const std::string report = readWholeFile(err);
  EXPECT_NE(report.find("watch ended: interrupted"), std::string::npos) << report;
  EXPECT_NE(report.find("pauses"), std::string::npos) << report;
  EXPECT_EQ(testing::leftAsFound(prog->pid()), "");
  EXPECT_GT(ask(*prog, "count"), 0u);
}

TEST_F(WatchSnap, TheProcessExitingEndsTheWatch) {
  auto prog = start(1024);
  const pid_t pid = prog->pid();
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch = testing::spawnGoheap(
      {"watch", std::to_string(pid), "-o", snaps_, "--every", "500ms", "--json"}, out, err);
  ASSERT_GT(watch, 0);
  ASSERT_TRUE(waitForLines(out, 2, 20)) << readWholeFile(err);
  prog->finish();
  EXPECT_EQ(waitFor(watch, 20), 0) << readWholeFile(err);
  const std::string report = readWholeFile(err);
  EXPECT_NE(report.find("watch ended: process " + std::to_string(pid) + " exited"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("from the first to the last"), std::string::npos) << report;
}

TEST_F(WatchSnap, MistakesAreUsageErrors) {
  auto prog = start(1024);
  const std::string pid = std::to_string(prog->pid());
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"watch", pid},
           {"watch", pid, "-o", snaps_, "--every", "2"},
           {"watch", pid, "-o", snaps_, "--cgroup-above", "150"},
           {"watch", pid, "-o", snaps_, "--growth", "x"},
           {"watch", pid, "-o", snaps_, "--keep", "0"},
           {"watch", pid, "-o", snaps_, "--metrics", "0.0.0.0:0"},
       }) {
    const RunResult r = testing::runGoheap(args);
    EXPECT_EQ(r.code, 2) << args.back() << "\n" << r.describe();
    EXPECT_NE(r.err.find("goheap watch --help"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(snaps_));
}

// The port in "serving metrics at http://127.0.0.1:PORT/metrics".
uint16_t metricsPort(const std::string& err) {
  const std::string says = "serving metrics at http://127.0.0.1:";
  const size_t at = err.find(says);
  return at == std::string::npos ? 0
                                 : static_cast<uint16_t>(std::stoi(err.substr(at + says.size())));
}

TEST_F(WatchSnap, AllowRemoteMetricsNeedTheBearerToken) {
  auto prog = start(1024);
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch =
      testing::spawnGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "1s",
                            "--metrics", "127.0.0.1:0", "--allow-remote", "--json"},
                           out, err);
  ASSERT_GT(watch, 0);
  ASSERT_TRUE(waitForLines(out, 1, 20)) << readWholeFile(err);
  const uint16_t port = metricsPort(readWholeFile(err));
  ASSERT_NE(port, 0) << readWholeFile(err);
  // The token, in DIR/metrics.token for Prometheus's credentials_file,
  // readable by its owner only.
  const std::string token_file = snaps_ + "/metrics.token";
  std::string token = readWholeFile(token_file);
  while (!token.empty() && token.back() == '\n') token.pop_back();
  EXPECT_EQ(token.size(), 32u);
  EXPECT_EQ(fs::status(token_file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_NE(readWholeFile(err).find("bearer token " + token), std::string::npos);
  testing::HttpConnection c("127.0.0.1", port, 10);
  EXPECT_EQ(c.get("/metrics").status, 403);
  EXPECT_EQ(c.get("/metrics", {{"Authorization", "Bearer wrong"}}).status, 403);
  const testing::HttpAnswer a = c.get("/metrics", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(a.status, 200);
  EXPECT_NE(a.body.find("goheap_snaps_total "), std::string::npos) << a.body;
  ::kill(watch, SIGTERM);
  EXPECT_EQ(waitFor(watch, 20), 0) << readWholeFile(err);
}

// A free TCP port on loopback, for Prometheus's own listener.
uint16_t freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST_F(WatchSnap, PrometheusScrapesTheLeakingTypesGrowth) {
  ASSERT_TRUE(fs::exists("/usr/bin/prometheus"))
      << "Debian's prometheus package is missing: scripts/install-deps.sh installs it";
  auto prog = start(4096);
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  const pid_t watch =
      testing::spawnGoheap({"watch", std::to_string(prog->pid()), "-o", snaps_, "--every", "1s",
                            "--count", "30", "--metrics", "127.0.0.1:0", "--json"},
                           out, err);
  ASSERT_GT(watch, 0);
  uint16_t port = 0;
  for (int i = 0; i < 200 && port == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    port = metricsPort(readWholeFile(err));
  }
  ASSERT_NE(port, 0) << readWholeFile(err);

  // goheap's own answer first: the exposition format, with the type.
  ASSERT_TRUE(waitForLines(out, 1, 20));
  {
    testing::HttpConnection c("127.0.0.1", port, 10);
    const testing::HttpAnswer a = c.get("/metrics");
    EXPECT_EQ(a.status, 200);
    EXPECT_TRUE(a.contentType().starts_with("text/plain; version=0.0.4")) << a.contentType();
    EXPECT_NE(a.body.find("goheap_type_retained_bytes{type=\"main.LeakedRecord\"}"),
              std::string::npos)
        << a.body;
    EXPECT_NE(a.body.find("goheap_process_memory_bytes{category=\"heap_objects\"}"),
              std::string::npos)
        << a.body;
    EXPECT_EQ(c.get("/other").status, 404);
  }

  const std::string config = dir_ + "/prometheus.yml";
  writeWholeFile(config,
                 "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                 "scrape_configs:\n  - job_name: goheap\n    static_configs:\n"
                 "      - targets: ['127.0.0.1:" +
                     std::to_string(port) + "']\n");
  const uint16_t prometheus_port = freePort();
  const pid_t prometheus = ::fork();
  if (prometheus == 0) {
    const std::string log = dir_ + "/prometheus.log";
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const std::string config_flag = "--config.file=" + config;
    const std::string storage = "--storage.tsdb.path=" + dir_ + "/tsdb";
    const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port);
    ::execl("/usr/bin/prometheus", "prometheus", config_flag.c_str(), storage.c_str(),
            listen.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(prometheus, 0);

  // The objects of the leaking type as Prometheus stored them, scrape after
  // scrape, until they grew.
  const std::string query =
      "/api/v1/query?query=goheap_type_objects%7Btype%3D%22main.LeakedRecord%22%7D";
  std::vector<double> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(25);
  while (std::chrono::steady_clock::now() < deadline &&
         (seen.size() < 2 || seen.back() <= seen.front())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    testing::HttpConnection c("127.0.0.1", prometheus_port, 5);
    if (!c.connected()) continue;
    const testing::HttpAnswer a = c.get(query);
    if (a.status != 200) continue;
    const JsonValue answer = JsonValue::parse(a.body);
    const JsonValue& result = answer["data"]["result"];
    if (answer["status"].str() != "success" || result.size() == 0) continue;
    // "value": [time, "text"]
    const double value = std::stod(result[0]["value"][1].str());
    if (seen.empty() || value != seen.back()) seen.push_back(value);
  }
  ::kill(prometheus, SIGTERM);
  int status = 0;
  ::waitpid(prometheus, &status, 0);
  ::kill(watch, SIGTERM);
  EXPECT_EQ(waitFor(watch, 20), 0) << readWholeFile(err);

  ASSERT_GE(seen.size(), 2u) << readWholeFile(dir_ + "/prometheus.log").substr(0, 3000);
  EXPECT_GT(seen.back(), seen.front());
}

}  // namespace
}  // namespace goheap
