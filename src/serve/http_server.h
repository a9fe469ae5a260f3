// The HTTP/1.1 layer of goheap serve, on Boost.Beast and Boost.Asio (the
// only file that includes them, so the rest of the server builds fast): it
// accepts connections, reads requests under deadlines and limits, and
// writes answers; what to answer is the Handler's business.
//
// Hardening, each the answer to something measured against the old server:
//  - asynchronous I/O on one thread: a slow client holds a connection, not a
//    thread, so ten clients sending a byte every 3 s cannot stall the rest;
//  - a client that has not sent a whole request within `request_seconds`
//    of its first byte is dropped; an idle kept-alive connection after
//    `idle_seconds`; an answer not taken within `write_seconds`;
//  - the analyses run on a worker pool, off the I/O thread, so a 10-second
//    query does not hold up /api/status or the pages;
//  - TCP_NODELAY on every connection (Nagle's algorithm with delayed ACKs
//    cost 40 ms per kept-alive request) and a real listen backlog;
//  - at most `max_connections` at once: beyond, new ones are closed;
//  - a request target over `max_target_bytes` gets 414, a header over
//    `max_header_bytes` 431, a body over `max_body_bytes` 413, anything
//    unparsable 400, all through Handler::refusal so they can be JSON.
// Range headers are not looked at: every answer is whole (200).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "util/error.h"

namespace goheap::serve {

struct HttpRequest {
  std::string method;               // "GET", "HEAD", "POST"...
  std::string target;               // as sent: "/api/top?by=site"
  bool http11 = true;               // HTTP/1.1 (else 1.0)
  std::optional<std::string> host;  // the Host header, if any
  std::string cookie;               // the Cookie header, "" if none
  // Read for /mcp (the MCP's Streamable HTTP); "" when absent.
  std::string content_type;           // Content-Type
  std::string accept;                 // Accept
  std::optional<std::string> origin;  // Origin: a browser's page sends it
  std::string mcp_session_id;         // Mcp-Session-Id
  std::string mcp_protocol_version;   // MCP-Protocol-Version
  std::string authorization;          // Authorization: "Bearer TOKEN" for the access token
  std::string body;                   // at most HttpLimits::max_body_bytes
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  // The body is `body`, which `owner` (when set) keeps alive: a remembered
  // answer or an embedded file is sent without a copy.
  std::string_view body;
  std::shared_ptr<const std::string> owner;
  std::vector<std::pair<std::string, std::string>> headers;  // Allow, Set-Cookie...

  // A response that owns `text`.
  static HttpResponse of(int status, std::string content_type, std::string text);
  // One that shares `text`.
  static HttpResponse shared(int status, std::string content_type,
                             std::shared_ptr<const std::string> text);
};

class HttpHandler {
 public:
  // Work to do on the worker pool; its result is the answer.
  using Job = std::function<HttpResponse()>;

  virtual ~HttpHandler() = default;
  // Called on the I/O thread: must be quick. Answers at once (status, files,
  // errors) or hands back a Job.
  virtual std::variant<HttpResponse, Job> route(const HttpRequest& request) = 0;
  // The answer to a request the HTTP layer refused (400, 413, 414, 431);
  // `target` is what could be read of it, possibly nothing.
  virtual HttpResponse refusal(int status, std::string_view target, const std::string& why) = 0;
};

struct HttpLimits {
  double idle_seconds = 30;    // an open connection waiting for a request
  double request_seconds = 5;  // from a request's first byte to its end
  double write_seconds = 60;   // to send an answer
  size_t max_target_bytes = 8 * 1024;
  size_t max_header_bytes = 64 * 1024;
  size_t max_body_bytes = 1 << 20;  // a POST to /mcp: one JSON-RPC message
  size_t max_connections = 1024;
  unsigned io_threads = 1;
  unsigned worker_threads = 0;  // 0: the number of cores, at least 2
};

class HttpServer {
 public:
  // Resolves and binds `host`:`port` (port 0: a free one) and listens;
  // connections wait in the backlog until start().
  static Expected<std::unique_ptr<HttpServer>> listen(const std::string& host, uint16_t port,
                                                      const HttpLimits& limits = {});
  // Starts answering with `handler`, which must outlive the server. Once.
  void start(HttpHandler& handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  // Connections open now (tests).
  size_t connections() const;

  // Stops accepting, drops the connections, lets the jobs under way finish
  // and joins every thread. Safe to call more than once.
  void stop();

  struct Impl;  // http_server.cpp's, shared with its connections

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace goheap::serve
