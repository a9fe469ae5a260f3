// goheap serve under load: 8 clients, 200 requests each, mixing the cheap
// answers (status, the page) with the analyses the UI asks for, on
// kept-alive connections that are closed and reopened now and then. Every
// answer must be 200, and the 99th percentile latency stays far under the
// seconds the old server's stalls took. Prints p50 and p99 for the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
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

const std::string kDir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
const std::string kDump = kDir + "/retention.dump";
const std::string kExe = kDir + "/retention";

TEST(ServeLoad, EightClientsOfTwoHundredRequestsGetEveryAnswerQuickly) {
  if (!std::filesystem::exists(kDump) || !std::filesystem::exists(kExe)) {
    GTEST_SKIP() << "no " << kDump << " (make_test_dumps makes it)";
  }
  auto started = serve::Server::start({"127.0.0.1", 0});
  ASSERT_TRUE(started) << started.error().message();
  std::unique_ptr<serve::Server> server(started->release());
  server->loadInBackground(kDump, kExe);
  const uint16_t port = server->where().port;
  ASSERT_EQ(testing::waitUntilLoaded(port), "ready");
  const std::string addr = JsonValue::parse(testing::httpGet("127.0.0.1", port, "/api/summary")
                                                .body)["top_retainers"][0]["object"]["address"]
                               .str();
  const std::vector<std::string> paths = {
      "/api/status",
      "/api/summary",
      "/api/top?by=site&n=10",
      "/api/top?by=type&sort=count&filter=main",
      "/api/goroutines",
      "/api/obj?addr=" + addr,
      "/api/paths?addr=" + addr,
      "/",
      "/app.js",
      "/api/dom?depth=2",
  };

  constexpr int kClients = 8, kRequests = 200;
  const auto start = Clock::now();
  const auto give_up = start + std::chrono::seconds(120);
  std::mutex mu;
  std::vector<double> latencies;
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; t++) {
    clients.emplace_back([&, t] {
      std::vector<double> mine;
      std::vector<std::string> bad;
      std::unique_ptr<HttpConnection> c;
      for (int i = 0; i < kRequests && Clock::now() < give_up; i++) {
        // A new connection every 25 requests: accepting is part of the load.
        if (i % 25 == 0) c = std::make_unique<HttpConnection>("127.0.0.1", port, 30.0);
        const std::string& path = paths[static_cast<size_t>(t * 7 + i) % paths.size()];
        const auto before = Clock::now();
        const HttpAnswer a = c->get(path);
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - before).count());
        if (a.status != 200 || a.body.empty()) {
          bad.push_back(path + ": " + std::to_string(a.status));
          c = std::make_unique<HttpConnection>("127.0.0.1", port, 30.0);
        }
      }
      std::lock_guard lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      failures.insert(failures.end(), bad.begin(), bad.end());
    });
  }
  for (std::thread& c : clients) c.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  ASSERT_EQ(latencies.size(), static_cast<size_t>(kClients * kRequests))
      << "did not finish within 120 s";
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
  std::sort(latencies.begin(), latencies.end());
  const double p50 = latencies[latencies.size() / 2];
  const double p99 = latencies[latencies.size() * 99 / 100];
  std::printf("load test: p50 %.2f ms, p99 %.2f ms over %zu requests (%.1f s)\n", p50, p99,
              latencies.size(), seconds);
  EXPECT_LT(p99, 2000.0);
}

}  // namespace
}  // namespace goheap
