// goheap serve: the HTTP API's answers, its JSON errors for bad parameters,
// and many clients at once. The server runs in-process on a free port; one
// test starts the real binary to check the printed URL. That it answers
// what the command line prints is checked with both as real processes, in
// serve_matches_cli_test.cpp.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/server.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/serve_process.h"

extern char** environ;

namespace goheap {
namespace {

using testing::JsonValue;

const std::string kDir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
const std::string kDump = kDir + "/retention.dump";
const std::string kExe = kDir + "/retention";

// Runs goheap with `args` and returns its stdout (stderr is dropped).
std::string runCli(const std::vector<std::string>& args) {
  std::string command = std::string("'") + GOHEAP_BINARY + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  command += " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return out;
}

struct Answer {
  int status = 0;
  std::string body;
  std::string content_type;
};

Answer get(const serve::HostPort& where, const std::string& path) {
  const testing::HttpAnswer a = testing::httpGet(where.host, where.port, path);
  return {a.status, a.body, a.contentType()};
}

// One server for the whole suite, loaded in the background from the Go 1.24
// retention dump and its executable, as `goheap serve HEAP EXE` loads it.
class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kDump) || !std::filesystem::exists(kExe)) return;
    auto server = serve::Server::start({"127.0.0.1", 0});
    ASSERT_TRUE(server) << server.error().message();
    server_ = server->release();
    server_->loadInBackground(kDump, kExe);
    ASSERT_EQ(testing::waitUntilLoaded(server_->where().port), "ready");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!std::filesystem::exists(kDump) || !std::filesystem::exists(kExe)) {
      GTEST_SKIP() << "no " << kDump << " (make_test_dumps makes it)";
    }
    // The dump is there: a server that did not start is goheap's failure.
    ASSERT_NE(server_, nullptr) << "goheap's server did not start (SetUpTestSuite says why)";
  }

  static Answer api(const std::string& path) { return get(server_->where(), path); }

  // An object the tests can ask about: the biggest top retainer.
  static std::string someAddress() {
    const JsonValue summary = JsonValue::parse(api("/api/summary").body);
    return summary["top_retainers"][0]["object"]["address"].str();
  }

  static serve::Server* server_;
};
serve::Server* ServeTest::server_ = nullptr;

TEST_F(ServeTest, StatusSaysReadyOnceLoaded) {
  const Answer a = api("/api/status");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.content_type, "application/json");
  const JsonValue status = JsonValue::parse(a.body);
  EXPECT_EQ(status["schema_version"].u64(), 1u);
  EXPECT_EQ(status["phase"].str(), "done");
  EXPECT_EQ(status["fraction"].number(), 1.0);
}

TEST_F(ServeTest, TopPagesAndFiltersTheGroups) {
  const JsonValue all = JsonValue::parse(api("/api/top?by=site&n=0").body);
  const JsonValue page = JsonValue::parse(api("/api/top?by=site&n=2&offset=1").body);
  ASSERT_GE(all["rows"].size(), 3u);
  EXPECT_EQ(page["groups"].u64(), all["groups"].u64());
  ASSERT_EQ(page["rows"].size(), 2u);
  EXPECT_EQ(page["rows"][0]["name"].str(), all["rows"][1]["name"].str());
  EXPECT_EQ(page["rows"][1]["name"].str(), all["rows"][2]["name"].str());

  const JsonValue filtered = JsonValue::parse(api("/api/top?by=type&n=0&filter=treenode").body);
  ASSERT_GE(filtered["rows"].size(), 1u);
  EXPECT_EQ(filtered["groups"].u64(), filtered["rows"].size());
  for (const JsonValue& row : filtered["rows"].items()) {
    EXPECT_NE(row["name"].str().find("treeNode"), std::string::npos) << row["name"].str();
  }
  const JsonValue none = JsonValue::parse(api("/api/top?filter=no-such-group-anywhere").body);
  EXPECT_EQ(none["groups"].u64(), 0u);
  EXPECT_EQ(none["rows"].size(), 0u);
}

