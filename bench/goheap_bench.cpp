// Times each phase of `goheap summary` (and of `top`) on one dump, against
// reading the file once, and reports peak memory per object and pointer.
// With the executable (DUMP.exe beside the dump, as make-bench-dump.sh
// writes it) also the DWARF typing pass and `top --by type`; then every
// `goheap convert` format, written to /dev/null.
//
//   goheap_bench DUMP [EXE]
//
// Numbers are printed, never asserted: speed is measured here, not tested.
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/goroutine_leaks.h"
#include "analysis/summary.h"
#include "export/formats.h"
#include "query/open.h"
#include "questions/catalog.h"
#include "sql/database.h"
#include "util/format.h"
#include "util/large_vector.h"
#include "util/process_memory.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds of all the process's threads. The machine is shared, so wall
// time includes waiting for a core; CPU time says what the work itself cost.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// What `dd if=FILE of=/dev/null bs=1M` does: one sequential read.
double readOnce(const std::string& path, uint64_t& bytes) {
  std::vector<char> buf(1 << 20);
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  auto t0 = Clock::now();
  bytes = 0;
  for (;;) {
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n <= 0) break;
    bytes += static_cast<uint64_t>(n);
  }
  auto t1 = Clock::now();
  close(fd);
  return seconds(t0, t1);
}

}  // namespace

