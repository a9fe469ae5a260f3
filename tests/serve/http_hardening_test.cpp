// goheap serve's HTTP layer under the requests users measured the old
// server failing: foreign Host headers (DNS rebinding), slow clients, bursts
// of connections, kept-alive latency, Range, oversized and non-GET requests.
// Each test is one behaviour; the server runs in-process on a free loopback
// port, and every loop is bounded in count and time.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/server.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

using testing::HttpAnswer;
using testing::HttpConnection;
using testing::JsonValue;
using Clock = std::chrono::steady_clock;

const std::string kDump = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/retention.dump";

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The answer is a JSON error document.
void expectJsonError(const HttpAnswer& a, int status) {
  EXPECT_EQ(a.status, status) << a.body;
  EXPECT_EQ(a.contentType(), "application/json") << a.body;
  if (a.contentType() == "application/json") {
    EXPECT_FALSE(JsonValue::parse(a.body)["error"].str().empty()) << a.body;
  }
}

// A raw TCP connection to the server that sends what it is told, when it is
// told: the slow clients.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool send(std::string_view bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  // The server closed the connection (recv sees its end, or a reset).
  bool closedByPeer() {
    char c;
    const ssize_t n = ::recv(fd_, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

 private:
  int fd_ = -1;
};

// One server for the suite, with the Go 1.24 retention dump (no executable:
// these tests are about HTTP, not names).
class HttpHardeningTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kDump)) return;
    auto server = serve::Server::start({"127.0.0.1", 0});
    ASSERT_TRUE(server) << server.error().message();
    server_ = server->release();
    server_->loadInBackground(kDump, "");
    ASSERT_EQ(testing::waitUntilLoaded(port()), "ready");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!std::filesystem::exists(kDump)) {
      GTEST_SKIP() << "no " << kDump << " (make_test_dumps makes it)";
    }
    // The dump is there: a server that did not start is goheap's failure.
    ASSERT_NE(server_, nullptr) << "goheap's server did not start (SetUpTestSuite says why)";
  }

  static uint16_t port() { return server_->where().port; }
  static HttpAnswer get(const std::string& target, const testing::HttpHeaders& headers = {}) {
    return testing::httpGet("127.0.0.1", port(), target, headers);
  }

  static serve::Server* server_;
};
serve::Server* HttpHardeningTest::server_ = nullptr;

// ---- Host header: DNS rebinding ----

TEST_F(HttpHardeningTest, AForeignHostIsRefusedWithJsonUnderApi) {
  expectJsonError(get("/api/status", {{"Host", "evil.example:" + std::to_string(port())}}), 403);
  expectJsonError(get("/api/summary", {{"Host", "127.0.0.1.evil.example"}}), 403);
  EXPECT_EQ(get("/", {{"Host", "evil.example"}}).status, 403);
}

TEST_F(HttpHardeningTest, LoopbackHostNamesAreAccepted) {
  const std::string p = std::to_string(port());
  for (const std::string& host :
       std::vector<std::string>{"localhost:" + p, "127.0.0.1:" + p, "[::1]:" + p, "localhost"}) {
    EXPECT_EQ(get("/api/status", {{"Host", host}}).status, 200) << host;
  }
}

TEST_F(HttpHardeningTest, AnHttp11RequestWithoutHostIsABadRequest) {
  HttpConnection c("127.0.0.1", port());
  ASSERT_TRUE(c.send("GET /api/status HTTP/1.1\r\n\r\n"));
  expectJsonError(c.readAnswer(), 400);
}

TEST(HttpAllowHost, AddsANameToTheAcceptedHosts) {
  serve::ServeOptions options;
  options.allowed_hosts = {"heapbox.test"};
  auto server = serve::Server::start({"127.0.0.1", 0}, options);
  ASSERT_TRUE(server) << server.error().message();
  const uint16_t port = (*server)->where().port;
  const std::string host = "heapbox.test:" + std::to_string(port);
  EXPECT_EQ(testing::httpGet("127.0.0.1", port, "/api/status", {{"Host", host}}).status, 200);
  EXPECT_EQ(testing::httpGet("127.0.0.1", port, "/api/status", {{"Host", "other.test"}}).status,
            403);
}

// ---- --allow-remote: the access token ----

class HttpTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Loopback still (the tests reach nothing else), but with the token
    // that --allow-remote turns on.
    serve::ServeOptions options;
    options.allow_remote = true;
    auto server = serve::Server::start({"127.0.0.1", 0}, options);
    ASSERT_TRUE(server) << server.error().message();
    server_.reset(server->release());
    token_ = server_->accessToken();
    ASSERT_EQ(token_.size(), 32u);
  }
  HttpAnswer get(const std::string& target, const testing::HttpHeaders& headers = {}) {
    return testing::httpGet("127.0.0.1", server_->where().port, target, headers);
  }
  std::unique_ptr<serve::Server> server_;
  std::string token_;
};

