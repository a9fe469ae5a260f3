// Downloading a heap over HTTP (acquire/http_download.h) from a scripted
// server (support/scripted_server.h): what arrives is what was sent,
// byte for byte, however it was framed, and every way the server can fail
// ends in an Error that names the URL and what happened, within the
// timeouts, with no temporary file left behind.
#include "acquire/http_download.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/goheap_process.h"
#include "support/scripted_server.h"

namespace goheap::acquire {
namespace {

namespace fs = std::filesystem;
using testing::ScriptedReply;

// What a download tells its sink: the phases and each progress call.
struct RecordingSink : Sink {
  void beginPhase(std::string_view name, uint64_t total) override {
    phases.emplace_back(name, total);
  }
  void progress(uint64_t done) override { calls.emplace_back(done, phases.back().second); }
  void endPhase() override { ended++; }
  std::vector<std::pair<std::string, uint64_t>> phases;  // name, total
  std::vector<std::pair<uint64_t, uint64_t>> calls;      // done, the phase's total
  int ended = 0;
};
using testing::ScriptedServer;

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A body that starts like a heap dump, then `size` bytes that repeat no
// pattern a framing bug could hide in.
std::string fakeDump(size_t size) {
  std::string body = "go1.7 heap dump\n";
  std::mt19937 random(static_cast<unsigned>(size));
  while (body.size() < size) body.push_back(static_cast<char>(random() & 0xff));
  return body;
}

// The body in HTTP/1.1 chunks of `chunk` bytes, each its own step.
ScriptedReply chunked(const std::string& body, size_t chunk) {
  ScriptedReply reply;
  reply.steps.push_back({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0});
  for (size_t at = 0; at < body.size(); at += chunk) {
    const std::string part = body.substr(at, chunk);
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", part.size());
    reply.steps.push_back({std::string(size) + part + "\r\n", 5});
  }
  reply.steps.push_back({"0\r\n\r\n", 0});
  return reply;
}

// Each test's temporary files go to a folder of its own, checked empty
// after a failed download.
class HttpDownload : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch().file(::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    const char* old = std::getenv("TMPDIR");
    if (old != nullptr) saved_tmpdir_ = old;
    had_tmpdir_ = old != nullptr;
    ::setenv("TMPDIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_tmpdir_) {
      ::setenv("TMPDIR", saved_tmpdir_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().string());
    return names;
  }

  // Downloads `url`, expecting an Error; returns its message.
  std::string failure(const std::string& url, const DownloadOptions& options = {}) {
    Expected<TemporaryFile> file = downloadHeap(url, nullSink(), options);
    EXPECT_FALSE(file) << url << " downloaded to " << (file ? file->path() : "");
    EXPECT_TRUE(leftovers().empty()) << leftovers().front();
    return file ? std::string() : file.error().message();
  }

  std::string dir_;
  std::string saved_tmpdir_;
  bool had_tmpdir_ = false;
};

TEST_F(HttpDownload, StreamsABodyWithContentLengthToATemporaryFile) {
  // More than one 256 KiB buffer, so the body is written in several parts.
  const std::string body = fakeDump(700 * 1024 + 3);
  ScriptedServer server(
      {ScriptedReply::whole("200 OK", "Content-Type: application/octet-stream\r\n", body)});
  RecordingSink sink;
  Expected<TemporaryFile> file = downloadHeap(server.url("/debug/heapdump?gc=1"), sink);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(readWholeFile(file->path()), body);
  EXPECT_EQ(fs::path(file->path()).parent_path(), fs::path(dir_));
  struct stat st {};
  ASSERT_EQ(::stat(file->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "a process's memory is its owner's alone";

  using Phase = std::pair<std::string, uint64_t>;
  EXPECT_EQ(sink.phases, (std::vector<Phase>{{"request", 0}, {"download", body.size()}}));
  EXPECT_EQ(sink.ended, 2) << "every phase begun is ended";
  const std::vector<std::pair<uint64_t, uint64_t>>& calls = sink.calls;
  ASSERT_FALSE(calls.empty());
  const std::pair<uint64_t, uint64_t> whole(body.size(), body.size());
  EXPECT_EQ(calls.back(), whole);
  for (size_t i = 1; i < calls.size(); i++) EXPECT_GT(calls[i].first, calls[i - 1].first);
  // Read in large pieces, not a few hundred bytes a call (which made a
  // 425 MiB download take 4 s instead of 0.5 s).
  EXPECT_LT(calls.size(), body.size() / 4096) << "the body was read in small pieces";

  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].rfind("GET /debug/heapdump?gc=1 HTTP/1.1\r\n", 0), 0u) << requests[0];
  EXPECT_NE(requests[0].find("Host: 127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
            std::string::npos)
      << requests[0];

  // The file goes with the TemporaryFile.
  const std::string path = file->path();
  { TemporaryFile done = file.take(); }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(HttpDownload, ReadsAChunkedBody) {
  const std::string body = fakeDump(300 * 1024);
  ScriptedServer server({chunked(body, 50000)});
  RecordingSink sink;
  Expected<TemporaryFile> file = downloadHeap(server.url("/"), sink);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(readWholeFile(file->path()), body);
  ASSERT_EQ(sink.phases.size(), 2u);
  EXPECT_EQ(sink.phases[1].first, "download");
  EXPECT_EQ(sink.phases[1].second, 0u) << "a chunked answer announces no size";
}

TEST_F(HttpDownload, ReadsABodyThatEndsWithTheConnection) {
  const std::string body = fakeDump(100 * 1024);
  ScriptedServer server({{{{"HTTP/1.0 200 OK\r\n\r\n", 10}, {body, 0}}, false}});
  Expected<TemporaryFile> file = downloadHeap(server.url("/"), nullSink());
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(readWholeFile(file->path()), body);
}

TEST_F(HttpDownload, AcceptsACoreFile) {
  const std::string body = std::string(
                               "\x7f"
                               "ELF\x02\x01\x01",
                               7) +
                           std::string(1000, '\0');
  ScriptedServer server({ScriptedReply::whole("200 OK", "", body)});
  Expected<TemporaryFile> file = downloadHeap(server.url("/core"), nullSink());
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(readWholeFile(file->path()), body);
}

TEST_F(HttpDownload, AConnectionClosedBeforeContentLengthIsAnError) {
  const std::string body = fakeDump(100000);
  ScriptedServer server(
      {{{{"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body.substr(0, 5000), 0}}, false}});
  const std::string url = server.url("/debug/heapdump");
  EXPECT_EQ(failure(url),
            "cannot download " + url + ": the connection closed after 5000 of 100000 bytes");
}

TEST_F(HttpDownload, AChunkedBodyCutShortIsAnError) {
  ScriptedReply reply = chunked(fakeDump(3000), 1000);
  reply.steps.pop_back();  // no last chunk: the connection just ends
  ScriptedServer server({reply});
  const std::string url = server.url("/");
  EXPECT_EQ(failure(url), "cannot download " + url +
                              ": the connection closed after 3000 bytes, before the answer's end");
}

TEST_F(HttpDownload, TooManyRequestsSaysTheStatusAndTheServersReason) {
  ScriptedServer server({ScriptedReply::whole(
      "429 Too Many Requests", "Retry-After: 3\r\nContent-Type: text/plain; charset=utf-8\r\n",
      "another heap dump is being written; try again in 3 s\n")});
  const std::string url = server.url("/debug/heapdump");
  Expected<TemporaryFile> file = downloadHeap(url, nullSink());
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message(),
            "cannot download " + url +
                ": the server answered 429 Too Many Requests: another heap dump is being "
                "written; try again in 3 s");
  EXPECT_FALSE(file.error().needsInput());
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(HttpDownload, AnErrorAnswerIsShownByItsFirstLine) {
  ScriptedServer server(
      {ScriptedReply::whole("500 Internal Server Error", "",
                            "\ncannot write the heap dump: no space left on device\nmore\n"),
       ScriptedReply::whole("404 Not Found", "", ""),
       ScriptedReply::whole("503 Service Unavailable", "", std::string(10000, 'x'))});
  EXPECT_EQ(failure(server.url("/a")),
            "cannot download " + server.url("/a") +
                ": the server answered 500 Internal Server Error: cannot write the heap dump: "
                "no space left on device");
  EXPECT_EQ(failure(server.url("/b")),
            "cannot download " + server.url("/b") +
                ": the server answered 404 Not Found (is the capture handler mounted at this "
                "path?)");
  const std::string long_one = failure(server.url("/c"));
  EXPECT_NE(long_one.find(": the server answered 503 Service Unavailable: xxx"), std::string::npos);
  EXPECT_LT(long_one.size(), 500u) << "a long body is cut";
}

TEST_F(HttpDownload, AServerThatStopsSendingTimesOut) {
  ScriptedReply reply;
  reply.steps.push_back({"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\ngo1.7 heap", 0});
  reply.hold = true;
  ScriptedServer server({reply});
  DownloadOptions options;
  options.idle_seconds = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const std::string url = server.url("/");
  EXPECT_EQ(
      failure(url, options),
      "cannot download " + url + ": the server sent nothing for 0.3 s, after 10 of 1000 bytes");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(HttpDownload, AServerThatNeverAnswersTimesOut) {
  ScriptedReply reply;
  reply.hold = true;
  ScriptedServer server({reply});
  DownloadOptions options;
  options.answer_seconds = 0.3;
  const std::string url = server.url("/");
  EXPECT_EQ(failure(url, options), "cannot download " + url + ": no answer within 0.3 s");
}

TEST_F(HttpDownload, AServerThatClosesWithoutAnsweringIsAnError) {
  ScriptedServer server({ScriptedReply{}});
  const std::string url = server.url("/");
  EXPECT_EQ(failure(url),
            "cannot download " + url + ": the server closed the connection without answering");
}

TEST_F(HttpDownload, AMalformedAnswerIsAnError) {
  ScriptedServer server({{{{"SSH-2.0-OpenSSH_9.2\r\n\r\n", 0}}, false}});
  const std::string message = failure(server.url("/"));
  EXPECT_EQ(message.rfind("cannot download " + server.url("/") + ": cannot read the answer: ", 0),
            0u)
      << message;
}

TEST_F(HttpDownload, ARefusedConnectionSaysWhere) {
  const uint16_t port = testing::closedPort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/debug/heapdump";
  EXPECT_EQ(failure(url), "cannot download " + url +
                              ": connection refused (is the service listening on 127.0.0.1:" +
                              std::to_string(port) + "?)");
}

TEST_F(HttpDownload, FollowsRedirects) {
  const std::string body = fakeDump(5000);
  ScriptedServer target({ScriptedReply::whole("200 OK", "", body)});
  ScriptedServer server({
      ScriptedReply::whole("301 Moved Permanently", "Location: /debug/pprof/heapdump\r\n", ""),
      ScriptedReply::whole("307 Temporary Redirect", "Location: heapdump2?gc=1\r\n", ""),
      ScriptedReply::whole("302 Found", "Location: " + target.url("/dump") + "\r\n", "moved"),
  });
  Expected<TemporaryFile> file = downloadHeap(server.url("/debug/heapdump"), nullSink());
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(readWholeFile(file->path()), body);
  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].rfind("GET /debug/pprof/heapdump HTTP/1.1\r\n", 0), 0u) << requests[1];
  EXPECT_EQ(requests[2].rfind("GET /debug/pprof/heapdump2?gc=1 HTTP/1.1\r\n", 0), 0u)
      << requests[2];
  ASSERT_EQ(target.requests().size(), 1u);
  EXPECT_EQ(target.requests()[0].rfind("GET /dump HTTP/1.1\r\n", 0), 0u);
}

TEST_F(HttpDownload, GivesUpAfterFiveRedirects) {
  std::vector<ScriptedReply> replies;
  for (int i = 0; i < 6; i++) {
    replies.push_back(
        ScriptedReply::whole("302 Found", "Location: /r" + std::to_string(i + 1) + "\r\n", ""));
  }
  ScriptedServer server(replies);
  EXPECT_EQ(failure(server.url("/r0")), "cannot download " + server.url("/r0") +
                                            " (redirected to " + server.url("/r5") +
                                            "): more than 5 redirects");
  EXPECT_EQ(server.requests().size(), 6u);
}

TEST_F(HttpDownload, ARedirectToHttpsOrNowhereIsAnError) {
  ScriptedServer server({
      ScriptedReply::whole("302 Found", "Location: https://127.0.0.1/secure\r\n", ""),
      ScriptedReply::whole("302 Found", "", ""),
  });
  const std::string https = failure(server.url("/a"));
  EXPECT_NE(https.find("cannot download " + server.url("/a") +
                       ": it redirects to https://127.0.0.1/secure, which goheap does not read: "),
            std::string::npos)
      << https;
  EXPECT_NE(https.find("curl"), std::string::npos) << https;
  EXPECT_EQ(failure(server.url("/b")),
            "cannot download " + server.url("/b") + ": it redirects to nowhere (no Location)");
}

TEST_F(HttpDownload, AnAnswerThatIsNoHeapIsRefusedAtOnce) {
  ScriptedServer server({
      ScriptedReply::whole(
          "200 OK", "Content-Type: text/html; charset=utf-8\r\n",
          "<!DOCTYPE html>\n<html><body>pprof</body></html>\n" + std::string(100000, ' ')),
      ScriptedReply::whole("200 OK", "", ""),
      ScriptedReply::whole("200 OK", "", "go"),
  });
  EXPECT_EQ(failure(server.url("/debug/pprof/")),
            "cannot download " + server.url("/debug/pprof/") +
                ": the answer is not a heap dump or a core file (Content-Type text/html; "
                "charset=utf-8; it starts \"<!DOCTYPE html>\")");
  EXPECT_EQ(failure(server.url("/empty")), "cannot download " + server.url("/empty") +
                                               ": the server answered 200 with an empty body");
  EXPECT_EQ(failure(server.url("/short")),
            "cannot download " + server.url("/short") +
                ": the answer is not a heap dump or a core file (Content-Type not given; it starts "
                "\"go\")");
}

TEST_F(HttpDownload, AnHttpsUrlIsRefusedWithWhatToDoInstead) {
  Expected<TemporaryFile> file = downloadHeap("https://127.0.0.1:6060/debug/heapdump", nullSink());
  ASSERT_FALSE(file);
  const std::string& m = file.error().message();
  EXPECT_EQ(m.rfind("cannot read https://127.0.0.1:6060/debug/heapdump: goheap reads http:// "
                    "URLs only",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("curl -o heap.dump"), std::string::npos) << m;
  EXPECT_NE(m.find("ssh -L"), std::string::npos) << m;
  EXPECT_TRUE(file.error().needsInput());
}

}  // namespace
}  // namespace goheap::acquire
