// A small blocking HTTP/1.1 client over plain sockets, for the tests of
// goheap serve: one connection kept alive across requests, requests sent
// byte for byte as written (so a test can send a malformed or slow one),
// every read and write under a timeout. Loopback only; not for production.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace goheap::testing {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpAnswer {
  int status = 0;  // 0: no answer (refused, closed, timed out)
  HttpHeaders headers;
  std::string body;

  // The first header of that name (any case), or "".
  std::string header(std::string_view name) const;
  std::string contentType() const { return header("Content-Type"); }
};

class HttpConnection {
 public:
  // Connects to host:port (a numeric address: "127.0.0.1", "::1"); every
  // later read or write gives up after `timeout_seconds`.
  HttpConnection(const std::string& host, uint16_t port, double timeout_seconds = 120);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  bool connected() const { return fd_ >= 0; }

  // METHOD target HTTP/1.1 with a Host header naming host:port (unless
  // `headers` has one), the headers, and `body` with its Content-Length.
  HttpAnswer request(const std::string& method, const std::string& target,
                     const HttpHeaders& headers = {}, const std::string& body = {});
  HttpAnswer get(const std::string& target, const HttpHeaders& headers = {}) {
    return request("GET", target, headers);
  }

  // The pieces of request(), for requests built by hand.
  bool send(std::string_view bytes);
  HttpAnswer readAnswer(bool head_request = false);
  void close();

  // "127.0.0.1:8080", "[::1]:8080": the Host header request() sends.
  std::string hostHeader() const;

 private:
  bool fill();  // reads more into buffered_; false at the end or on a timeout

  std::string host_;
  uint16_t port_;
  int fd_ = -1;
  std::string buffered_;
};

// One request on a connection of its own.
HttpAnswer httpGet(const std::string& host, uint16_t port, const std::string& target,
                   const HttpHeaders& headers = {});

}  // namespace goheap::testing
