// goheap watch PID [EXE] -o DIR: snaps a running Go process (as goheap snap
// does, acquire/snap.h) whenever a trigger fires (a period, its RSS or its
// memory cgroup crossing a bound, its Go heap or RSS growing), keeps the
// first snap and the latest ones within a disk budget, and after each snap
// says what grew since the first, with goheap diff's own code (the
// question table's diff). With --metrics it serves the latest snap's
// answers to Prometheus (watch_metrics.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acquire/live_counter.h"
#include "acquire/proc_status.h"
#include "acquire/snap.h"
#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli/output_width.h"
#include "cli/watch_metrics.h"
#include "cli/watch_triggers.h"
#include "questions/catalog.h"
#include "serve/access.h"
#include "util/file_identity.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/output_file.h"

namespace goheap::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

CommandSpec watchSpec() {
  CommandSpec spec(
      "watch",
      "Watches a running Go process and snaps it (as goheap snap does: paused for "
      "milliseconds while it forks) whenever a trigger fires, into cores in DIR. The first "
      "snap is the baseline: after each later one, watch prints what grew since it, as "
      "goheap diff does (the types that grew, and what holds the new objects), and how long "
      "the snap paused the process.\n"
      "\n"
      "Triggers, in any combination (none given: --every 1m): a period (--every); the "
      "process's RSS crossing a size upward (--rss-above; it fires again once the RSS has "
      "dropped below 90% of it and crossed again); its memory cgroup's usage crossing a "
      "percentage of the cgroup's limit (--cgroup-above, cgroup v1 or v2, re-armed the same "
      "way); its Go heap (the runtime's gcController.heapInUse, read through /proc/PID/mem "
      "without stopping it; needs the executable's DWARF) or its RSS growing by a "
      "percentage since the last snap (--growth). --min-interval spaces the snaps those "
      "three fire, so that a flapping trigger cannot pause the process over and over; "
      "--every is never delayed by it.\n"
      "\n"
      "DIR keeps the baseline and the latest snaps (--keep), within a disk budget "
      "(--max-disk), deleting the oldest but the baseline first, and one copy of the "
      "process's executable, which the cores find by themselves: `goheap diff "
      "DIR/FIRST.core DIR/LAST.core` works after the process and its executable are gone.\n"
      "\n"
      "The watch ends when the process exits, after --count snaps, or on SIGINT or SIGTERM, "
      "with a closing report on stderr: the snaps kept, the growth from the first to the "
      "last, the pauses. The process is never left stopped.");
  spec.positional("PID", "the process to watch").kind(ValueKind::Uint);
  spec.positional("EXE",
                  "the program's executable, to read the snaps with when they cannot find theirs "
                  "(they look where the process ran it from, then at the copy watch keeps in DIR)")
      .optional();
  spec.flag("output", "DIR", "the folder the snaps go to (made if missing); required").alias('o');
  spec.flag("every", "DURATION", "snap periodically, the first time at once")
      .kind(ValueKind::Duration);
  spec.sizeFlag("rss-above", "snap when the process's RSS crosses SIZE upward");
  spec.flag("cgroup-above", "PERCENT",
            "snap when the process's memory cgroup uses more than PERCENT of its limit");
  spec.flag("growth", "PERCENT",
            "snap when the Go heap or the RSS grew by PERCENT since the last snap (or the start)");
  spec.flag("min-interval", "DURATION",
            "the least time between two snaps fired by --rss-above, --cgroup-above or --growth")
      .kind(ValueKind::Duration)
      .defaultValue("1m");
  spec.uintFlag("count", "N", "stop after N snaps (default: go on until the process exits)");
  spec.uintFlag("keep", "K", "keep the first snap and the last K-1", "3");
  spec.sizeFlag("max-disk",
                "the most disk the snaps may take (default: what leaves 10% of DIR's file "
                "system free); the oldest but the baseline are deleted first");
  spec.boolFlag("no-fork",
                "copy while the process is stopped, instead of from a fork of it (goheap snap "
                "--no-fork)");
  spec.boolFlag("json",
                "one JSON object per snap on stdout, a line each: snap, time, pause_seconds, "
                "rss_bytes, trigger, diff (goheap diff --json against the first; null for it)");
  spec.flag("metrics", "HOST:PORT",
            "serve the latest snap's answers at http://HOST:PORT/metrics for Prometheus "
            "(port 0 picks a free one)");
  spec.boolFlag("allow-remote",
                "let --metrics listen beyond loopback; every scrape must then carry the access "
                "token watch prints (and writes to DIR/metrics.token) as a bearer token");
  spec.flag("metrics-types", "N", "the types --metrics reports, by retained bytes")
      .kind(ValueKind::Uint)
      .defaultValue("50");
  spec.example("goheap watch $(pgrep -n server) -o snaps --every 10m --count 6",
               "a snap every 10 minutes for an hour; each says what grew since the first");
  spec.example("goheap watch 4242 -o snaps --rss-above 2G --growth 50 --min-interval 5m",
               "snap when RSS passes 2 GiB, or heap or RSS grew by half since the last snap");
  spec.example("goheap watch 4242 -o snaps --cgroup-above 80",
               "snap when the container uses 80% of its memory limit, before the OOM killer");
  spec.example("goheap watch 4242 -o snaps --every 2s --count 3 --json | jq .diff.rows[0]",
               "three snaps two seconds apart; what grew most between the first and the last");
  spec.example("goheap watch 4242 -o snaps --every 5m --metrics 127.0.0.1:9187",
               "Prometheus scrapes http://127.0.0.1:9187/metrics: goheap_type_retained_bytes, ...");
  return spec;
}

