// goheap serve's /mcp: the MCP's Streamable HTTP in its simple form, over
// the heap the server has open. Answers equal /api/NAME's; a page of another
// origin, a GET, a body that is not JSON and one over 1 MiB are refused.
#include <gtest/gtest.h>

#include "serve/server.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

const std::string kDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
const std::string kExe = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky-linux-amd64";

class ServeMcp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = serve::Server::start({"127.0.0.1", 0});
    ASSERT_TRUE(started) << started.error().message();
    server_ = started.take().release();
    server_->loadInBackground(kDump, kExe);
    ASSERT_EQ(testing::waitUntilLoaded(server_->where().port, 60), "ready");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  testing::HttpAnswer post(const std::string& body, testing::HttpHeaders headers = {}) {
    testing::HttpConnection c("127.0.0.1", server_->where().port);
    bool typed = false;
    for (const auto& h : headers) typed = typed || h.first == "Content-Type";
    if (!typed) headers.emplace_back("Content-Type", "application/json");
    headers.emplace_back("Accept", "application/json, text/event-stream");
    return c.request("POST", "/mcp", headers, body);
  }

  static serve::Server* server_;
};
serve::Server* ServeMcp::server_ = nullptr;

TEST_F(ServeMcp, InitializesAndAnswersAsTheApiDoes) {
  const testing::HttpAnswer init = post(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  ASSERT_EQ(init.status, 200) << init.body;
  const std::string session = init.header("Mcp-Session-Id");
  EXPECT_FALSE(session.empty());
  EXPECT_EQ(testing::JsonValue::parse(init.body)["result"]["protocolVersion"].str(), "2025-11-25");
  EXPECT_EQ(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                 {{"Mcp-Session-Id", session}})
                .status,
            202);
  // The tools take no source: they answer about the served heap.
  const testing::JsonValue tools = testing::JsonValue::parse(
      post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", {{"Mcp-Session-Id", session}})
          .body);
  for (const testing::JsonValue& t : tools["result"]["tools"].items()) {
    EXPECT_FALSE(t["inputSchema"]["properties"].has("source")) << t["name"].str();
  }
  const testing::HttpAnswer top = post(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"top","arguments":{"by":"site","limit":5}}})",
      {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}});
  ASSERT_EQ(top.status, 200);
  const testing::HttpAnswer api =
      testing::httpGet("127.0.0.1", server_->where().port, "/api/top?by=site&limit=5");
  ASSERT_EQ(api.status, 200);
  const testing::JsonValue via_mcp = testing::JsonValue::parse(top.body)["result"];
  const testing::JsonValue via_api = testing::JsonValue::parse(api.body);
  ASSERT_EQ(via_mcp["structuredContent"]["rows"].size(), via_api["rows"].size());
  for (size_t i = 0; i < via_api["rows"].size(); i++) {
    EXPECT_EQ(via_mcp["structuredContent"]["rows"][i]["name"].str(),
              via_api["rows"][i]["name"].str());
    EXPECT_EQ(via_mcp["structuredContent"]["rows"][i]["retained"].u64(),
              via_api["rows"][i]["retained"].u64());
  }
  // No base: diff says how to give one.
  const testing::JsonValue diff = testing::JsonValue::parse(
      post(
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"diff","arguments":{}}})")
          .body);
  EXPECT_TRUE(diff["result"]["isError"].boolean());
  EXPECT_NE(diff["result"]["content"][0]["text"].str().find("--base"), std::string::npos);
  EXPECT_EQ(
      post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", {{"Mcp-Session-Id", "forged"}}).status,
      404);
}

TEST_F(ServeMcp, RefusesOtherOriginsMethodsAndBodies) {
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  testing::HttpConnection c("127.0.0.1", server_->where().port);
  const std::string own = "http://" + c.hostHeader();
  EXPECT_EQ(post(ping, {{"Origin", own}}).status, 200);
  EXPECT_EQ(post(ping, {{"Origin", "http://evil.example"}}).status, 403);
  EXPECT_EQ(post(ping, {{"Origin", "null"}}).status, 403);
  EXPECT_EQ(post(ping, {{"Content-Type", "text/plain"}}).status, 415);
  const testing::HttpAnswer get = c.get("/mcp");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.header("Allow"), "POST");
  EXPECT_EQ(post("{nope").status, 400);
  EXPECT_EQ(post(std::string(1100000, ' ')).status, 413);
  // The Host check applies as for every request.
  EXPECT_EQ(post(ping, {{"Host", "evil.example"}}).status, 403);
}

// Beyond loopback (--allow-remote) /mcp wants the access token, which an MCP
// client sends as a bearer token.
TEST(ServeMcpRemote, WantsTheTokenAsABearer) {
  serve::ServeOptions options;
  options.allow_remote = true;
  auto started = serve::Server::start({"127.0.0.1", 0}, options);
  ASSERT_TRUE(started) << started.error().message();
  std::unique_ptr<serve::Server> server(started->release());
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  const testing::HttpHeaders json = {{"Content-Type", "application/json"}};
  testing::HttpConnection c("127.0.0.1", server->where().port);
  EXPECT_EQ(c.request("POST", "/mcp", json, ping).status, 403);
  testing::HttpHeaders with_token = json;
  with_token.emplace_back("Authorization", "Bearer " + server->accessToken());
  EXPECT_EQ(c.request("POST", "/mcp", with_token, ping).status, 200);
}

}  // namespace
}  // namespace goheap
