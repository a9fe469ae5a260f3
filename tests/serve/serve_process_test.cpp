// goheap serve as a process of its own (the real binary): what it refuses to
// listen on, the access token it prints, the memory its remembered answers
// take, and what it answers when the dump changes on disk under it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "support/goheap_process.h"
#include "support/http_client.h"
#include "support/json_value.h"
#include "support/serve_process.h"

namespace goheap {
namespace {

using testing::HttpAnswer;
using testing::JsonValue;
using testing::ServeProcess;
using Clock = std::chrono::steady_clock;

const std::string kDir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
const std::string kDump = kDir + "/retention.dump";
const std::string kLeaksDump = kDir + "/leaks.dump";

#define SKIP_WITHOUT(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << (path) << " (make_test_dumps)"

TEST(ServeRemote, ListeningBeyondLoopbackWithoutAllowRemoteIsAUsageError) {
  ServeProcess p({"missing.dump", "--http", "0.0.0.0:0"}, 10);
  EXPECT_FALSE(p.serving()) << p.stderrText();
  const std::optional<int> code = p.exitCode(10);
  ASSERT_TRUE(code) << "still running: " << p.stderrText();
  EXPECT_EQ(*code, 2) << p.stderrText();
  EXPECT_NE(p.stderrText().find("--allow-remote"), std::string::npos) << p.stderrText();
  EXPECT_NE(p.stderrText().find("beyond this machine"), std::string::npos) << p.stderrText();
}

TEST(ServeRemote, AllowRemotePrintsATokenUrlAndWantsTheToken) {
  SKIP_WITHOUT(kDump);
  // Still on loopback (tests reach nothing else); --allow-remote turns the
  // token on wherever it listens.
  ServeProcess p({kDump, "--http", "127.0.0.1:0", "--allow-remote"});
  ASSERT_TRUE(p.serving()) << p.stderrText();
  EXPECT_TRUE(p.url().starts_with("http://127.0.0.1:" + std::to_string(p.port()) + "/?token="))
      << p.url();
  EXPECT_EQ(p.token().size(), 32u);
  EXPECT_EQ(testing::httpGet("127.0.0.1", p.port(), "/api/status").status, 403);
  EXPECT_EQ(p.get("/api/status").status, 200);  // get() adds the token
}

TEST(ServeAnswerCacheMemory, StaysWithinItsBoundOverAThousandQuestions) {
  SKIP_WITHOUT(kLeaksDump);
  // The old server kept every answer: 150 distinct n= took its memory from
  // 41 to 99 MB. With --answer-cache 2M, a thousand distinct questions may
  // add the bound and some slack (allocator, the answers being sent) to
  // what the server took once warm.
  constexpr uint64_t kMiB = 1 << 20;
  ServeProcess p({kLeaksDump, "--http", "127.0.0.1:0", "--answer-cache", "2M"});
  ASSERT_TRUE(p.serving()) << p.stderrText();
  ASSERT_EQ(p.waitLoaded(), "ready") << p.stderrText();
  const auto start = Clock::now();
  // Every suspect above thresholds from 0.0101% to 0.11%: answers of 35 to
  // 50 KB, each a question of its own (the old server's six decimals told
  // these apart too), so keeping them all would take some 45 MB.
  auto ask = [&](int n) {
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%.4f", 0.01 + 0.0001 * n);
    const HttpAnswer a = p.get(std::string("/api/suspects?limit=0&threshold=") + threshold);
    ASSERT_EQ(a.status, 200) << n << ": " << a.body.substr(0, 300);
    ASSERT_GT(a.body.size(), 20000u) << threshold;
  };
  for (int n = 1; n <= 50; n++) ask(n);  // warm up: the dups index, the allocator's arenas
  const uint64_t warm = p.residentBytes();
  ASSERT_GT(warm, 0u);
  uint64_t highest = warm;
  for (int n = 51; n <= 1000 && Clock::now() - start < std::chrono::seconds(240); n++) {
    ask(n);
    if (::testing::Test::HasFatalFailure()) return;
    if (n % 50 == 0) highest = std::max(highest, p.residentBytes());
  }
  ASSERT_LT(Clock::now() - start, std::chrono::seconds(240)) << "too slow to finish";
  std::printf("answer cache: RSS %.1f MiB after warm-up, at most %.1f MiB over 1000 questions\n",
              static_cast<double>(warm) / kMiB, static_cast<double>(highest) / kMiB);
  EXPECT_LE(highest, warm + 2 * kMiB + 16 * kMiB);
}

// ---- the dump changes on disk while it is served ----

// Serves a copy of the retention dump in the scratch directory, which the
// test may cut or rewrite without touching the shared test dumps.
class ServeFilesChanged : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT(kDump);
    dump_ = testing::scratch().file(
        std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".dump");
    std::filesystem::copy_file(kDump, dump_, std::filesystem::copy_options::overwrite_existing);
    server_ =
        std::make_unique<ServeProcess>(std::vector<std::string>{dump_, "--http", "127.0.0.1:0"});
    ASSERT_TRUE(server_->serving()) << server_->stderrText();
    ASSERT_EQ(server_->waitLoaded(), "ready") << server_->stderrText();
  }