// A percentage given to --cgroup-above or --growth: "80" or "80%", above 0
// (and at most 100 for a share of a limit).
Expected<double> parsePercent(const ParsedArgs& args, std::string_view flag, bool at_most_100) {
  std::string text(args.getString(flag));
  if (!text.empty() && text.back() == '%') text.pop_back();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value > 0) ||
      (at_most_100 && value > 100) || !std::isfinite(value)) {
    return args.usageError("--" + std::string(flag) + " wants a percentage above 0" +
                           (at_most_100 ? " and at most 100" : "") + ", like 80 or 80%: got \"" +
                           std::string(args.getString(flag)) + "\"");
  }
  return value;
}

struct Settings {
  pid_t pid = 0;
  std::string exe;  // EXE, or "" to let the cores find theirs
  std::string dir;
  TriggerSettings triggers;
  uint64_t count = 0;
  uint64_t keep = 3;
  std::optional<uint64_t> max_disk;
  bool json = false;
  bool fork = true;
  std::optional<serve::HostPort> metrics;
  uint64_t metrics_types = 50;
  bool allow_remote = false;
  std::string cgroup_root;  // where cgroup file systems are mounted
};

// For tests: GOHEAP_CGROUP_ROOT stands for /sys/fs/cgroup, so that a test
// can lay out a cgroup v2 folder on a machine whose memory controller is v1.
std::string cgroupRootFromEnvironment() {
  const char* v = std::getenv("GOHEAP_CGROUP_ROOT");
  return v == nullptr || *v == '\0' ? std::string(acquire::kCgroupRoot) : std::string(v);
}

Expected<Settings> readSettings(const ParsedArgs& args) {
  Settings s;
  const uint64_t pid = args.getUint("PID");
  if (pid == 0 || pid > 0x3fffffff) {
    return args.usageError("PID " + std::to_string(pid) + " is not a process id");
  }
  s.pid = static_cast<pid_t>(pid);
  s.exe = std::string(args.getString("EXE"));
  if (!args.has("output")) return args.usageError("watch needs -o DIR, the folder for the snaps");
  s.dir = std::string(args.getString("output"));
  if (s.dir.empty() || s.dir == "-") return args.usageError("-o wants a folder");
  TriggerSettings& t = s.triggers;
  if (args.has("every")) t.every_ms = args.getUint("every");
  if (args.has("rss-above")) t.rss_above = args.getUint("rss-above");
  if (args.has("cgroup-above")) {
    GOHEAP_TRY(t.cgroup_above, parsePercent(args, "cgroup-above", true));
  }
  if (args.has("growth")) {
    GOHEAP_TRY(t.growth, parsePercent(args, "growth", false));
  }
  if (!t.every_ms && !t.rss_above && !t.cgroup_above && !t.growth) t.every_ms = 60000;
  if (t.every_ms && *t.every_ms == 0) return args.usageError("--every wants a duration above 0");
  if (t.rss_above && *t.rss_above == 0) return args.usageError("--rss-above wants a size above 0");
  t.min_interval_ms = args.getUint("min-interval");
  s.count = args.getUint("count");
  s.keep = args.getUint("keep");
  if (s.keep == 0) return args.usageError("--keep wants 1 or more: the baseline is always kept");
  if (args.has("max-disk")) s.max_disk = args.getUint("max-disk");
  s.json = args.getBool("json");
  s.fork = !args.getBool("no-fork");
  s.allow_remote = args.getBool("allow-remote");
  s.metrics_types = args.getUint("metrics-types");
  if (args.has("metrics")) {
    Expected<serve::HostPort> where = serve::parseHostPort(args.getString("metrics"), "--metrics");
    if (!where) return args.usageError(where.error().message());
    if (!s.allow_remote && !serve::isLoopbackHost(where->host)) {
      return args.usageError("--metrics " + serve::hostAndPort(*where) +
                             " listens beyond this machine, and the metrics name the program's "
                             "types; listen on 127.0.0.1, or add --allow-remote: every scrape "
                             "must then carry the access token as a bearer token");
    }
    s.metrics = *where;
  } else if (s.allow_remote) {
    return args.usageError("--allow-remote is for --metrics, which is not given");
  } else if (args.has("metrics-types")) {
    return args.usageError("--metrics-types is for --metrics, which is not given");
  }
  s.cgroup_root = cgroupRootFromEnvironment();
  return s;
}