TEST_F(ServeTest, BadParametersGetAJsonErrorNotACrash) {
  struct Case {
    std::string path;
    int status;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"/api/top?by=weight", 400, "by"},
      {"/api/top?sort=name", 400, "sort"},
      {"/api/top?n=ten", 400, "n"},
      {"/api/top?n=-1", 400, "n"},
      {"/api/top?offset=99999999999999999999999", 400, "offset"},
      {"/api/top?limit=x", 400, "limit"},
      {"/api/top?bogus=5", 400, "unknown parameter"},
      {"/api/summary?n=1x", 400, "n"},
      {"/api/dom?from=0x1", 404, "no object contains address 0x1"},
      {"/api/dom?from=nowhere", 400, "from"},
      {"/api/dom?min_bytes=lots", 400, "min_bytes"},
      {"/api/dom?depth=", 400, "depth"},
      {"/api/paths", 400, "missing parameter \"addr\""},
      {"/api/paths?addr=0x10", 404, "no object contains address"},
      {"/api/paths?addr=0xzz", 400, "addr"},
      {"/api/obj?addr=0x8", 404, "no object contains address"},
      {"/api/obj?addr=0xc000000000&bytes=1Q", 400, "bytes"},
      {"/api/goroutines?sort=age", 400, "sort"},
      {"/api/goroutines?user=maybe", 400, "user"},
      {"/api/suspects?threshold=0", 400, "threshold"},
      {"/api/suspects?accumulation=20", 400, "accumulation"},
      {"/api/suspects?threshold=101", 400, "threshold"},
      {"/api/suspects?threshold=lots", 400, "threshold"},
      {"/api/suspects?limit=x", 400, "limit"},
      {"/api/suspects?n=x", 400, "n"},
      {"/api/nothing-here", 404, "no such endpoint"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const Answer a = api(c.path);
    EXPECT_EQ(a.status, c.status) << a.body;
    EXPECT_EQ(a.content_type, "application/json");
    const JsonValue error = JsonValue::parse(a.body);
    ASSERT_TRUE(error.has("error")) << a.body;
    EXPECT_NE(error["error"].str().find(c.message_part), std::string::npos) << a.body;
  }
  // And the server still answers.
  EXPECT_EQ(api("/api/summary").status, 200);
}

// The flame graph: the root is every reachable byte; a frame's children
// never hold more than it; with min_bytes 0 nothing is folded, so the
// frames' own bytes add up to the whole.
void checkFlame(const JsonValue& n, uint64_t& self_total) {
  uint64_t children = 0;
  self_total += n["self"].u64();
  for (const JsonValue& c : n["children"].items()) {
    children += c["value"].u64();
    EXPECT_LE(c["value"].u64(), n["value"].u64()) << c["name"].str();
    checkFlame(c, self_total);
  }
  EXPECT_EQ(children + n["self"].u64(), n["value"].u64()) << n["name"].str();
}

TEST_F(ServeTest, FlameGraphAddsUpToTheReachableBytes) {
  const JsonValue summary = JsonValue::parse(api("/api/summary").body);
  const Answer a = api("/api/flame?min_bytes=0");
  ASSERT_EQ(a.status, 200) << a.body;
  const JsonValue flame = JsonValue::parse(a.body);
  const uint64_t reachable = summary["objects"]["reachable_bytes"].u64();
  EXPECT_EQ(flame["root"]["value"].u64(), reachable);
  EXPECT_EQ(flame["total"].u64(), reachable);
  uint64_t self_total = 0;
  checkFlame(flame["root"], self_total);
  EXPECT_EQ(self_total, reachable);
  // The structures the retention program builds are frames of their type.
  bool tree = false;
  std::vector<const JsonValue*> todo{&flame["root"]};
  while (!todo.empty()) {
    const JsonValue* n = todo.back();
    todo.pop_back();
    tree |= (*n)["name"].str() == "main.treeNode";
    for (const JsonValue& c : (*n)["children"].items()) todo.push_back(&c);
  }
  EXPECT_TRUE(tree);
  EXPECT_EQ(api("/api/flame?max_depth=0").status, 400);
  EXPECT_EQ(api("/api/flame?min_bytes=lots").status, 400);
}