  // The address of the biggest top retainer.
  std::string someAddress() const {
    return JsonValue::parse(
               server_->get("/api/summary").body)["top_retainers"][0]["object"]["address"]
        .str();
  }

  std::string dump_;
  std::unique_ptr<ServeProcess> server_;
};

void expectChangedOnDisk(const HttpAnswer& a) {
  EXPECT_EQ(a.status, 409) << a.body.substr(0, 300);
  ASSERT_EQ(a.contentType(), "application/json");
  const std::string error = JsonValue::parse(a.body)["error"].str();
  EXPECT_NE(error.find("the dump changed on disk"), std::string::npos) << error;
  EXPECT_NE(error.find("restart goheap serve"), std::string::npos) << error;
}

TEST_F(ServeFilesChanged, ADumpCutShortIsAnswered409AndTheServerStaysUp) {
  ServeProcess& p = *server_;
  const std::string obj = "/api/obj?addr=" + someAddress() + "&bytes=256";
  ASSERT_EQ(p.get(obj).status, 200);

  std::filesystem::resize_file(dump_, std::filesystem::file_size(dump_) / 2);
  expectChangedOnDisk(p.get(obj));
  expectChangedOnDisk(p.get("/api/dups"));
  expectChangedOnDisk(p.get("/api/summary"));
  const HttpAnswer status = p.get("/api/status");
  EXPECT_EQ(status.status, 200);
  EXPECT_FALSE(JsonValue::parse(status.body)["files_changed"].str().empty()) << status.body;
  EXPECT_TRUE(p.alive()) << p.stderrText();
}

TEST_F(ServeFilesChanged, ADumpRewrittenInPlaceIsAnswered409) {
  ServeProcess& p = *server_;
  ASSERT_EQ(p.get("/api/summary").status, 200);

  // Same length, same inode, other bytes; the modification time moved on
  // (set explicitly: a write in the same clock tick as the copy may not).
  struct stat before {};
  ASSERT_EQ(::stat(dump_.c_str(), &before), 0);
  const int fd = ::open(dump_.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const std::string junk(4096, '\xa5');
  for (off_t at = before.st_size / 2; at + 4096 <= before.st_size; at += 4096) {
    ASSERT_EQ(::pwrite(fd, junk.data(), junk.size(), at), 4096);
  }
  timespec times[2] = {before.st_atim, before.st_mtim};
  times[1].tv_sec += 2;
  ASSERT_EQ(::futimens(fd, times), 0);
  ::close(fd);

  expectChangedOnDisk(p.get("/api/summary"));
  expectChangedOnDisk(p.get("/api/top"));
  EXPECT_EQ(p.get("/api/status").status, 200);
  EXPECT_TRUE(p.alive()) << p.stderrText();
}

}  // namespace
}  // namespace goheap