// The process is there and not a zombie (its parent has not reaped it yet).
bool processAlive(pid_t pid) {
  Expected<acquire::ProcStatus> status = acquire::readProcStatus(pid);
  return status && status->state != 'Z' && status->state != 'X';
}

uint64_t rssOf(pid_t pid) {
  Expected<std::string> status = acquire::readProcFile(pid, "status");
  return status ? acquire::kibibyteField(*status, "VmRSS:") : 0;
}

// "2026-11-29T14:05:02.123Z".
std::string rfc3339(std::chrono::system_clock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(ms % 1000));
  return out;
}

// Sleeps up to `ms`, less when a signal arrives.
void nap(uint64_t ms) {
  struct timespec t {};
  t.tv_sec = static_cast<time_t>(ms / 1000);
  t.tv_nsec = static_cast<long>((ms % 1000) * 1000000);
  ::nanosleep(&t, nullptr);
}

void say(const std::string& line) {
  std::fprintf(stderr, "goheap: %s\n", line.c_str());
  std::fflush(stderr);
}

// `text` into a file only its owner may read, made so from the start.
Status writeSecret(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error::io("cannot write " + path + ": " + std::strerror(errno));
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  ::close(fd);
  if (!written) return Error::io("cannot write " + path + ": " + std::strerror(err));
  return Status::success();
}

struct SnapRecord {
  std::string path;
  uint64_t bytes = 0;
  double pause_seconds = 0;
  uint64_t rss = 0;
  std::string trigger;
  uint64_t reachable_bytes = 0;
};

// The disk the snaps may take: --max-disk, else what they take now plus
// what the file system has free beyond 10% of its size.
uint64_t diskBudget(const Settings& s, uint64_t snaps_bytes) {
  if (s.max_disk) return *s.max_disk;
  struct statvfs fsinfo {};
  if (::statvfs(s.dir.c_str(), &fsinfo) != 0) return UINT64_MAX;
  const uint64_t total = uint64_t{fsinfo.f_blocks} * fsinfo.f_frsize;
  const uint64_t available = uint64_t{fsinfo.f_bavail} * fsinfo.f_frsize;
  const uint64_t reserve = total / 10;
  return snaps_bytes + (available > reserve ? available - reserve : 0);
}

// Whether two files hold the same bytes.
bool sameContents(const std::string& a, const std::string& b) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  if (!x || !y) return false;
  std::vector<char> bx(1 << 16), by(1 << 16);
  for (;;) {
    x.read(bx.data(), static_cast<std::streamsize>(bx.size()));
    y.read(by.data(), static_cast<std::streamsize>(by.size()));
    if (x.gcount() != y.gcount() || !std::equal(bx.begin(), bx.begin() + x.gcount(), by.begin())) {
      return false;
    }
    if (x.gcount() == 0 || !x || !y) return x.eof() && y.eof();
  }
}

