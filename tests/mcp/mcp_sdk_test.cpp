// goheap's MCP server driven by the official TypeScript SDK's client, as an
// AI assistant's host drives it (tests/mcp/mcp_check.js): over stdio
// (`goheap mcp`) and over `goheap serve`'s /mcp. The script's oracle is the
// command line: schemas against `goheap NAME --help`, answers against
// `goheap NAME --json`.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/export_support.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

const std::string kSource = GOHEAP_SOURCE_DIR;
const std::string kDumps = GOHEAP_TESTDUMPS_DIR;

// Why the SDK cannot be run here, or empty.
std::string missingTool() {
  for (const char* package : {"@modelcontextprotocol/sdk", "ajv"}) {
    if (std::string why = testing::missingNodePackage(package); !why.empty()) return why;
  }
  if (!std::filesystem::exists(kDumps + "/go1.24/leaks.dump")) {
    return "no " + kDumps + "/go1.24/leaks.dump (make_test_dumps makes it)";
  }
  return {};
}

std::string checkCommand(const std::string& mode) {
  return "node " + kSource + "/tests/mcp/mcp_check.js " + std::string(GOHEAP_NPM_DIR) + " " +
         std::string(GOHEAP_BINARY) + " " + kSource + " " + kDumps + " " + mode;
}

TEST(McpSdk, StdioServerPassesTheSdkClientsChecks) {
  if (const std::string why = missingTool(); !why.empty()) GTEST_SKIP() << why;
  const std::string cmd = checkCommand("stdio");
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
}

TEST(McpSdk, ServesMcpOverHttpToTheSdkClient) {
  if (const std::string why = missingTool(); !why.empty()) GTEST_SKIP() << why;
  testing::ServeProcess serve({kSource + "/examples/leaky.dump",
                               kSource + "/examples/leaky-linux-amd64", "--http", "127.0.0.1:0",
                               "--no-cache"});
  ASSERT_TRUE(serve.serving()) << serve.stderrText();
  ASSERT_EQ(serve.waitLoaded(60), "ready");
  const std::string cmd =
      checkCommand("http http://127.0.0.1:" + std::to_string(serve.port()) + "/mcp");
  EXPECT_EQ(testing::runCommand(cmd), 0) << cmd;
}

}  // namespace
}  // namespace goheap
