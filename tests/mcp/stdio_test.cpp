// `goheap mcp`'s transport, driven through pipes as a client drives it: the
// roots handshake (a file outside the client's roots is refused, one inside
// is read), answers that equal the question's own JSON, mistakes as tool
// results, cancellation, and the heap pool that keeps heaps open.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "mcp/heap_pool.h"
#include "mcp/stdio.h"
#include "questions/catalog.h"
#include "support/json_value.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

const std::string kExamples = std::string(GOHEAP_SOURCE_DIR) + "/examples";
const std::string kDump = kExamples + "/leaky.dump";
const std::string kExe = kExamples + "/leaky-linux-amd64";

// A client at the other end of two pipes from serveStdio.
class PipeClient {
 public:
  explicit PipeClient(mcp::StdioOptions options) {
    EXPECT_EQ(::pipe(to_server_), 0);
    EXPECT_EQ(::pipe(from_server_), 0);
    server_ = std::thread([this, options = std::move(options)] {
      mcp::serveStdio(to_server_[0], from_server_[1], options, nullSink());
      ::close(from_server_[1]);
    });
  }
  ~PipeClient() {
    ::close(to_server_[1]);
    server_.join();
    ::close(to_server_[0]);
    ::close(from_server_[0]);
  }

  void send(const std::string& line) {
    const std::string out = line + "\n";
    EXPECT_EQ(::write(to_server_[1], out.data(), out.size()), static_cast<ssize_t>(out.size()));
  }
  // The next message from the server, skipping progress notifications.
  testing::JsonValue next() {
    for (;;) {
      size_t end;
      while ((end = buffered_.find('\n')) == std::string::npos) {
        char chunk[65536];
        const ssize_t n = ::read(from_server_[0], chunk, sizeof chunk);
        if (n <= 0) return {};
        buffered_.append(chunk, static_cast<size_t>(n));
      }
      std::string line = buffered_.substr(0, end);
      buffered_.erase(0, end + 1);
      testing::JsonValue v = testing::JsonValue::parse(line);
      if (v.has("method") && v["method"].str() == "notifications/progress") {
        progress_++;
        continue;
      }
      return v;
    }
  }
  void initialize(bool roots) {
    send(std::string(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{)") +
         R"("protocolVersion":"2025-06-18","capabilities":)" +
         (roots ? R"({"roots":{"listChanged":true}})" : "{}") +
         R"(,"clientInfo":{"name":"test","version":"1"}}})");
    const testing::JsonValue answer = next();
    EXPECT_EQ(answer["result"]["protocolVersion"].str(), "2025-06-18");
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  testing::JsonValue call(int id, const std::string& tool, const std::string& arguments) {
    send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" + arguments +
         R"(,"_meta":{"progressToken":7}}})");
    return next();
  }
  int progress() const { return progress_; }

 private:
  int to_server_[2] = {-1, -1};
  int from_server_[2] = {-1, -1};
  std::thread server_;
  std::string buffered_;
  int progress_ = 0;
};

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

TEST(McpStdio, AnswersAsTheQuestionDoesAndRefusesMistakes) {
  mcp::StdioOptions options;
  options.working_dir = kExamples;
  PipeClient client(options);
  client.initialize(false);
  const std::string heap = R"({"source":"leaky.dump","executable":"leaky-linux-amd64")";
  const testing::JsonValue top = client.call(1, "top", heap + R"(,"by":"site","limit":4})");
  ASSERT_TRUE(top.has("result"));
  EXPECT_FALSE(top["result"]["isError"].boolean());
  EXPECT_GT(client.progress(), 0);  // the first open told its phases

  // The oracle: the question asked directly of the same heap.
  auto session = testing::openSession(kDump, kExe);
  ASSERT_TRUE(session) << session.error().message();
  const questions::Question& q = *questions::findQuestion("top");
  query::ParamValues values(q.params,
                            [](const query::ParamSpec& p) { return std::string(p.name); });
  for (const query::ParamSpec& p : q.params) {
    if (p.name == "limit") values.set(p, "4");
    if (p.name == "by") values.set(p, "site");
  }
  auto asked = q.read(values);
  ASSERT_TRUE(asked) << asked.error().message();
  auto answer = (*asked)->answer({**session});
  ASSERT_TRUE(answer);
  EXPECT_EQ(top["result"]["structuredContent"]["rows"].size(),
            testing::JsonValue::parse((*answer)->json())["rows"].size());
  EXPECT_EQ(top["result"]["content"][0]["text"].str(), (*answer)->text({}));

  // Mistakes are results the model reads, and the server goes on.
  const testing::JsonValue missing = client.call(2, "summary", R"({"source":"nope.dump"})");
  EXPECT_TRUE(missing["result"]["isError"].boolean());
  const testing::JsonValue outside = client.call(3, "summary", R"({"source":"/etc/hostname"})");
  EXPECT_TRUE(outside["result"]["isError"].boolean());
  EXPECT_NE(outside["result"]["content"][0]["text"].str().find("--allow-dir"), std::string::npos);
  const testing::JsonValue bad_sql = client.call(4, "sql", heap + R"(,"query":"SELEC 1"})");
  EXPECT_TRUE(bad_sql["result"]["isError"].boolean());
  // An unknown tool and a malformed message are JSON-RPC errors.
  const testing::JsonValue unknown = client.call(5, "nosuch", "{}");
  EXPECT_EQ(unknown["error"]["code"].number(), -32602);
  client.send("{not json");
  EXPECT_EQ(client.next()["error"]["code"].number(), -32700);
  const testing::JsonValue again = client.call(6, "summary", heap + "}");
  EXPECT_FALSE(again["result"]["isError"].boolean());
  EXPECT_EQ(again["id"].number(), 6);
}

// A client that offers roots is asked for them; its roots, not the working
// directory, say what may be read.
TEST(McpStdio, ReadsOnlyUnderTheClientsRoots) {
  mcp::StdioOptions options;
  options.working_dir = "/";
  PipeClient client(options);
  client.initialize(true);
  const testing::JsonValue ask = client.next();
  ASSERT_EQ(ask["method"].str(), "roots/list");
  client.send(R"({"jsonrpc":"2.0","id":)" + quoted(ask["id"].str()) +
              R"(,"result":{"roots":[{"uri":"file://)" + kExamples + R"(","name":"ex"}]}})");
  const testing::JsonValue inside =
      client.call(1, "summary", R"({"source":)" + quoted(kDump) + "}");
  EXPECT_FALSE(inside["result"]["isError"].boolean())
      << inside["result"]["content"][0]["text"].str();
  const testing::JsonValue outside = client.call(2, "summary", R"({"source":"/etc/hostname"})");
  EXPECT_TRUE(outside["result"]["isError"].boolean());
}

// A cancelled call gets no answer; the next one does.
TEST(McpStdio, CancelledSqlStopsWithoutAnAnswer) {
  mcp::StdioOptions options;
  options.working_dir = kExamples;
  options.limits.sql_seconds = 60;
  PipeClient client(options);
  client.initialize(false);
  const std::string heap = R"({"source":"leaky.dump")";
  ASSERT_FALSE(client.call(1, "summary", heap + "}")["result"]["isError"].boolean());
  const auto started = std::chrono::steady_clock::now();
  client.send(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sql","arguments":)" +
      heap +
      R"(,"query":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"}}})");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  client.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})");
  const testing::JsonValue next = client.call(3, "summary", heap + "}");
  EXPECT_EQ(next["id"].number(), 3);  // not 2: the cancelled call said nothing
  client.send(R"({"jsonrpc":"2.0","id":4,"method":"ping"})");
  EXPECT_EQ(client.next()["id"].number(), 4);
  // Well before the 60 s limit: the statement stopped.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 30);
}

TEST(McpHeapPool, KeepsHeapsOpenWithinItsBound) {
  mcp::HeapPoolOptions options;
  mcp::HeapPool pool(options);
  NullSink sink;
  const query::Source leaky = query::Source::fromArgument(kDump);
  auto first = pool.open(leaky, sink);
  ASSERT_TRUE(first) << first.error().message();
  auto second = pool.open(leaky, sink);
  ASSERT_TRUE(second);
  EXPECT_EQ(first->get(), second->get());  // opened once
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_GT(pool.bytes(), 0u);
  EXPECT_FALSE(pool.open(query::Source::fromArgument(kExamples + "/nope.dump"), sink));
  EXPECT_EQ(pool.size(), 1u);  // a failure is not kept

  mcp::HeapPoolOptions tight;
  tight.max_bytes = 1;  // room for the newest heap only
  mcp::HeapPool small(tight);
  ASSERT_TRUE(small.open(leaky, sink));
  ASSERT_TRUE(small.open(query::Source::fromArgument(kDump, kExe), sink));
  EXPECT_EQ(small.size(), 1u);
}

}  // namespace
}  // namespace goheap