// The process's executable, copied once into DIR under the process's name,
// where a core looks for it ("beside the core", core/find_executable.h)
// when the path it ran from is gone (a container's). Left alone when DIR
// already holds it (the same file, or a copy made before).
std::string copyExecutable(const Settings& s, const std::string& name) {
  const std::string proc_exe = "/proc/" + std::to_string(s.pid) + "/exe";
  const std::string copy = (fs::path(s.dir) / (name.empty() ? "program" : name)).string();
  Expected<FileIdentity> source = identityOf(proc_exe);
  Expected<FileIdentity> existing = identityOf(copy);
  if (source && existing) {
    // The running file itself (DIR is its folder), or a copy an earlier
    // watch of the same program made: the cores already there use it.
    if (existing->sameFileAs(*source) || sameContents(proc_exe, copy)) return copy;
    say("warning: " + copy + " is another program's copy: replaced, so the snaps already in " +
        s.dir + " no longer find theirs there");
  }
  std::error_code ec;
  const std::string temporary = copy + ".tmp";
  fs::copy_file(proc_exe, temporary, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(temporary, copy, ec);
  if (ec) {
    fs::remove(temporary, ec);
    say("warning: could not copy the executable into " + s.dir + " (" + ec.message() +
        "): the snaps need the program's file where it is now");
    return "";
  }
  return copy;
}

// The diff question, as `goheap diff --json OLD NEW` asks it, with its
// default parameters.
Expected<std::unique_ptr<const questions::Answer>> diffSince(const query::Session& first,
                                                             const query::Session& latest) {
  const questions::Question* diff = questions::findQuestion("diff");
  if (diff == nullptr) return Error("internal error: no diff question");
  const query::ParamValues none(diff->params,
                                [](const query::ParamSpec& p) { return "--" + query::cliName(p); });
  GOHEAP_TRY(std::unique_ptr<const questions::Asked> asked, diff->read(none));
  return asked->answer(questions::Heaps{.current = latest, .base = &first});
}

std::string pauseSummary(const std::deque<SnapRecord>& all) {
  if (all.empty()) return "no snap";
  std::vector<double> pauses;
  for (const SnapRecord& r : all) pauses.push_back(r.pause_seconds);
  std::sort(pauses.begin(), pauses.end());
  return "pauses " + formatDuration(pauses.front()) + " to " + formatDuration(pauses.back()) +
         ", median " + formatDuration(pauses[pauses.size() / 2]);
}

class Watch {
 public:
  explicit Watch(const Settings& s) : s_(s), triggers_(s.triggers, Clock::now()) {}

  int run() {
    Expected<acquire::ProcStatus> status = acquire::readProcStatus(s_.pid);
    if (!status) return fail(status.error());
    name_ = status->name;
    std::error_code ec;
    fs::create_directories(s_.dir, ec);
    if (ec || !fs::is_directory(s_.dir)) {
      return fail(Error::io("cannot make the folder " + s_.dir + ": " +
                            (ec ? ec.message() : "a file is in the way")));
    }
    exe_copy_ = copyExecutable(s_, name_);
    if (s_.triggers.cgroup_above) {
      const auto cgroup = acquire::readCgroupMemory(s_.pid, s_.cgroup_root);
      if (!cgroup) {
        return fail(Error("--cgroup-above: process " + std::to_string(s_.pid) +
                          " has no memory cgroup goheap can read (/proc/" + std::to_string(s_.pid) +
                          "/cgroup, under " + s_.cgroup_root + ")"));
      }
      if (!cgroup->limit_bytes) {
        say("warning: --cgroup-above: the memory cgroup " + cgroup->dir +
            " has no limit, so it never fires");
      }
    }
    if (s_.triggers.growth) openHeapCounter();
    if (s_.metrics) {
      auto server = MetricsServer::start(*s_.metrics, s_.allow_remote);
      if (!server) return fail(server.error());
      metrics_ = server.take();
      std::string line = "serving metrics at " + metrics_->url();
      if (!metrics_->token().empty()) {
        const std::string token_file = (fs::path(s_.dir) / "metrics.token").string();
        if (Status st = writeSecret(token_file, metrics_->token() + "\n"); !st) {
          say("warning: " + st.error().message());
        }
        line += " (bearer token " + metrics_->token() + ", also in " + token_file + ")";
      }
      say(line);
    }
    triggers_.setReference(rssOf(s_.pid), readHeap());
    say("watching process " + std::to_string(s_.pid) + " (" + name_ + "), snaps into " + s_.dir);

    InterruptGuard guard;
    std::string end;
    int code = kExitOk;
    for (;;) {
      if (g_interrupted.load()) {
        end = "interrupted";
        break;
      }
      if (!processAlive(s_.pid)) {
        end = "process " + std::to_string(s_.pid) + " exited";
        break;
      }
      const Clock::time_point now = Clock::now();
      const uint64_t rss = rssOf(s_.pid);
      std::optional<acquire::CgroupMemory> cgroup;
      if (s_.triggers.cgroup_above) cgroup = acquire::readCgroupMemory(s_.pid, s_.cgroup_root);
      const std::optional<uint64_t> heap = readHeap();
      if (std::optional<Firing> fired = triggers_.check(now, rss, cgroup, heap)) {
        Status snapped = snap(*fired);
        if (!snapped) {
          if (g_interrupted.load()) {
            end = "interrupted";
          } else if (!processAlive(s_.pid)) {
            end = "process " + std::to_string(s_.pid) + " exited";
          } else {
            say(snapped.error().message());
            end = "a snap failed";
            code = kExitFailure;
          }
          break;
        }
        triggers_.setReference(rssOf(s_.pid), readHeap());
        if (s_.count != 0 && taken_ >= s_.count) {
          end = "took the " + std::to_string(s_.count) + " snaps --count asked for";
          break;
        }
        continue;
      }
      nap(triggers_.napMs(now));
    }
    g_interrupted.store(false);
    closingReport(end);
    return code;
  }

 private:
  // --growth's Go heap: gcController.heapInUse of the running process.
  void openHeapCounter() {
    const std::string exe = !s_.exe.empty()      ? s_.exe
                            : !exe_copy_.empty() ? exe_copy_
                                                 : "/proc/" + std::to_string(s_.pid) + "/exe";
    Expected<bin::Binary> binary = bin::Binary::open(exe);
    if (!binary) {
      say("warning: --growth watches the RSS alone: " + binary.error().message());
      return;
    }
    binary_ = std::make_unique<bin::Binary>(binary.take());
    auto counter =
        acquire::LiveRuntimeCounter::open(s_.pid, *binary_, "runtime.gcController", "heapInUse");
    if (!counter) {
      say("warning: --growth watches the RSS alone: the Go heap cannot be read (" +
          counter.error().message() + ")");
      return;
    }
    heap_counter_.emplace(counter.take());
  }

  std::optional<uint64_t> readHeap() const {
    if (!heap_counter_) return std::nullopt;
    Expected<uint64_t> v = heap_counter_->read();
    if (!v) return std::nullopt;
    return *v;
  }

  std::string nextPath() {
    char number[16];
    std::snprintf(number, sizeof number, "%04llu", static_cast<unsigned long long>(taken_ + 1));
    std::string base = name_.empty() ? std::string("process") : name_;
    for (char& c : base) {
      if (c == '/' || c == ' ') c = '_';
    }
    return (fs::path(s_.dir) / (base + "-" + std::to_string(s_.pid) + "-" + number + ".core"))
        .string();
  }

  Status snap(const Firing& fired) {
    const std::string path = nextPath();
    const auto wall = std::chrono::system_clock::now();
    const std::vector<InputFile> inputs = {
        {"the process's executable", "/proc/" + std::to_string(s_.pid) + "/exe"}};
    GOHEAP_TRY(OutputFile out, OutputFile::create(path, inputs));
    acquire::SnapOptions options;
    options.interrupted = &g_interrupted;
    options.fork = s_.fork;
    GOHEAP_TRY(acquire::SnapResult result, acquire::snapProcess(s_.pid, out.stream(), options));
    if (Status st = out.commit(); !st) return st;
    taken_++;

    SnapRecord record;
    record.path = path;
    record.bytes = result.core_bytes;
    record.pause_seconds = static_cast<double>(result.pause_ns) / 1e9;
    record.rss = rssOf(s_.pid);
    record.trigger = fired.trigger;
    say("snap " + std::to_string(taken_) + " (" + fired.why + "): " + path + ", " +
        formatBytes(result.core_bytes) + "; " + acquire::describePause(result));

    // Read it as every command does; the first stays open as the baseline.
    Progress progress(stderr, false);
    PhaseTimer timer;
    query::Source source = query::Source::fromArgument(path, s_.exe);
    Expected<std::shared_ptr<const query::Session>> session =
        openForCommand(source, query::OpenOptions{}, progress, timer);
    std::string diff_json = "null";
    if (!session) {
      say("warning: cannot read " + path + ": " + session.error().message());
    } else {
      record.reachable_bytes = (*session)->snapshot().reachable_bytes;
      if (!first_) {
        first_ = *session;
      } else {
        Expected<std::unique_ptr<const questions::Answer>> diff = diffSince(*first_, **session);
        if (!diff) {
          say("warning: no diff against the first snap: " + diff.error().message());
        } else {
          diff_json = compactJson((*diff)->json());
          if (!s_.json) {
            print("what grew since the first snap (" + snaps_.front().path + "), at snap " +
                  std::to_string(taken_) + " (" + path + ", paused " +
                  formatDuration(record.pause_seconds) + "):\n" +
                  (*diff)->text({.width = outputWidth()}) + "\n");
          }
          for (const std::string& w : (*diff)->warnings()) say("warning: " + w);
        }
      }
      if (metrics_) {
        WatchMetrics m = watchMetricsOf(**session, s_.metrics_types);
        m.pause_seconds = record.pause_seconds;
        m.snaps_total = taken_;
        metrics_->publish(prometheusText(&m));
      }
    }
    if (!s_.json && taken_ == 1) {
      print("baseline: " + path + " (paused " + formatDuration(record.pause_seconds) +
            "); later snaps say what grew since it\n");
    }
    if (s_.json) {
      std::string line;
      JsonWriter j(line, JsonWriter::Style::Compact);
      j.beginObject();
      j.field("snap", path);
      j.field("time", rfc3339(wall));
      j.field("pause_seconds", record.pause_seconds);
      j.field("rss_bytes", record.rss);
      j.field("trigger", fired.trigger);
      j.field("why", fired.why);
      j.key("diff").rawValue(diff_json);
      j.endObject();
      print(line + "\n");
    }
    all_.push_back(record);
    snaps_.push_back(std::move(record));
    prune();
    return Status::success();
  }

  // --keep and the disk budget: the oldest snaps after the baseline go first.
  void prune() {
    auto remove = [&](const std::string& why) {
      const SnapRecord gone = snaps_[1];
      snaps_.erase(snaps_.begin() + 1);
      std::error_code ec;
      fs::remove(gone.path, ec);
      say("deleted " + gone.path + " (" + why + ")");
    };
    while (snaps_.size() > s_.keep && snaps_.size() > 1)
      remove("--keep " + std::to_string(s_.keep));
    for (;;) {
      uint64_t bytes = 0;
      for (const SnapRecord& r : snaps_) bytes += r.bytes;
      const uint64_t budget = diskBudget(s_, bytes);
      if (bytes <= budget || snaps_.size() <= 1) break;
      remove("the snaps took " + formatBytes(bytes) + ", above the disk budget of " +
             formatBytes(budget));
    }
  }

  void closingReport(const std::string& end) const {
    std::string text = "watch ended: " + end + "; " + std::to_string(taken_) + " snap" +
                       (taken_ == 1 ? "" : "s") + " taken";
    if (!snaps_.empty()) {
      text += ", " + std::to_string(snaps_.size()) + " kept in " + s_.dir + ":";
      for (const SnapRecord& r : snaps_) {
        text += "\n  " + r.path + " (" + r.trigger + ", paused " + formatDuration(r.pause_seconds) +
                ", RSS " + formatBytes(r.rss) + ", reachable heap " +
                formatBytes(r.reachable_bytes) + ")";
      }
      const SnapRecord& first = snaps_.front();
      const SnapRecord& last = all_.back();
      if (all_.size() > 1) {
        text += "\n  from the first to the last: reachable heap " +
                formatBytes(first.reachable_bytes) + " -> " + formatBytes(last.reachable_bytes) +
                ", RSS " + formatBytes(first.rss) + " -> " + formatBytes(last.rss);
        text += "\n  goheap diff " + first.path + " " + last.path + " says what grew";
      }
      text += "\n  " + pauseSummary(all_);
    }
    say(text);
  }

  const Settings& s_;
  Triggers triggers_;
  std::string name_;
  std::string exe_copy_;
  std::unique_ptr<bin::Binary> binary_;
  std::optional<acquire::LiveRuntimeCounter> heap_counter_;
  std::unique_ptr<MetricsServer> metrics_;
  std::shared_ptr<const query::Session> first_;
  std::deque<SnapRecord> snaps_;  // kept, the baseline first
  std::deque<SnapRecord> all_;    // every snap taken, for the closing report
  uint64_t taken_ = 0;
};

}  // namespace

int runWatch(int argc, const char* const* argv) {
  const CommandSpec spec = watchSpec();
  return runParsed(spec, argc, argv, [&](const ParsedArgs& args) {
    Expected<Settings> settings = readSettings(args);
    if (!settings) return fail(settings.error(), kExitUsage);
    Watch watch(*settings);
    return watch.run();
  });
}

}  // namespace goheap::cli
