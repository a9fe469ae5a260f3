// The web UI in a real browser: Debian's chromium, driven by playwright-core
// (tests/serve/ui_check.js), against `goheap serve` on examples/leaky.dump
// with its executable. The script walks the pages a leak hunter uses
// (overview, histogram sorted by a click, the treemap two levels down, an
// object, its path to a root, the goroutines, the process's memory), checks
// that what the pages show equals the API's answers, and leaves screenshots
// in the build directory (ui-screenshots/TEST/, emptied at the start of each
// run, so that a file an earlier run left cannot stand in for one this run
// failed to take) to look at.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "serve/server.h"
#include "support/export_support.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

const std::string kDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
const std::string kExe = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky-linux-amd64";
const std::string kChromium = "/usr/bin/chromium";

// Why the browser test cannot run here, or empty.
std::string missingTool() {
  if (std::string why = testing::missingNodePackage("playwright-core"); !why.empty()) return why;
  if (!std::filesystem::exists(kChromium)) {
    return "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  return {};
}

// Starts `goheap serve` on a free loopback port for `dump` (and `base`, the
// --base dump, when given), waits until it has loaded, and runs ui_check.js
// against it with `mode` ("" for the one-dump pages, "diff" for the Diff
// page). Screenshots go to build/ui-screenshots/TEST/, made empty first,
// which it returns.
std::string serveAndCheck(const std::string& dump, const std::string& exe, const std::string& base,
                          const std::string& mode) {
  auto server = serve::Server::start({"127.0.0.1", 0});
  EXPECT_TRUE(server) << server.error().message();
  if (!server) return {};
  std::unique_ptr<serve::Server> owned(server->release());
  if (!base.empty()) owned->setBase(base);
  owned->loadInBackground(dump, exe);
  const std::string state = testing::waitUntilLoaded(owned->where().port, 60);
  EXPECT_EQ(state, "ready");
  if (state != "ready") return {};
  const std::string shots = std::string(GOHEAP_BUILD_DIR) + "/ui-screenshots/" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::error_code error;
  std::filesystem::remove_all(shots, error);
  EXPECT_FALSE(error) << "cannot empty " << shots << ": " << error.message();
  std::filesystem::create_directories(shots, error);
  EXPECT_FALSE(error) << "cannot make " << shots << ": " << error.message();
  if (error) return {};
  const std::string url = "http://127.0.0.1:" + std::to_string(owned->where().port);
  std::string cmd = "node " + std::string(GOHEAP_SOURCE_DIR) + "/tests/serve/ui_check.js " +
                    std::string(GOHEAP_NPM_DIR) + "/node_modules/playwright-core " + kChromium +
                    " " + url + " " + shots;
  if (!mode.empty()) cmd += " " + mode;
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
  return shots;
}

TEST(WebUi, PagesShowTheApisNumbersInChromium) {
  if (const std::string why = missingTool(); !why.empty()) GTEST_SKIP() << why;
  const std::string shots = serveAndCheck(kDump, kExe, "", "");
  ASSERT_FALSE(shots.empty());
  for (const char* png : {"overview.png", "histogram.png", "treemap.png", "object.png",
                          "goroutines.png", "suspects.png", "memory.png"}) {
    EXPECT_TRUE(std::filesystem::exists(shots + "/" + png)) << png;
  }
}

// The Diff and Query pages, against the leaks program's two dumps served
// with --base.
TEST(WebUi, DiffPageShowsTheApisRowsInChromium) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
  if (!std::filesystem::exists(dir + "/leaks.old.dump")) GTEST_SKIP() << "no leaks dumps";
  if (const std::string why = missingTool(); !why.empty()) GTEST_SKIP() << why;
  const std::string shots =
      serveAndCheck(dir + "/leaks.dump", dir + "/leaks", dir + "/leaks.old.dump", "diff");
  ASSERT_FALSE(shots.empty());
  EXPECT_TRUE(std::filesystem::exists(shots + "/diff.png"));
  EXPECT_TRUE(std::filesystem::exists(shots + "/query.png"));
}

}  // namespace
}  // namespace goheap