int main(int argc, char** argv) {
  goheap::keepLargeAllocationsMapped();  // as goheap's own main does
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr,
                 "usage: goheap_bench DUMP [EXE]\n(bench/run.sh makes a 10-million-object dump)\n");
    return 2;
  }
  const std::string path = argv[1];
  std::string exe_path = argc == 3 ? argv[2] : path + ".exe";
  if (access(exe_path.c_str(), R_OK) != 0) exe_path.clear();
  uint64_t file_bytes = 0;
  readOnce(path, file_bytes);  // warm the page cache
  const double read_s = readOnce(path, file_bytes);

  struct Phase {
    std::string name;
    double s;
    double cpu_s;
  };
  std::vector<Phase> phases;
  // Opening's phases, as goheap --timings shows them.
  class Recorder : public goheap::Sink {
   public:
    explicit Recorder(std::vector<Phase>& phases) : phases_(phases) {}
    void beginPhase(std::string_view name, uint64_t) override {
      phases_.push_back({std::string(name), 0, 0});
      started_ = Clock::now();
      started_cpu_ = cpuSeconds();
    }
    void endPhase() override {
      phases_.back().s = seconds(started_, Clock::now());
      phases_.back().cpu_s = cpuSeconds() - started_cpu_;
    }
    void warning(const std::string& text) override {
      std::fprintf(stderr, "warning: %s\n", text.c_str());
    }
    void note(const std::string& text) override {
      std::fprintf(stderr, "note: %s\n", text.c_str());
    }

   private:
    std::vector<Phase>& phases_;
    Clock::time_point started_;
    double started_cpu_ = 0;
  } recorder(phases);

  auto t0 = Clock::now();
  const double cpu0 = cpuSeconds();
  auto opened = goheap::query::open(goheap::query::Source::fromArgument(path, exe_path), recorder);
  if (!opened) {
    std::fprintf(stderr, "%s\n", opened.error().message().c_str());
    return 1;
  }
  const goheap::query::Session& session = **opened;
  const goheap::analysis::Snapshot& s = session.snapshot();
  auto timed = [&](const std::string& name, auto&& work) {
    auto a = Clock::now();
    const double a_cpu = cpuSeconds();
    work();
    phases.push_back({name, seconds(a, Clock::now()), cpuSeconds() - a_cpu});
  };
  timed("summary (top retainers)", [&] { goheap::analysis::summarize(s, 10); });
  const double summary_s = seconds(t0, Clock::now());
  const double summary_cpu_s = cpuSeconds() - cpu0;
  timed("top --by site", [&] { session.groupTotals(goheap::typing::GroupKind::Name); });
  if (s.types) {
    timed("top --by type", [&] { session.groupTotals(goheap::typing::GroupKind::Type); });
  }
  // The goroutine leak analysis alone (summary runs it too): one search of
  // the graph when any goroutine is blocked in a way that can leak, and the
  // joint retained size of those that are.
  goheap::analysis::GoroutineLeaks leaks;
  auto leaks_start = Clock::now();
  const double leaks_cpu = cpuSeconds();
  leaks = goheap::analysis::findGoroutineLeaks(s);
  phases.push_back({"goroutine leaks (" + goheap::formatCount(s.model.goroutines.size()) +
                        " goroutines, " + goheap::formatCount(leaks.leaked_count) + " leaked)",
                    seconds(leaks_start, Clock::now()), cpuSeconds() - leaks_cpu});
  const uint64_t peak = goheap::peakRssBytes();

  // The web UI's API calls, answered as goheap serve answers them (the API
  // table of questions/catalog.h, parameters as given in the URL), after the
  // server's preparation; each is what one page asks for.
  struct ApiCall {
    std::string name;
    double ms = 0;
    size_t bytes = 0;
  };
  std::vector<ApiCall> api_calls;
  {
    auto a0 = Clock::now();
    session.prepareForServing();
    api_calls.push_back({"(prepare after load)", seconds(a0, Clock::now()) * 1e3, 0});
    // `name` is the endpoint, then its URL parameters or a note:
    // "top?n=100&sort=count", "flame (min 1/1000)".
    auto call = [&](const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& params,
                    const goheap::query::Session* base = nullptr) {
      const std::string endpoint = name.substr(0, name.find_first_of("? "));
      const goheap::questions::Question* q = goheap::questions::findQuestion(endpoint);
      if (q == nullptr) {
        std::fprintf(stderr, "goheap_bench: no API endpoint %s\n", endpoint.c_str());
        std::exit(1);
      }
      auto a = Clock::now();
      // As goheap serve answers: read the parameters, compute, write the JSON.
      size_t bytes = 0;
      auto asked = q->read(goheap::query::ParamValues::fromQueryString(q->params, params));
      auto answer = asked ? (*asked)->answer({session, base}) : asked.error();
      if (answer) bytes = (*answer)->json().size();
      const double ms = seconds(a, Clock::now()) * 1e3;
      if (!answer) std::fprintf(stderr, "%s: %s\n", name.c_str(), answer.error().message().c_str());
      api_calls.push_back({name, ms, bytes});
    };
    call("summary?n=20", {{"n", "20"}});
    for (const char* sort : {"retained", "count"}) {
      call(std::string("top?n=100&sort=") + sort, {{"n", "100"}, {"sort", sort}});
    }
    call("top?n=100&filter=main.", {{"n", "100"}, {"filter", "main."}});
    call("dom?depth=2&max_children=40 (treemap)",
         {{"depth", "2"}, {"max_children", "40"}, {"min_bytes", "0"}});
    const goheap::analysis::Summary sum = goheap::analysis::summarize(s, 1);
    if (!sum.top_retainers.empty()) {
      const std::string addr = goheap::formatHex(sum.top_retainers[0].object.address);
      call("obj (top retainer)", {{"addr", addr}, {"referrers", "50"}});
      call("paths?n=5 (top retainer)", {{"addr", addr}, {"n", "5"}});
    }
    call("flame (min 1/1000)", {});
    call("search?q=main.", {{"q", "main."}});
    // The leak-hunting analyses (goheap suspects, dups, waste, diff): each
    // is one page of the web UI and one section of goheap report.
    call("suspects", {});
    call("dups", {});
    call("waste", {});
    // The dump against itself: every object is matched in OLD, the slowest
    // case of the object-level diff.
    call("diff (the dump against itself)", {}, &session);
    call("goroutines?sort=retained", {{"sort", "retained"}});
  }

  // goheap sql: the grouping `top --by type` does, in SQL (first run: the
  // table's name index is built too; then again), and lookups by address,
  // each prepared and run as a query of its own.
  struct SqlTiming {
    std::string name;
    double ms = 0;
    uint64_t rows = 0;
  };
  std::vector<SqlTiming> sql_timings;
  double top_type_ms = 0;
  for (const Phase& p : phases) {
    if (p.name == "top --by type" || (!s.types && p.name == "top --by site"))
      top_type_ms = p.s * 1e3;
  }
  {
    goheap::sql::SqlHeap heap(*opened);
    auto db = goheap::sql::HeapDatabase::open(heap);
    if (!db) {
      std::fprintf(stderr, "sql: %s\n", db.error().message().c_str());
      return 1;
    }
    auto run = [&](const std::string& name, const std::string& sql, int times = 1) {
      auto a = Clock::now();
      uint64_t rows = 0;
      for (int i = 0; i < times; i++) {
        auto r = (*db)->run(sql);
        if (!r) {
          std::fprintf(stderr, "%s: %s\n", name.c_str(), r.error().message().c_str());
          return;
        }
        rows = r->empty() ? 0 : r->front().rows.size();
      }
      sql_timings.push_back({name, seconds(a, Clock::now()) * 1e3 / times, rows});
    };
    const std::string by = "type";  // as top --by type groups, typed or not
    const std::string group =
        "SELECT " + by + ", count(*), sum(retained) FROM objects GROUP BY " + by;
    run("GROUP BY " + by + " (first: builds the index)", group);
    run("GROUP BY " + by + " (again)", group);
    run("count(*) WHERE reachable", "SELECT count(*) FROM objects WHERE reachable");
    const uint64_t step = std::max<uint64_t>(1, s.heap.objectCount() / 1000);
    auto a = Clock::now();
    uint64_t found = 0;
    for (uint64_t o = 0; o < s.heap.objectCount(); o += step) {
      auto r = (*db)->run("SELECT id, size, type FROM objects WHERE address = " +
                          std::to_string(s.model.objects.addr[o]));
      if (r && !r->empty()) found += r->front().rows.size();
    }
    const uint64_t lookups = (s.heap.objectCount() + step - 1) / step;
    sql_timings.push_back({"lookup by address (each)",
                           seconds(a, Clock::now()) * 1e3 / static_cast<double>(lookups), found});
  }
  const uint64_t sql_peak = goheap::peakRssBytes();

  // Conversions, to /dev/null: throughput in MiB of output per second.
  struct Conversion {
    std::string format;
    double s = 0;
    uint64_t bytes = 0;
    uint64_t peak = 0;
  };
  std::vector<Conversion> conversions;
  for (const goheap::exporting::Format& f : goheap::exporting::allFormats()) {
    if (f.needs_focus) continue;
    std::FILE* null = std::fopen("/dev/null", "wb");
    if (null == nullptr) break;
    Conversion c{f.name};
    auto a = Clock::now();
    {
      goheap::exporting::Output out(null, "/dev/null");
      goheap::Status st = f.write(s, {}, out);
      if (!st) std::fprintf(stderr, "convert %s: %s\n", f.name, st.error().message().c_str());
      (void)out.finish();
      c.bytes = out.written();
    }
    c.s = seconds(a, Clock::now());
    c.peak = goheap::peakRssBytes();
    std::fclose(null);
    conversions.push_back(c);
  }

  // The index cache: the same open and summary with the cache on, into an
  // empty folder (computing everything and writing the index), then once
  // more (reading it back).
  struct CacheOpen {
    std::string name;
    double s = 0;
    double cpu_s = 0;
    bool hit = false;
  };
  std::vector<CacheOpen> cache_opens;
  {
    std::string folder = "/tmp/goheap-bench-cache-XXXXXX";
    if (mkdtemp(folder.data()) != nullptr) {
      goheap::query::OpenOptions options;
      options.use_cache = true;
      options.cache_dir = folder;
      for (const char* name : {"first open (writes cache)", "second open (cache hit)"}) {
        std::vector<Phase> ignored;
        Recorder quiet(ignored);
        auto a = Clock::now();
        const double a_cpu = cpuSeconds();
        auto again = goheap::query::open(goheap::query::Source::fromArgument(path, exe_path), quiet,
                                         options);
        if (!again) {
          std::fprintf(stderr, "%s: %s\n", name, again.error().message().c_str());
          break;
        }
        // As `goheap summary` does: the session's goroutine leaks, which a
        // cache hit restores rather than computes.
        goheap::analysis::summarize((*again)->snapshot(), 10, (*again)->goroutineLeaks());
        const bool hit = (*again)->fromCache();
        cache_opens.push_back({name, seconds(a, Clock::now()), cpuSeconds() - a_cpu, hit});
        // The entry is written while the session answers; it is done when
        // the session is.
        again = goheap::Error("closed");
        if (!hit) {
          cache_opens.push_back(
              {"  and the index written", seconds(a, Clock::now()), cpuSeconds() - a_cpu, false});
        }
      }
      std::string remove = "rm -rf '" + folder + "'";
      if (std::system(remove.c_str()) != 0)
        std::fprintf(stderr, "cannot remove %s\n", folder.c_str());
    }
  }

  const double objects = s.heap.objectCount();
  const double pointers = s.heap.successors.begin[s.heap.objectCount()];
  std::printf("dump            %s\n", path.c_str());
  std::printf("file            %.1f MiB, %.0f objects, %.0f pointers between objects\n",
              static_cast<double>(file_bytes) / (1 << 20), objects, pointers);
  std::printf("read once       %.3f s (%.0f MiB/s)\n", read_s,
              static_cast<double>(file_bytes) / (1 << 20) / read_s);
  std::printf("\n%-26s %9s %9s %9s %10s\n", "phase", "seconds", "cpu_s", "x_read", "ns/object");
  for (const Phase& p : phases) {
    std::printf("%-26s %9.3f %9.3f %9.2f %10.1f\n", p.name.c_str(), p.s, p.cpu_s, p.s / read_s,
                p.s * 1e9 / objects);
  }
  std::printf("%-26s %9.3f %9.3f %9.2f %10.1f\n", "summary total", summary_s, summary_cpu_s,
              summary_s / read_s, summary_s * 1e9 / objects);
  if (!cache_opens.empty()) {
    std::printf("\n%-26s %9s %9s %9s %10s\n", "index cache (summary)", "seconds", "cpu_s", "x_read",
                "ns/object");
    for (const CacheOpen& c : cache_opens) {
      std::printf("%-26s %9.3f %9.3f %9.2f %10.1f%s\n", c.name.c_str(), c.s, c.cpu_s, c.s / read_s,
                  c.s * 1e9 / objects, c.hit ? "  (from the cache)" : "");
    }
  }
  // The mapping is touched once, so the page cache's copy of the file counts
  // in the resident set; what goheap adds is the rest.
  const double beyond = static_cast<double>(peak) - static_cast<double>(file_bytes);
  std::printf("\npeak RSS        %.1f MiB (%.1f MiB beyond the mapped file)\n",
              static_cast<double>(peak) / (1 << 20), beyond / (1 << 20));
  std::printf("beyond file     %.1f bytes/object, or %.1f bytes/object + 12 bytes/pointer\n",
              beyond / objects, (beyond - 12 * pointers) / objects);
  std::printf("\n%-40s %9s %10s\n", "api call (goheap serve)", "ms", "bytes");
  for (const ApiCall& c : api_calls) {
    std::printf("%-40s %9.1f %10zu\n", c.name.c_str(), c.ms, c.bytes);
  }
  std::printf("\n%-40s %9s %10s %9s\n", "goheap sql", "ms", "rows", "x_top");
  for (const SqlTiming& t : sql_timings) {
    std::printf("%-40s %9.3f %10llu %9.2f\n", t.name.c_str(), t.ms,
                static_cast<unsigned long long>(t.rows), top_type_ms > 0 ? t.ms / top_type_ms : 0);
  }
  std::printf("%-40s %9.1f ms; peak RSS after SQL %.1f MiB\n",
              s.types ? "top --by type grouping" : "top --by site grouping", top_type_ms,
              static_cast<double>(sql_peak) / (1 << 20));
  if (!conversions.empty()) {
    std::printf("\n%-26s %9s %10s %10s %12s\n", "convert --to", "seconds", "out MiB", "MiB/s",
                "peak RSS MiB");
    for (const Conversion& c : conversions) {
      const double mib = static_cast<double>(c.bytes) / (1 << 20);
      std::printf("%-26s %9.3f %10.1f %10.1f %12.1f\n", c.format.c_str(), c.s, mib, mib / c.s,
                  static_cast<double>(c.peak) / (1 << 20));
    }
  }
  return 0;
}