// The search box: an address finds its object, a name the groups and the
// globals (the retention program's chainHead global holds its chain).
TEST_F(ServeTest, SearchFindsObjectsGroupsAndGlobals) {
  const std::string addr = someAddress();
  const JsonValue by_addr = JsonValue::parse(api("/api/search?q=" + addr).body);
  EXPECT_EQ(by_addr["object"]["address"].str(), addr);
  const Answer a = api("/api/search?q=chainHead");
  ASSERT_EQ(a.status, 200) << a.body;
  const JsonValue found = JsonValue::parse(a.body);
  ASSERT_EQ(found["globals"].size(), 1u) << a.body;
  const JsonValue& g = found["globals"][0];
  EXPECT_EQ(g["name"].str(), "main.chainHead");
  EXPECT_EQ(g["type"].str(), "*main.chainNode");
  ASSERT_EQ(g["points_to"].size(), 1u);
  EXPECT_EQ(g["points_to"][0]["name"].str(), "main.chainNode");
  const JsonValue groups = JsonValue::parse(api("/api/search?q=main.Session").body);
  bool session = false;
  for (const JsonValue& row : groups["groups"].items()) {
    EXPECT_NE(row["name"].str().find("main.Session"), std::string::npos) << row["name"].str();
    session |= row["name"].str() == "main.Session";
  }
  EXPECT_TRUE(session);
  EXPECT_EQ(api("/api/search").status, 400);
  EXPECT_EQ(api("/api/search?q=").status, 400);
}

TEST_F(ServeTest, ServesTheEmbeddedPageAtTheRoot) {
  const Answer a = api("/");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.content_type, "text/html; charset=utf-8");
  EXPECT_NE(a.body.find("/app.js"), std::string::npos);
  EXPECT_EQ(api("/index.html").body, a.body);
  const Answer js = api("/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_NE(js.content_type.find("javascript"), std::string::npos) << js.content_type;
  EXPECT_NE(js.body.find("/api/"), std::string::npos);
  EXPECT_NE(api("/style.css").content_type.find("text/css"), std::string::npos);
  EXPECT_EQ(api("/no-such-page.js").status, 404);
}

