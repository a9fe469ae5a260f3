// goheap serve's /api/sql: the same answers as `goheap sql --json`, a 400
// with SQLite's message for bad SQL and for anything that would write or
// attach a file, a statement stopped at the time limit while the server
// goes on answering, the row limit, and the base dump as the schema old.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "serve/server.h"
#include "sql/database.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

using testing::JsonValue;

const std::string kDir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27";
const std::string kDump = kDir + "/leaks.dump";
const std::string kOld = kDir + "/leaks.old.dump";
const std::string kExe = kDir + "/leaks";

std::string percentEncoded(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string cliJson(const std::string& sql) {
  const std::string command = std::string("'") + GOHEAP_BINARY + "' sql '" + kDump + "' '" + kExe +
                              "' --base '" + kOld + "' --no-cache --json -e \"" + sql +
                              "\" 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buf[65536];
  size_t n;
  while (pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  EXPECT_EQ(pipe ? ::pclose(pipe) : -1, 0) << command;
  return out;
}

class ServeSql : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kDump) || !std::filesystem::exists(kOld)) return;
    serve::ServeOptions options;
    options.sql_seconds = 1;
    options.sql_max_rows = 50;
    options.sql_memory_bytes = 8 << 20;
    options.open.use_cache = false;
    auto server = serve::Server::start({"127.0.0.1", 0}, options);
    ASSERT_TRUE(server) << server.error().message();
    server_ = server->release();
    server_->setBase(kOld);
    server_->loadInBackground(kDump, kExe);
    ASSERT_EQ(testing::waitUntilLoaded(server_->where().port), "ready");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    sql::limitSqlMemory(0);  // the limit is the process's: other tests run SQL too
  }
  void SetUp() override {
    if (!std::filesystem::exists(kDump) || !std::filesystem::exists(kOld)) {
      GTEST_SKIP() << "no " << kDump << " (make_test_dumps makes it)";
    }
    // The dump is there: a server that did not start is goheap's failure.
    ASSERT_NE(server_, nullptr) << "goheap's server did not start (SetUpTestSuite says why)";
  }
  static testing::HttpAnswer sql(const std::string& q, const std::string& extra = "") {
    return testing::httpGet("127.0.0.1", server_->where().port,
                            "/api/sql?q=" + percentEncoded(q) + extra);
  }
  static serve::Server* server_;
};
serve::Server* ServeSql::server_ = nullptr;

TEST_F(ServeSql, AnswersAsTheCommandLineDoes) {
  const std::string q =
      "SELECT type, count(*), sum(size) FROM objects WHERE reachable GROUP BY type ORDER BY 3 DESC "
      "LIMIT 10";
  const testing::HttpAnswer a = sql(q);
  ASSERT_EQ(a.status, 200) << a.body;
  const JsonValue web = JsonValue::parse(a.body);
  const JsonValue cli = JsonValue::parse(cliJson(q));
  ASSERT_EQ(web["results"].size(), 1u);
  const JsonValue& w = web["results"][0];
  const JsonValue& c = cli["results"][0];
  ASSERT_EQ(w["rows"].size(), c["rows"].size());
  ASSERT_EQ(w["rows"].size(), 10u);
  for (size_t i = 0; i < w["rows"].size(); i++) {
    EXPECT_EQ(w["rows"][i][0].str(), c["rows"][i][0].str());
    EXPECT_EQ(w["rows"][i][1].u64(), c["rows"][i][1].u64());
    EXPECT_EQ(w["rows"][i][2].u64(), c["rows"][i][2].u64());
  }
  // The base dump is the schema old.
  const testing::HttpAnswer old =
      sql("SELECT count(*) FROM old.objects WHERE type = 'main.Session'");
  ASSERT_EQ(old.status, 200) << old.body;
}

TEST_F(ServeSql, RefusesMistakesWritesAndFiles) {
  const testing::HttpAnswer bad = sql("SELEC * FROM objects");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(JsonValue::parse(bad.body)["error"].str().find("syntax error"), std::string::npos);
  for (const char* q :
       {"INSERT INTO objects(id) VALUES (1)", "ATTACH '/tmp/goheap-serve-sql.db' AS x",
        "VACUUM INTO '/tmp/goheap-serve-sql.db'", "PRAGMA temp_store = FILE", "CREATE TABLE t(x)",
        "SELECT load_extension('/tmp/x.so')"}) {
    const testing::HttpAnswer a = sql(q);
    EXPECT_EQ(a.status, 400) << q << ": " << a.body;
    EXPECT_TRUE(JsonValue::parse(a.body).has("error"));
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/goheap-serve-sql.db"));
  EXPECT_EQ(testing::httpGet("127.0.0.1", server_->where().port, "/api/sql").status, 400);
  EXPECT_EQ(sql("SELECT 1", "&limit=none").status, 400);
  EXPECT_EQ(sql("SELECT 1", "&rows=3").status, 400);
}

TEST_F(ServeSql, StopsAnEndlessQueryAndGoesOnAnswering) {
  const auto started = std::chrono::steady_clock::now();
  std::thread endless([] {
    const testing::HttpAnswer a = sql(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n");
    EXPECT_EQ(a.status, 400);
    EXPECT_NE(a.body.find("time limit"), std::string::npos) << a.body;
  });
  // Answered meanwhile.
  EXPECT_EQ(sql("SELECT count(*) FROM goroutines").status, 200);
  endless.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 60);
  EXPECT_EQ(testing::httpGet("127.0.0.1", server_->where().port, "/api/status").status, 200);
}

// A sort of every object needs more than the 8 MiB SQL may use here: an
// error, not a server that grows until the machine runs out.
TEST_F(ServeSql, StopsAQueryThatNeedsTooMuchMemory) {
  const testing::HttpAnswer a =
      sql("SELECT o.*, p.* FROM objects o JOIN objects p ON p.id = o.id ORDER BY random()");
  EXPECT_EQ(a.status, 400) << a.body.substr(0, 300);
  EXPECT_NE(a.body.find("more memory"), std::string::npos) << a.body.substr(0, 300);
  EXPECT_EQ(sql("SELECT count(*) FROM objects").status, 200);
}

TEST_F(ServeSql, CutsAtTheRowLimit) {
  const JsonValue all = JsonValue::parse(sql("SELECT id FROM objects").body);
  EXPECT_EQ(all["results"][0]["rows"].size(), 50u);
  EXPECT_TRUE(all["results"][0]["truncated"].boolean());
  const JsonValue few = JsonValue::parse(sql("SELECT id FROM objects", "&limit=3").body);
  EXPECT_EQ(few["results"][0]["rows"].size(), 3u);
  EXPECT_EQ(few["max_rows"].u64(), 3u);
}

TEST_F(ServeSql, ServesTheCookbookForTheQueryPage) {
  const testing::HttpAnswer a = testing::httpGet("127.0.0.1", server_->where().port, "/sql.md");
  ASSERT_EQ(a.status, 200);
  EXPECT_NE(a.body.find("## Cookbook"), std::string::npos);
}

}  // namespace
}  // namespace goheap