TEST_F(HttpTokenTest, ARequestWithoutTheTokenIsRefused) {
  expectJsonError(get("/api/status"), 403);
  EXPECT_EQ(get("/").status, 403);
  expectJsonError(get("/api/status?token=" + std::string(32, '0')), 403);
}

TEST_F(HttpTokenTest, TheTokenInTheQueryLetsInAndSetsTheCookie) {
  const HttpAnswer page = get("/?token=" + token_);
  EXPECT_EQ(page.status, 200);
  const std::string cookie = page.header("Set-Cookie");
  EXPECT_NE(cookie.find("=" + token_), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  EXPECT_EQ(server_->url(), serve::urlOf(server_->where()) + "?token=" + token_);
}

TEST_F(HttpTokenTest, TheCookieLetsIn) {
  const std::string cookie = get("/?token=" + token_).header("Set-Cookie");
  const std::string pair = cookie.substr(0, cookie.find(';'));  // name=value
  const HttpAnswer a = get("/api/status", {{"Cookie", "a=b; " + pair}});
  EXPECT_EQ(a.status, 200) << a.body;
}

TEST_F(HttpTokenTest, TheTokenIsNotAnUnknownParameterOfTheEndpoints) {
  // No dump loaded: past the parameters an endpoint answers 503, not 400.
  expectJsonError(get("/api/top?n=3&token=" + token_), 503);
}

// ---- Concurrency: slow clients, bursts, kept-alive latency ----

TEST_F(HttpHardeningTest, StatusAnswersWhileSlowClientsHoldConnections) {
  // 20 clients each send a request one byte a second (the old server gave
  // each a thread of its 8 for as long as the bytes kept coming).
  std::vector<std::unique_ptr<RawSocket>> slow;
  for (int i = 0; i < 20; i++) {
    slow.push_back(std::make_unique<RawSocket>(port()));
    ASSERT_TRUE(slow.back()->connected());
    slow.back()->send("GET /api/status HTTP/1.1\r\n");
  }
  const auto start = Clock::now();
  int asked = 0;
  while (Clock::now() - start < std::chrono::seconds(8)) {
    for (auto& s : slow) s->send("X");
    const auto before = Clock::now();
    HttpConnection c("127.0.0.1", port(), 2.0);
    const HttpAnswer a = c.get("/api/status");
    EXPECT_EQ(a.status, 200) << "after " << millisecondsSince(start) << " ms";
    EXPECT_LT(millisecondsSince(before), 2000);
    asked++;
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  }
  EXPECT_GE(asked, 5);
}

TEST_F(HttpHardeningTest, AClientThatDribblesItsRequestIsDropped) {
  // A byte every half second never finishes a request: it is closed within
  // its 5 s deadline (plus the time to notice), not served for ever.
  RawSocket slow(port());
  ASSERT_TRUE(slow.connected());
  const auto start = Clock::now();
  bool closed = false;
  while (!closed && Clock::now() - start < std::chrono::seconds(12)) {
    slow.send("GET /api/status HTTP/1.1\r\nX: ");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    closed = slow.closedByPeer();
  }
  EXPECT_TRUE(closed);
  EXPECT_GE(millisecondsSince(start), 4500);
  EXPECT_LT(millisecondsSince(start), 8000);
}

TEST_F(HttpHardeningTest, ABurstOfNewConnectionsIsAcceptedAtOnce) {
  // With a backlog of 5 and busy threads, a burst waited for SYN
  // retransmits (1 s each). Every connect must finish well before that.
  std::vector<std::unique_ptr<HttpConnection>> burst;
  double slowest = 0;
  for (int i = 0; i < 200; i++) {
    const auto before = Clock::now();
    burst.push_back(std::make_unique<HttpConnection>("127.0.0.1", port(), 10.0));
    slowest = std::max(slowest, millisecondsSince(before));
    ASSERT_TRUE(burst.back()->connected()) << i;
  }
  EXPECT_LT(slowest, 500);
  const auto before = Clock::now();
  EXPECT_EQ(get("/api/status").status, 200);
  EXPECT_LT(millisecondsSince(before), 2000);
  // And all of them are served, not only the first few.
  int answered = 0;
  for (auto& c : burst) answered += c->get("/api/status").status == 200;
  EXPECT_EQ(answered, 200);
}

TEST(HttpConnectionCap, ConnectionsBeyondTheCapAreClosed) {
  serve::ServeOptions options;
  options.limits.max_connections = 4;
  auto server = serve::Server::start({"127.0.0.1", 0}, options);
  ASSERT_TRUE(server) << server.error().message();
  const uint16_t port = (*server)->where().port;
  std::vector<std::unique_ptr<HttpConnection>> held;
  for (int i = 0; i < 4; i++) {
    held.push_back(std::make_unique<HttpConnection>("127.0.0.1", port, 5.0));
    ASSERT_EQ(held.back()->get("/api/status").status, 200) << i;
  }
  EXPECT_EQ(testing::httpGet("127.0.0.1", port, "/api/status").status, 0);  // closed at once
  held.pop_back();
  bool served = false;  // once the server has seen the close
  for (int i = 0; i < 100 && !served; i++) {
    served = testing::httpGet("127.0.0.1", port, "/api/status").status == 200;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(served);
}

TEST_F(HttpHardeningTest, KeptAliveRequestsAreNotDelayedByNagle) {
  // Nagle's algorithm on the server's socket, with the client's delayed ACK,
  // cost ~40 ms per request on one connection; 20 ms is generous without.
  HttpConnection c("127.0.0.1", port());
  std::vector<double> times;
  for (int i = 0; i < 50; i++) {
    const auto before = Clock::now();
    const HttpAnswer a = c.get("/api/summary?n=2");
    times.push_back(millisecondsSince(before));
    ASSERT_EQ(a.status, 200);
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("keep-alive: median %.2f ms over 50 requests on one connection\n", median);
  EXPECT_LT(median, 20.0);
}

// ---- What is answered, and how ----

TEST_F(HttpHardeningTest, RangeIsIgnoredOnApiAnswers) {
  const HttpAnswer whole = get("/api/summary");
  const HttpAnswer ranged = get("/api/summary", {{"Range", "bytes=0-10"}});
  EXPECT_EQ(ranged.status, 200);
  EXPECT_EQ(ranged.header("Content-Range"), "");
  EXPECT_EQ(ranged.body, whole.body);
  JsonValue::parse(ranged.body);
}

TEST_F(HttpHardeningTest, ATooLongTargetIs414WithJson) {
  expectJsonError(get("/api/top?filter=" + std::string(100 * 1024, 'a')), 414);
  expectJsonError(get("/api/top?filter=" + std::string(20 * 1024, 'a')), 414);
  EXPECT_EQ(get("/api/status").status, 200);
}

TEST_F(HttpHardeningTest, ATooLongHeaderIs431WithJson) {
  expectJsonError(get("/api/status", {{"X-Padding", std::string(100 * 1024, 'p')}}), 431);
}

TEST_F(HttpHardeningTest, OtherMethodsAre405WithAllow) {
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    HttpConnection c("127.0.0.1", port());
    const HttpAnswer a = c.request(method, "/api/top", {}, "x=1");
    expectJsonError(a, 405);
    EXPECT_EQ(a.header("Allow"), "GET, HEAD") << method;
  }
}

TEST_F(HttpHardeningTest, AnUnknownApiPathIs404WithJson) {
  expectJsonError(get("/api/no-such-thing"), 404);
  expectJsonError(get("/api/"), 404);
}

TEST_F(HttpHardeningTest, AMalformedRequestIs400WithJson) {
  HttpConnection c("127.0.0.1", port());
  ASSERT_TRUE(c.send("GET /api/status HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n"));
  expectJsonError(c.readAnswer(), 400);
  expectJsonError(get("/api/top?filter=%zz"), 400);
}

TEST_F(HttpHardeningTest, HeadAnswersLikeGetWithoutTheBody) {
  const HttpAnswer got = get("/api/summary");
  HttpConnection c("127.0.0.1", port());
  const HttpAnswer head = c.request("HEAD", "/api/summary");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(got.body.size()));
  EXPECT_TRUE(head.body.empty());
  // The connection is still in step: the next answer is whole.
  EXPECT_EQ(c.get("/api/summary").body, got.body);
}

TEST_F(HttpHardeningTest, PercentEscapesAndPlusesAreDecoded) {
  // "main treeNode" (a space, as a form writes it) matches no group; its
  // escaped and plus forms give the same answer as each other.
  const HttpAnswer escaped = get("/api/top?filter=tree%4Eode&n=0");
  const HttpAnswer plain = get("/api/top?filter=treeNode&n=0");
  EXPECT_EQ(escaped.status, 200);
  EXPECT_EQ(escaped.body, plain.body);
  EXPECT_EQ(get("/api/top?filter=a+b").body, get("/api/top?filter=a%20b").body);
}

}  // namespace
}  // namespace goheap