TEST_F(ServeTest, AnswersManyClientsAtOnce) {
  const std::string addr = someAddress();
  const std::vector<std::string> paths = {
      "/api/summary?n=5", "/api/top?by=site&n=10",        "/api/top?by=type&filter=main",
      "/api/dom?depth=3", "/api/paths?addr=" + addr,      "/api/obj?addr=" + addr,
      "/api/goroutines",  "/api/top?by=shape&sort=count",
  };
  std::vector<std::string> expected;
  for (const std::string& p : paths) expected.push_back(api(p).body);

  constexpr int kThreads = 8, kRequests = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      testing::HttpConnection client(server_->where().host, server_->where().port);
      for (int i = 0; i < kRequests; i++) {
        const size_t which = static_cast<size_t>(t + i) % paths.size();
        const testing::HttpAnswer res = client.get(paths[which]);
        if (res.status != 200 || res.body != expected[which]) failures++;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ServeLoading, AnswersStatusAnd503UntilTheDumpIsLoaded) {
  // A server given nothing to load stays in its first state.
  auto server = serve::Server::start({"127.0.0.1", 0});
  ASSERT_TRUE(server) << server.error().message();
  const Answer status = get((*server)->where(), "/api/status");
  EXPECT_EQ(status.status, 200);
  EXPECT_EQ(JsonValue::parse(status.body)["state"].str(), "loading");
  for (const char* path : {"/api/summary", "/api/top", "/api/dom", "/api/goroutines"}) {
    const Answer a = get((*server)->where(), path);
    EXPECT_EQ(a.status, 503) << path;
    EXPECT_TRUE(JsonValue::parse(a.body).has("error")) << a.body;
  }
  EXPECT_EQ(get((*server)->where(), "/").status, 200);  // the page can show the progress
}

TEST(ServeLoading, ABadDumpIsReportedByStatus) {
  auto server = serve::Server::start({"127.0.0.1", 0});
  ASSERT_TRUE(server) << server.error().message();
  std::atomic<bool> done{false};
  (*server)->loadInBackground("/nonexistent/heap.dump", "", nullSink(),
                              [&](const Error* failure) { done = failure != nullptr; });
  for (int i = 0; i < 500 && !done; i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(done);
  const JsonValue status = JsonValue::parse(get((*server)->where(), "/api/status").body);
  EXPECT_EQ(status["state"].str(), "failed");
  EXPECT_NE(status["error"].str().find("heap.dump"), std::string::npos);
  EXPECT_EQ(get((*server)->where(), "/api/summary").status, 500);
}

TEST(ServeHostPort, ParsesAndExplainsMistakes) {
  auto ok = serve::parseHostPort("127.0.0.1:8080");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->host, "127.0.0.1");
  EXPECT_EQ(ok->port, 8080);
  auto v6 = serve::parseHostPort("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(serve::urlOf(*v6), "http://[::1]:0/");
  for (const char* bad : {"8080", "127.0.0.1", ":8080", "localhost:http", "localhost:70000",
                          "::1:8080", "localhost:-1"}) {
    auto r = serve::parseHostPort(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message().find("HOST:PORT"), std::string::npos);
    }
  }
}

TEST(ServeCommand, PrintsTheUrlOfTheFreePortItGot) {
  if (!std::filesystem::exists(kDump)) GTEST_SKIP() << "no " << kDump;
  int err_pipe[2];
  ASSERT_EQ(::pipe(err_pipe), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  std::vector<std::string> words = {GOHEAP_BINARY, "serve", kDump, "--http", "127.0.0.1:0"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err_pipe[1]);

  // The first line says where it listens.
  std::string line;
  char c;
  while (::read(err_pipe[0], &c, 1) == 1 && c != '\n') line += c;
  const std::string prefix = "goheap: serving http://127.0.0.1:";
  ASSERT_TRUE(line.starts_with(prefix)) << line;
  const std::string port_text = line.substr(prefix.size(), line.size() - prefix.size() - 1);
  const int port = std::stoi(port_text);
  EXPECT_GT(port, 0);
  EXPECT_TRUE(line.ends_with("/")) << line;

  const serve::HostPort where{"127.0.0.1", static_cast<uint16_t>(port)};
  bool ready = false;
  for (int i = 0; i < 600 && !ready; i++) {
    const Answer a = get(where, "/api/status");
    ASSERT_EQ(a.status, 200);
    ready = JsonValue::parse(a.body)["state"].str() == "ready";
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(ready);
  const Answer summary = get(where, "/api/summary");
  EXPECT_EQ(summary.status, 200);
  EXPECT_EQ(summary.body, runCli({"summary", kDump, "--json", "--no-progress"}));

  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(err_pipe[0]);
}

TEST(ServeCommand, RejectsABadHttpAddress) {
  const std::string command =
      std::string("'") + GOHEAP_BINARY + "' serve x.dump --http localhost 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find("HOST:PORT"), std::string::npos) << out;
}

}  // namespace
}  // namespace goheap

// ---- diff: without `--base OLD` there is nothing to compare with -------------

namespace goheap {
namespace {

TEST_F(ServeTest, DiffWithoutABaseIsAClearJsonError) {
  const Answer a = api("/api/diff");
  EXPECT_EQ(a.status, 404);
  EXPECT_EQ(a.content_type, "application/json");
  EXPECT_NE(JsonValue::parse(a.body)["error"].str().find("--base"), std::string::npos) << a.body;
  EXPECT_FALSE(JsonValue::parse(api("/api/status").body)["has_base"].boolean());
}

}  // namespace
}  // namespace goheap
