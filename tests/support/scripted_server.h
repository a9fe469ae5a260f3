// A tiny HTTP server for the tests of goheap's downloads
// (acquire/http_download.h): a thread with a listening socket on
// 127.0.0.1 that answers each connection with the bytes a test scripted,
// pauses and early closes included, so that every way a server can
// misbehave is reproducible. Loopback only; every wait is bounded.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace goheap::testing {

// One connection's answer: each step's bytes sent, then its pause; then the
// connection is closed, or with `hold`, kept open without a byte more until
// the client closes it (or the server stops).
struct ScriptedReply {
  struct Step {
    std::string bytes;
    int pause_ms = 0;
  };
  std::vector<Step> steps;
  bool hold = false;

  // "HTTP/1.1 STATUS\r\nheaders\r\n\r\nbody" in one step, with a
  // Content-Length unless `headers` has a Transfer-Encoding.
  static ScriptedReply whole(std::string_view status, std::string_view headers,
                             std::string_view body);
};

class ScriptedServer {
 public:
  // Serves the replies in order, one per connection, reading each request's
  // head (up to the empty line) first; further connections are closed at
  // once.
  explicit ScriptedServer(std::vector<ScriptedReply> replies);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT" + target.
  std::string url(std::string_view target) const;
  // The request heads received so far, in order.
  std::vector<std::string> requests() const;

 private:
  void serve();
  void answer(int fd, const ScriptedReply& reply);

  std::vector<ScriptedReply> replies_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
uint16_t closedPort();

}  // namespace goheap::testing
