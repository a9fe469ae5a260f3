// Separate debug files (query/debug_file.h, bin/debug_file_search.h,
// acquire/debuginfod.h): the zoo program split as Debian ships Go programs
// (tests/programs/split-debug.sh: a stripped executable and its debug file),
// its DWARF found by GNU build ID, by .gnu_debuglink and from a debuginfod
// server. The oracle is the unstripped twin: the same dump read with it must
// type every object the same, by name, and the same bytes.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "acquire/debuginfod.h"
#include "bin/binary.h"
#include "bin/debug_file_search.h"
#include "cache/cache_key.h"
#include "support/goheap_process.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/open_heap.h"
#include "typing/names.h"

extern char** environ;

namespace goheap {
namespace {

namespace fs = std::filesystem;

// The releases make-dumps.sh splits zoo for (split-debug.sh).
const std::vector<std::string> kReleases = {"go1.24", "go1.26"};

std::string splitDir(const std::string& release) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + release + "/debugfile";
}

// What the typing made of a heap: each object's type name (empty when
// untyped) and the typed bytes.
struct Typing {
  std::vector<std::string> names;
  uint64_t typed_objects = 0, typed_bytes = 0;
  std::string problem;  // why there is no DWARF
  std::string source;   // of the types: "DWARF" or "type descriptors"
  std::string debug_file, found_by;
};

Typing typingOf(const std::string& dump, const std::string& exe,
                const query::DebugFileOptions& debug) {
  NullSink quiet;
  query::OpenOptions options;
  options.debug_files = debug;
  Expected<std::shared_ptr<const query::Session>> session =
      query::open(query::Source::fromArgument(dump, exe), quiet, options);
  EXPECT_TRUE(session.ok()) << (session ? "" : session.error().message());
  Typing t;
  if (!session) return t;
  const analysis::Snapshot& s = (*session)->snapshot();
  t.problem = s.types_problem;
  if (s.exe != nullptr) {
    t.problem = s.exe->debugInfoProblem();
    t.source = s.exe->typeTableSource();
    t.debug_file = s.exe->binary().debugFilePath();
    t.found_by = s.exe->binary().debugFileFoundBy();
  }
  for (NodeId o = 0; o < s.heap.objectCount(); ++o) {
    t.names.push_back(s.namer().typeName(o));
    if (s.types != nullptr && s.types->typed(o)) {
      t.typed_objects++;
      t.typed_bytes += s.model.objects.size[o];
    }
  }
  return t;
}

void copyFile(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

class DebugFileTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = splitDir(GetParam());
    for (const std::string& f : {dump(), twin(), stripped(), debugFile()}) {
      ASSERT_TRUE(fs::exists(f)) << f << " is missing: run tests/programs/make-dumps.sh";
    }
    work_ =
        testing::scratch().file("debug-file-" + GetParam() + "-" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(work_);
    fs::create_directories(work_);
    twin_typing_ = typingOf(dump(), twin(), {});
    ASSERT_EQ(twin_typing_.problem, "");
    ASSERT_GT(twin_typing_.typed_objects, 100u) << "the twin types too little to compare";
  }

  std::string dump() const { return dir_ + "/zoo.dump"; }
  std::string twin() const { return dir_ + "/zoo"; }
  std::string stripped() const { return dir_ + "/zoo-stripped"; }
  std::string debugFile() const { return dir_ + "/zoo-stripped.debug"; }
  // A copy of the stripped executable alone in a folder of its own, so that
  // its debug file is not beside it.
  std::string lonelyStripped() const {
    const std::string exe = work_ + "/bin/zoo-stripped";
    copyFile(stripped(), exe);
    return exe;
  }
  std::string buildId() const {
    Expected<bin::Binary> b = bin::Binary::open(stripped());
    EXPECT_TRUE(b.ok());
    return b ? bin::gnuBuildId(b->container()) : std::string();
  }

  // The stripped executable typed as its twin: the same name for every
  // object, the same typed bytes.
  void expectSameAsTwin(const Typing& t) const {
    EXPECT_EQ(t.problem, "");
    EXPECT_EQ(t.source, "DWARF");
    EXPECT_EQ(t.typed_objects, twin_typing_.typed_objects);
    EXPECT_EQ(t.typed_bytes, twin_typing_.typed_bytes);
    ASSERT_EQ(t.names.size(), twin_typing_.names.size());
    size_t differ = 0;
    for (size_t o = 0; o < t.names.size(); ++o) {
      if (t.names[o] != twin_typing_.names[o] && differ++ < 5) {
        ADD_FAILURE() << "object " << o << ": " << t.names[o] << " vs the twin's "
                      << twin_typing_.names[o];
      }
    }
    EXPECT_EQ(differ, 0u);
  }

  std::string dir_, work_;
  Typing twin_typing_;
};

TEST_P(DebugFileTest, TheSplitIsAsDebianMakesIt) {
  Expected<bin::Binary> exe = bin::Binary::open(stripped());
  ASSERT_TRUE(exe.ok()) << exe.error().message();
  EXPECT_FALSE(bin::hasOwnDebugInfo(exe->container()));
  // The build ID readelf prints is 20 bytes (Go's -B gobuildid: a SHA-1
  // size note).
  EXPECT_EQ(bin::gnuBuildId(exe->container()).size(), 40u);
  std::optional<bin::DebugLink> link = bin::debugLink(exe->container());
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ(link->name, "zoo-stripped.debug");
  Expected<MappedFile> debug = MappedFile::open(debugFile());
  ASSERT_TRUE(debug.ok());
  EXPECT_EQ(link->crc, bin::debugLinkCrc(debug->bytes()));
  // The same build ID as the twin's, and the debug file's.
  Expected<bin::Binary> twin = bin::Binary::open(this->twin());
  ASSERT_TRUE(twin.ok());
  EXPECT_EQ(bin::gnuBuildId(twin->container()), bin::gnuBuildId(exe->container()));
}

// Without it the types come from the runtime's type descriptors, and the
// DWARF's absence says what was tried.
TEST_P(DebugFileTest, WithoutItTheDescriptorsTypeAndTheMessageSaysWhatWasTried) {
  const Typing t = typingOf(dump(), lonelyStripped(), {{work_ + "/empty"}, {}, {}});
  EXPECT_EQ(t.source, "type descriptors");
  EXPECT_NE(t.problem.find("no separate debug file found"), std::string::npos) << t.problem;
  EXPECT_NE(t.problem.find(buildId()), std::string::npos) << t.problem;
  EXPECT_NE(t.problem.find(work_ + "/empty/.build-id/"), std::string::npos) << t.problem;
  EXPECT_NE(t.problem.find("/usr/lib/debug/.build-id/"), std::string::npos) << t.problem;
  EXPECT_NE(t.problem.find(".gnu_debuglink zoo-stripped.debug"), std::string::npos) << t.problem;
}

TEST_P(DebugFileTest, FoundByBuildIdInADebugDir) {
  const std::string id = buildId();
  const std::string dbg = work_ + "/dbg";
  copyFile(debugFile(), dbg + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
  const Typing t = typingOf(dump(), lonelyStripped(), {{work_ + "/other", dbg}, {}, {}});
  EXPECT_EQ(t.found_by, "build ID");
  EXPECT_EQ(t.debug_file, bin::buildIdDebugPath(dbg, id));
  expectSameAsTwin(t);
}

TEST_P(DebugFileTest, FoundByDebugLinkBesideInDotDebugAndUnderADebugDir) {
  // Beside the executable (as make-dumps.sh leaves them).
  Typing t = typingOf(dump(), stripped(), {});
  EXPECT_EQ(t.found_by, ".gnu_debuglink");
  // The same file, maybe through a symbolic link to the test dumps: the
  // search resolves the executable's folder as gdb does.
  EXPECT_TRUE(fs::equivalent(t.debug_file, debugFile())) << t.debug_file;
  expectSameAsTwin(t);

  // In the executable's .debug/ subfolder.
  const std::string exe = lonelyStripped();
  copyFile(debugFile(), work_ + "/bin/.debug/zoo-stripped.debug");
  t = typingOf(dump(), exe, {});
  EXPECT_EQ(t.debug_file, work_ + "/bin/.debug/zoo-stripped.debug");
  expectSameAsTwin(t);
  fs::remove_all(work_ + "/bin/.debug");

  // Under a debug dir, at the executable's own folder path.
  const std::string dbg = work_ + "/dbg";
  const std::string folder = fs::weakly_canonical(exe).parent_path().string();
  copyFile(debugFile(), dbg + folder + "/zoo-stripped.debug");
  t = typingOf(dump(), exe, {{dbg}, {}, {}});
  EXPECT_EQ(t.found_by, ".gnu_debuglink");
  EXPECT_EQ(t.debug_file, dbg + folder + "/zoo-stripped.debug");
  expectSameAsTwin(t);
}

TEST_P(DebugFileTest, ADebugLinkToAnotherBuildIsRefusedByItsCrc) {
  // The other release's debug file, under this one's name: its CRC is not
  // the one the link names.
  const std::string other = splitDir(GetParam() == kReleases[0] ? kReleases[1] : kReleases[0]);
  if (!fs::exists(other + "/zoo-stripped.debug")) GTEST_SKIP() << "only one release split";
  const std::string exe = lonelyStripped();
  copyFile(other + "/zoo-stripped.debug", work_ + "/bin/zoo-stripped.debug");
  const Typing t = typingOf(dump(), exe, {{work_ + "/empty"}, {}, {}});
  EXPECT_EQ(t.source, "type descriptors");
  EXPECT_NE(t.problem.find(work_ + "/bin/zoo-stripped.debug: "), std::string::npos) << t.problem;
  EXPECT_NE(t.problem.find("another build"), std::string::npos) << t.problem;
}

TEST_P(DebugFileTest, TheCacheKeyKnowsTheDebugFile) {
  Expected<bin::Binary> without = bin::Binary::open(stripped());
  Expected<bin::Binary> with = bin::Binary::open(stripped());
  ASSERT_TRUE(without.ok() && with.ok());
  ASSERT_TRUE(with->useDebugFile(debugFile(), "test").ok());
  cache::KeyInputs a, b;
  a.executable = cache::fingerprintOf(*without);
  b.executable = cache::fingerprintOf(*with);
  EXPECT_NE(cache::computeKey(a), cache::computeKey(b));
  // And the debug file of another build is refused.
  Expected<bin::Binary> other = bin::Binary::open(stripped());
  ASSERT_TRUE(other.ok());
  Status refused = other->useDebugFile(twin() + ".dump", "test");
  EXPECT_FALSE(refused.ok());
}

TEST_P(DebugFileTest, SummaryJsonSaysWhichFileGaveTheDwarf) {
  const std::string id = buildId();
  const std::string dbg = work_ + "/dbg";
  copyFile(debugFile(), bin::buildIdDebugPath(dbg, id));
  const std::string exe = lonelyStripped();
  testing::RunResult r = testing::runGoheap(
      {"summary", dump(), exe, "--debug-dir", dbg, "--json", "--no-progress", "--no-cache"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  testing::JsonValue doc = testing::JsonValue::parse(r.out);
  const testing::JsonValue& dwarf = doc["executable"]["dwarf"];
  EXPECT_EQ(dwarf["source"].str(), "debug_file");
  EXPECT_EQ(dwarf["debug_file"].str(), bin::buildIdDebugPath(dbg, id));
  EXPECT_EQ(dwarf["found_by"].str(), "build ID");
  // As many reachable objects and bytes typed as with the twin.
  testing::RunResult with_twin =
      testing::runGoheap({"summary", dump(), twin(), "--json", "--no-progress", "--no-cache"});
  ASSERT_TRUE(with_twin.exited && with_twin.code == 0) << with_twin.describe();
  testing::JsonValue twin_doc = testing::JsonValue::parse(with_twin.out);
  EXPECT_EQ(twin_doc["executable"]["dwarf"]["source"].str(), "executable");
  EXPECT_GT(twin_doc["types"]["typed_reachable_bytes"].u64(), 0u);
  EXPECT_EQ(doc["types"]["typed_reachable_count"].u64(),
            twin_doc["types"]["typed_reachable_count"].u64());
  EXPECT_EQ(doc["types"]["typed_reachable_bytes"].u64(),
            twin_doc["types"]["typed_reachable_bytes"].u64());
  // The text says it too.
  r = testing::runGoheap(
      {"summary", dump(), exe, "--debug-dir", dbg, "--no-progress", "--no-cache"});
  ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_NE(r.out.find("dwarf      " + bin::buildIdDebugPath(dbg, id)), std::string::npos) << r.out;
}

// A debuginfod server (elfutils') on a free loopback port serving a folder
// with the debug file, for as long as the object lives.
class Debuginfod {
 public:
  static std::string binary() {
    for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
      const std::string p = std::string(dir) + "/debuginfod";
      if (::access(p.c_str(), X_OK) == 0) return p;
    }
    return {};
  }

  Debuginfod(const std::string& folder, const std::string& db) {
    port_ = freePort();
    const std::string port = std::to_string(port_);
    const std::string exe = binary();
    std::vector<std::string> args = {exe, "-F", folder, "-p", port, "-d", db, "-t", "0"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = folder + "/../debuginfod.log";
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Debuginfod() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  Debuginfod(const Debuginfod&) = delete;
  Debuginfod& operator=(const Debuginfod&) = delete;

  bool started() const { return pid_ > 0; }
  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Waits (at most `seconds`) until the server answers 200 for `build_id`:
  // it indexes the folder in the background after it starts.
  bool waitFor(const std::string& build_id, double seconds) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      testing::HttpAnswer a =
          testing::httpGet("127.0.0.1", port_, "/buildid/" + build_id + "/debuginfo");
      if (a.status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

 private:
  // A port the kernel gives a socket bound to port 0, closed again for the
  // server to take.
  static uint16_t freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      if (fd >= 0) ::close(fd);
      return 0;
    }
    ::close(fd);
    return ntohs(a.sin_port);
  }

  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

TEST_P(DebugFileTest, FetchedFromDebuginfodAndKeptInTheCache) {
  if (Debuginfod::binary().empty()) {
    GTEST_SKIP() << "debuginfod is not installed (Debian's debuginfod package; "
                    "scripts/install-deps.sh installs it)";
  }
  const std::string id = buildId();
  copyFile(debugFile(), work_ + "/served/zoo-stripped.debug");
  const std::string store = work_ + "/cache/debuginfo";
  const std::string exe = lonelyStripped();
  {
    Debuginfod server(work_ + "/served", work_ + "/debuginfod.sqlite");
    ASSERT_TRUE(server.started() && server.port() != 0) << "cannot start debuginfod";
    ASSERT_TRUE(server.waitFor(id, 60)) << "debuginfod did not index " << work_ << "/served";

    // A server without it first (404), then the one with it.
    const query::DebugFileOptions options{
        {work_ + "/empty"},
        {"http://127.0.0.1:" + std::to_string(server.port()) + "/nothing", server.url()},
        store};
    const Typing t = typingOf(dump(), exe, options);
    EXPECT_EQ(t.debug_file, store + "/" + id + "/debuginfo");
    EXPECT_EQ(t.found_by, "debuginfod, " + server.url() + "/buildid/" + id + "/debuginfo");
    expectSameAsTwin(t);

    // The command line: DEBUGINFOD_URLS, and the download's progress phase.
    ::setenv("DEBUGINFOD_URLS", ("https://example.invalid " + server.url()).c_str(), 1);
    testing::RunResult r = testing::runGoheap({"summary", dump(), exe, "--json", "--no-progress",
                                               "--no-cache", "--cache", work_ + "/cli-cache",
                                               "--timings", "--debug-dir", work_ + "/empty"});
    ::unsetenv("DEBUGINFOD_URLS");
    ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
    testing::JsonValue doc = testing::JsonValue::parse(r.out);
    EXPECT_EQ(doc["executable"]["dwarf"]["source"].str(), "debug_file");
    EXPECT_EQ(doc["executable"]["dwarf"]["debug_file"].str(),
              work_ + "/cli-cache/debuginfo/" + id + "/debuginfo");
    EXPECT_NE(r.err.find("download (debuginfod)"), std::string::npos) << r.describe();
  }
  // The server is gone: the kept file serves.
  const query::DebugFileOptions options{{}, {"http://127.0.0.1:1"}, store};
  const Typing t = typingOf(dump(), exe, options);
  EXPECT_EQ(t.found_by, "debuginfod, kept in the cache folder");
  expectSameAsTwin(t);
}

TEST(DebugFileSearch, AnExecutableWithNeitherBuildIdNorLinkCannotBeLookedUp) {
  // make-dumps.sh's stripped/funcs of Go 1.19: -ldflags='-s -w', and no GNU
  // build ID (Go's linker writes one by default since Go 1.24).
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.19/stripped/funcs";
  ASSERT_TRUE(fs::exists(exe)) << exe << " is missing: run tests/programs/make-dumps.sh";
  Typing t = typingOf(exe + ".dump", exe, {});
  EXPECT_EQ(t.source, "type descriptors");
  EXPECT_NE(t.problem.find("neither a GNU build ID nor a .gnu_debuglink"), std::string::npos)
      << t.problem;
}

TEST(DebugFileSearch, BuildIdPathAndUrls) {
  EXPECT_EQ(bin::buildIdDebugPath("/usr/lib/debug", "abcdef01"),
            "/usr/lib/debug/.build-id/ab/cdef01.debug");
  EXPECT_EQ(bin::buildIdDebugPath("/d/", "ab"), "");
  EXPECT_EQ(acquire::debuginfodUrls("  http://a:1  http://b/x\thttp://c "),
            (std::vector<std::string>{"http://a:1", "http://b/x", "http://c"}));
}

INSTANTIATE_TEST_SUITE_P(Zoo, DebugFileTest, ::testing::ValuesIn(kReleases));

}  // namespace
}  // namespace goheap
