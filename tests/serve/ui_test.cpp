// The web UI in a real browser: Debian's chromium, driven by playwright-core
// (tests/serve/ui_check.js), against `goheap serve` on examples/leaky.dump
// with its executable. The script walks the pages a leak hunter uses
// (overview, histogram sorted by a click, the treemap two levels down, an
// object, its path to a root, the goroutines), checks that what the pages
// show equals the API's answers, and leaves screenshots in the build
// directory (ui-screenshots/) to look at.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "serve/server.h"
#include "support/export_support.h"
#include "support/json_value.h"

#include <httplib.h>

namespace goheap {
namespace {

const std::string kDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
const std::string kExe = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky-linux-amd64";
const std::string kChromium = "/usr/bin/chromium";

// Why the browser test cannot run here, or empty.
std::string missingTool() {
  if (testing::runCommand("node --version >/dev/null 2>&1") != 0) {
    return "node is not installed (scripts/install-deps.sh installs nodejs)";
  }
  if (!std::filesystem::exists(std::string(GOHEAP_NPM_DIR) +
                               "/node_modules/playwright-core/package.json")) {
    return "playwright-core is not installed: run scripts/install-npm-tools.sh " +
           std::string(GOHEAP_NPM_DIR) + " (ctest's install_npm_tools does)";
  }
  if (!std::filesystem::exists(kChromium)) {
    return "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  return {};
}

TEST(WebUi, PagesShowTheApisNumbersInChromium) {
  if (const std::string why = missingTool(); !why.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << why;
    GTEST_SKIP() << why;
  }
  auto server = serve::Server::start({"127.0.0.1", 0});
  ASSERT_TRUE(server) << server.error().message();
  auto s = server->release();
  std::unique_ptr<serve::Server> owned(s);
  owned->loadInBackground(kDump, kExe);
  httplib::Client client(owned->where().host, owned->where().port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  for (;;) {
    auto res = client.Get("/api/status");
    ASSERT_TRUE(res);
    if (testing::JsonValue::parse(res->body)["state"].str() == "ready") break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << res->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string shots = std::string(GOHEAP_TESTDUMPS_DIR) + "/../ui-screenshots";
  std::filesystem::create_directories(shots);
  const std::string url = "http://127.0.0.1:" + std::to_string(owned->where().port);
  const std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) + "/tests/serve/ui_check.js " +
                          std::string(GOHEAP_NPM_DIR) + "/node_modules/playwright-core " +
                          kChromium + " " + url + " " + shots;
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
  for (const char* png : {"overview.png", "histogram.png", "treemap.png", "object.png",
                          "goroutines.png", "suspects.png"}) {
    EXPECT_TRUE(std::filesystem::exists(shots + "/" + png)) << png;
  }
}

// The Diff page, against the leaks program's two dumps served with --base.
TEST(WebUi, DiffPageShowsTheApisRowsInChromium) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
  if (!std::filesystem::exists(dir + "/leaks.old.dump")) GTEST_SKIP() << "no leaks dumps";
  if (const std::string why = missingTool(); !why.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << why;
    GTEST_SKIP() << why;
  }
  auto server = serve::Server::start({"127.0.0.1", 0});
  ASSERT_TRUE(server) << server.error().message();
  std::unique_ptr<serve::Server> owned(server->release());
  owned->setBase(dir + "/leaks.old.dump");
  owned->loadInBackground(dir + "/leaks.dump", dir + "/leaks");
  httplib::Client client(owned->where().host, owned->where().port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  for (;;) {
    auto res = client.Get("/api/status");
    ASSERT_TRUE(res);
    if (testing::JsonValue::parse(res->body)["state"].str() == "ready") break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << res->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string shots = std::string(GOHEAP_TESTDUMPS_DIR) + "/../ui-screenshots";
  std::filesystem::create_directories(shots);
  const std::string url = "http://127.0.0.1:" + std::to_string(owned->where().port);
  const std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) + "/tests/serve/ui_check.js " +
                          std::string(GOHEAP_NPM_DIR) + "/node_modules/playwright-core " +
                          kChromium + " " + url + " " + shots + " diff";
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
  EXPECT_TRUE(std::filesystem::exists(shots + "/diff.png"));
}

}  // namespace
}  // namespace goheap
