// The pprof writers read back by `go tool pprof` itself: its -top totals and
// per-frame values must be goheap's own `top --by type` numbers
// (analysis::histogram), and -raw must show the allocation stacks' source
// lines and inlined functions. pprof runs offline, with HOME, GOCACHE and
// PPROF_TMPDIR in a scratch directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/histogram.h"
#include "analysis/snapshot.h"
#include "analysis/summary.h"
#include "export/formats.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "support/param_names.h"

extern char** environ;

namespace goheap {
namespace {

namespace fs = std::filesystem;

// The Go toolchain whose `go tool pprof` reads the profiles, or "".
std::string goTool() {
  if (const char* env = std::getenv("GOHEAP_GO124")) return env;
  for (const char* p : {"/opt/goheap/go1.24/usr/lib/go-1.24/bin/go", "/usr/bin/go"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Scratch {
 public:
  Scratch() {
    std::string templ = (fs::temp_directory_path() / "goheap-pprof-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Runs `go tool pprof args...`; its standard output, or "" after a failure.
std::string runPprof(const Scratch& scratch, const std::vector<std::string>& args) {
  const std::string go = goTool();
  std::vector<std::string> words{go, "tool", "pprof"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // Offline and self-contained: no symbolization server, no downloads.
  fs::create_directories(scratch.file("home"));
  std::vector<std::string> env_words{"HOME=" + scratch.file("home"),
                                     "GOCACHE=" + scratch.file("gocache"),
                                     "PPROF_TMPDIR=" + scratch.file(""),
                                     "GOTOOLCHAIN=local",
                                     "GOPROXY=off",
                                     "GOFLAGS=",
                                     "PATH=/usr/bin:/bin"};
  std::vector<char*> envp;
  for (std::string& e : env_words) envp.push_back(e.data());
  envp.push_back(nullptr);

  const std::string out = scratch.file("pprof.out"), err = scratch.file("pprof.err");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ADD_FAILURE() << "cannot run " << go;
    return "";
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return "";
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << "go tool pprof failed:\n" << readWholeFile(err);
    return "";
  }
  return readWholeFile(out);
}

// "1234B", "1234", "0": the integer (pprof prints integers exactly).
uint64_t parseValue(const std::string& word) {
  return std::stoull(word);
}

struct TopEntry {
  uint64_t flat = 0, cum = 0;
};
struct Top {
  uint64_t total = 0;
  std::map<std::string, TopEntry> by_name;
};

// Parses `go tool pprof -top` output.
Top parseTop(const std::string& text) {
  Top top;
  std::istringstream in(text);
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Showing nodes accounting for", 0) == 0) {
      const size_t of = line.find("% of ");
      top.total = parseValue(line.substr(of + 5));
      continue;
    }
    if (line.find("flat  flat%") != std::string::npos) {
      table = true;
      continue;
    }
    if (!table) continue;
    // flat flat% sum% cum cum% name (the name may hold spaces).
    std::istringstream words(line);
    std::string flat, flat_pct, sum_pct, cum, cum_pct;
    words >> flat >> flat_pct >> sum_pct >> cum >> cum_pct >> std::ws;
    std::string name;
    std::getline(words, name);
    TopEntry& e = top.by_name[name];
    e.flat += parseValue(flat);
    e.cum += parseValue(cum);
  }
  return top;
}

struct Case {
  std::string name;
  std::string dump;
  std::string exe;  // "" for none
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.dump << " " << c.exe;
}

std::vector<Case> cases() {
  const std::string d = GOHEAP_TESTDUMPS_DIR;
  std::vector<Case> out{{"go1_24_retention_no_exe", d + "/go1.24/retention.dump", ""}};
  for (const std::string& p : testing::inEachVersion({"retention", "zoo"})) {
    out.push_back({testing::testName(p), d + "/" + p + ".dump", d + "/" + p});
  }
  return out;
}

class Pprof : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (goTool().empty()) GTEST_SKIP() << "no Go toolchain for go tool pprof";
    const Case& c = GetParam();
    ASSERT_TRUE(fs::exists(c.dump)) << c.dump << " is missing: tests/programs/make-dumps.sh";
    auto snap = goheap::testing::openSnapshot(c.dump, c.exe);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    snap_ = snap.take();
    if (!c.exe.empty()) {
      ASSERT_TRUE(snap_->exe) << snap_->exe_problem;
      ASSERT_TRUE(snap_->types) << snap_->types_problem;
    }
  }

  std::string write(const char* format) {
    const exporting::Format* f = exporting::findFormat(format);
    EXPECT_NE(f, nullptr);
    const std::string path = scratch_.file(std::string(format) + ".pb.gz");
    std::FILE* file = std::fopen(path.c_str(), "wb");
    EXPECT_NE(file, nullptr);
    {
      exporting::Output out(file, path);
      EXPECT_TRUE(f->write(*snap_, {}, out));
      EXPECT_TRUE(out.finish());
    }
    std::fclose(file);
    return path;
  }

  Top top(const std::string& profile, const std::string& sample_index) {
    return parseTop(runPprof(scratch_, {"-top", "-unit=B", "-nodefraction=0", "-nodecount=1000000",
                                        "-sample_index=" + sample_index, profile}));
  }

  // goheap's `top --by type`, rows of the same name summed.
  std::map<std::string, analysis::HistogramRow> histogramByName() const {
    std::map<std::string, analysis::HistogramRow> rows;
    const analysis::Histogram h =
        analysis::histogram(*snap_, typing::GroupKind::Type, analysis::SortKey::Retained, SIZE_MAX);
    for (const analysis::HistogramRow& r : h.rows) {
      analysis::HistogramRow& m = rows[r.name];
      m.count += r.count;
      m.shallow += r.shallow;
      m.retained += r.retained;
    }
    return rows;
  }

  Scratch scratch_;
  goheap::testing::SnapshotPtr snap_;
};

TEST_P(Pprof, TypeFramesAreGoheapsTopByType) {
  const std::string profile = write("pprof");
  const auto rows = histogramByName();
  ASSERT_FALSE(rows.empty());
  uint64_t retained_total = 0;
  for (const auto& [name, r] : rows) retained_total += r.retained;
  struct Index {
    const char* name;
    uint64_t total;
    uint64_t analysis::HistogramRow::*value;
  };
  const Index indices[] = {
      {"inuse_objects", snap_->reachable_objects, &analysis::HistogramRow::count},
      {"inuse_space", snap_->reachable_bytes, &analysis::HistogramRow::shallow},
      {"retained_space", retained_total, &analysis::HistogramRow::retained},
  };
  for (const Index& index : indices) {
    SCOPED_TRACE(index.name);
    const Top t = top(profile, index.name);
    EXPECT_EQ(t.total, index.total);
    // Every type's frame is a leaf (flat) and holds all of the type.
    for (const auto& [name, r] : rows) {
      auto it = t.by_name.find(name);
      ASSERT_NE(it, t.by_name.end()) << name;
      EXPECT_EQ(it->second.flat, r.*index.value) << name;
    }
  }
}

TEST_P(Pprof, RetentionFramesRetainWhatGoheapSays) {
  const std::string profile = write("pprof-retention");
  const auto rows = histogramByName();
  ASSERT_FALSE(rows.empty());
  const Top objects = top(profile, "inuse_objects");
  EXPECT_EQ(objects.total, snap_->reachable_objects);
  const Top space = top(profile, "inuse_space");
  EXPECT_EQ(space.total, snap_->reachable_bytes);
  // A type's frame is on the stack of everything its outermost members
  // dominate: its cum is what the type retains, its flat its own bytes.
  for (const auto& [name, r] : rows) {
    auto it = space.by_name.find(name);
    ASSERT_NE(it, space.by_name.end()) << name;
    EXPECT_EQ(it->second.flat, r.shallow) << name;
    EXPECT_EQ(it->second.cum, r.retained) << name;
  }
  // The biggest retainer of all, through its own frame.
  const analysis::Summary sum = analysis::summarize(*snap_, 1);
  ASSERT_FALSE(sum.top_retainers.empty());
  const analysis::Retainer& top_retainer = sum.top_retainers[0];
  const std::string type =
      snap_->namer()
          .group(typing::GroupKind::Type)
          .names.at(
              snap_->namer().group(typing::GroupKind::Type).group_of[top_retainer.object.node]);
  if (rows.at(type).count == 1) {
    EXPECT_EQ(space.by_name.at(type).cum, top_retainer.retained);
  }
}

INSTANTIATE_TEST_SUITE_P(Dumps, Pprof, ::testing::ValuesIn(cases()),
                         [](const auto& p) { return p.param.name; });

// The inlining program allocates inside inlined functions: the dump names
// those frames after the function they are inlined into, the profile after
// the inlined function, with the dump's file:line.
TEST(PprofRaw, LocationsCarryLinesAndInlinedFunctions) {
  if (goTool().empty()) GTEST_SKIP() << "no Go toolchain for go tool pprof";
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
  auto snap = goheap::testing::openSnapshot(dir + "/inlining.dump", dir + "/inlining", false);
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  ASSERT_TRUE((*snap)->exe) << (*snap)->exe_problem;
  Scratch scratch;
  const std::string path = scratch.file("inlining.pb.gz");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  {
    exporting::Output out(file, path);
    ASSERT_TRUE(exporting::writePprof(**snap, {}, out));
    ASSERT_TRUE(out.finish());
  }
  std::fclose(file);
  const std::string raw = runPprof(scratch, {"-raw", path});
  ASSERT_NE(raw.find("Locations"), std::string::npos) << raw;
  const std::string locations = raw.substr(raw.find("Locations"));
  // The mapping names the executable by its build ID.
  EXPECT_NE(raw.find((**snap).exe->binary().buildId()), std::string::npos);

  const testing::JsonValue report = testing::JsonValue::parseFile(dir + "/inlining.json");
  const auto& allocs = report["allocs"];
  ASSERT_GT(allocs.size(), 0u);
  for (size_t i = 0; i < allocs.size(); i++) {
    const std::string function = allocs[i]["function"].str();
    const std::string where =
        allocs[i]["file"].str() + ":" + std::to_string(allocs[i]["line"].u64());
    EXPECT_NE(allocs[i]["physical"].str(), function);
    // "17: 0x0 M=1 main.newNode ./main.go:143:0 s=0" (pprof adds the column).
    const std::string wanted = " " + function + " " + where;
    const size_t at = locations.find(wanted);
    const char next = at == std::string::npos ? '?' : locations[at + wanted.size()];
    EXPECT_TRUE(next == ':' || next == ' ') << function << " at " << where << " in\n" << locations;
  }
}

}  // namespace
}  // namespace goheap
