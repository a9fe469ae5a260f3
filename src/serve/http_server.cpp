#include "serve/http_server.h"

#include "acquire/host_resolver.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace goheap::serve {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

HttpResponse HttpResponse::of(int status, std::string content_type, std::string text) {
  return shared(status, std::move(content_type),
                std::make_shared<const std::string>(std::move(text)));
}

HttpResponse HttpResponse::shared(int status, std::string content_type,
                                  std::shared_ptr<const std::string> text) {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = *text;
  r.owner = std::move(text);
  return r;
}

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

std::string_view view(beast::string_view s) {
  return {s.data(), s.size()};
}

// A plain-text answer for when the handler itself failed.
HttpResponse internalError(const std::string& why) {
  return HttpResponse::of(500, "text/plain; charset=utf-8", "internal error: " + why + "\n");
}

}  // namespace

struct HttpServer::Impl {
  HttpHandler* handler = nullptr;
  const HttpLimits limits;
  std::atomic<size_t> open_connections{0};
  uint16_t port = 0;

  // Everything Asio owns, destroyed together by stop(); declared so that the
  // workers (whose queued jobs hold connections) go before the io_context
  // that the connections' sockets belong to.
  struct Running {
    explicit Running(unsigned worker_threads)
        : acceptor(ioc), accept_retry(ioc), work(ioc.get_executor()), workers(worker_threads) {}
    net::io_context ioc;
    tcp::acceptor acceptor;
    net::steady_timer accept_retry;
    net::executor_work_guard<net::io_context::executor_type> work;
    net::thread_pool workers;
  };
  std::optional<Running> running;
  std::vector<std::thread> io_threads;
  std::once_flag stopped;

  explicit Impl(const HttpLimits& l) : limits(l) {}

  void accept();
};

namespace {

// One client connection: read a request, answer it, and again while the
// client keeps the connection alive. Every step runs on the connection's
// strand; the object lives as long as an operation on it is pending.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, HttpServer::Impl& server)
      : server_(server), limits_(server.limits), stream_(std::move(socket)) {
    server_.open_connections++;
  }
  ~Connection() { server_.open_connections--; }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->waitForRequest(); });
  }

 private:
  // An open connection may idle (keep-alive) for idle_seconds; its next
  // request's deadline starts with its first byte.
  void waitForRequest() {
    if (buffer_.size() > 0) return readRequest();  // pipelined: already here
    stream_.expires_after(seconds(limits_.idle_seconds));
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();  // idle too long, or gone
                              self->buffer_.commit(n);
                              self->readRequest();
                            });
  }

  void readRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(limits_.max_header_bytes));
    parser_->body_limit(limits_.max_body_bytes);
    // One deadline for the whole request (header and body), however the
    // client dribbles it: a slow client is dropped, not waited for.
    stream_.expires_after(seconds(limits_.request_seconds));
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->onRequest(ec); });
  }

  void onRequest(beast::error_code ec) {
    if (ec == http::error::header_limit) {
      // A target over its limit is 414, whether or not the request line
      // was parsed before the header ran over (a 100 KB query is not); a
      // header too long with a fine target is 431.
      if (requestTarget().size() > limits_.max_target_bytes) return refuseLongTarget();
      return refuse(431, "the request header is longer than " +
                             std::to_string(limits_.max_header_bytes) + " bytes");
    }
    if (ec == http::error::body_limit) {
      return refuse(413, "the request body is longer than " +
                             std::to_string(limits_.max_body_bytes) + " bytes");
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return close();
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return refuse(400, "malformed request: " + ec.message());
    }
    if (ec) return close();  // timed out (too slow), reset, ...

    const auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    head_ = req.method() == http::verb::head;
    HttpRequest request;
    request.method = std::string(view(req.method_string()));
    request.target = std::string(view(req.target()));
    request.http11 = req.version() >= 11;
    if (request.target.size() > limits_.max_target_bytes) return refuseLongTarget();
    if (req.count(http::field::host) > 1) return refuse(400, "more than one Host header");
    if (auto it = req.find(http::field::host); it != req.end()) {
      request.host = std::string(view(it->value()));
    }
    for (auto [it, end] = req.equal_range(http::field::cookie); it != end; ++it) {
      if (!request.cookie.empty()) request.cookie += "; ";
      request.cookie += view(it->value());
    }
    const auto header = [&req](std::string_view name) {
      auto it = req.find(beast::string_view(name.data(), name.size()));
      return it == req.end() ? std::string() : std::string(view(it->value()));
    };
    request.content_type = header("Content-Type");
    request.accept = header("Accept");
    if (req.find(http::field::origin) != req.end()) request.origin = header("Origin");
    request.mcp_session_id = header("Mcp-Session-Id");
    request.mcp_protocol_version = header("MCP-Protocol-Version");
    request.authorization = header("Authorization");
    request.body = std::move(parser_->get().body());
    parser_.reset();

    std::variant<HttpResponse, HttpHandler::Job> routed;
    try {
      routed = server_.handler->route(request);
    } catch (const std::exception& e) {
      routed = internalError(e.what());
    }
    if (auto* now = std::get_if<HttpResponse>(&routed)) return write(std::move(*now));
    // The analyses run on the worker pool; the answer comes back to this
    // connection's strand to be written.
    net::post(server_.running->workers, [self = shared_from_this(),
                                         job = std::move(std::get<HttpHandler::Job>(routed))] {
      HttpResponse answer;
      try {
        answer = job();
      } catch (const std::exception& e) {
        answer = internalError(e.what());
      }
      net::post(self->stream_.get_executor(),
                [self, answer = std::move(answer)]() mutable { self->write(std::move(answer)); });
    });
  }

  // The target of the request being read: the parser's once it has read
  // the request line, else what the buffer holds of the line so far.
  std::string_view requestTarget() const {
    if (parser_ && !parser_->get().target().empty()) return view(parser_->get().target());
    std::string_view line(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    line = line.substr(0, line.find('\n'));
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) return {};
    line = line.substr(space + 1);
    return line.substr(0, line.find(' '));
  }

  void refuseLongTarget() {
    refuse(414, "the request target is longer than " + std::to_string(limits_.max_target_bytes) +
                    " bytes");
  }

  // Answers a request that cannot be served and closes the connection
  // after it (the rest of the request may not have been read).
  void refuse(int status, const std::string& why) {
    const std::string_view target = requestTarget().substr(0, 256);
    version_ = parser_ && parser_->get().version() == 10 ? 10 : 11;
    keep_alive_ = false;
    head_ = false;
    HttpResponse answer;
    try {
      answer = server_.handler->refusal(status, target, why);
    } catch (const std::exception& e) {
      answer = internalError(e.what());
    }
    parser_.reset();
    write(std::move(answer));
  }

  void write(HttpResponse answer) {
    answer_ = std::move(answer);
    response_.emplace(static_cast<http::status>(answer_.status), version_);
    response_->set(http::field::content_type, answer_.content_type);
    for (const auto& [name, value] : answer_.headers) response_->insert(name, value);
    response_->keep_alive(keep_alive_);
    if (head_) {
      // HEAD: the header GET would have, without the body.
      response_->content_length(answer_.body.size());
    } else {
      response_->body() = {answer_.body.data(), answer_.body.size()};
      response_->prepare_payload();
    }
    stream_.expires_after(seconds(limits_.write_seconds));
    http::async_write(
        stream_, *response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->onWritten(ec); });
  }

  void onWritten(beast::error_code ec) {
    const bool keep_alive = response_->keep_alive();
    response_.reset();
    answer_ = {};
    if (ec) return close();
    if (!keep_alive) return lingeringClose();
    waitForRequest();
  }

  // Closing a socket with unread bytes makes the kernel send a reset, which
  // can destroy the answer before the client reads it (a refused 100 KB
  // request is still arriving). So: stop sending, read and discard what
  // comes for a little while, then close.
  void lingeringClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.consume(buffer_.size());
    stream_.expires_after(std::chrono::seconds(2));
    drain(0);
  }

  void drain(size_t drained) {
    constexpr size_t kMaxDrained = 1 << 20;
    stream_.async_read_some(buffer_.prepare(16384),
                            [self = shared_from_this(), drained](beast::error_code ec, size_t n) {
                              if (ec || drained + n > kMaxDrained) return self->close();
                              self->buffer_.commit(n);
                              self->buffer_.consume(n);
                              self->drain(drained + n);
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  HttpServer::Impl& server_;
  const HttpLimits& limits_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool head_ = false;
  HttpResponse answer_;  // what response_'s body points into, while it is written
  std::optional<http::response<http::span_body<const char>>> response_;
};

}  // namespace

void HttpServer::Impl::accept() {
  running->acceptor.async_accept(
      net::make_strand(running->ioc), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted) return;
        if (ec) {
          // Out of file descriptors, say: try again shortly rather than spin.
          running->accept_retry.expires_after(std::chrono::milliseconds(50));
          running->accept_retry.async_wait([this](beast::error_code wait_ec) {
            if (!wait_ec) accept();
          });
          return;
        }
        if (open_connections.load() >= limits.max_connections) {
          beast::error_code ignored;
          socket.close(ignored);
        } else {
          // Without TCP_NODELAY, Nagle's algorithm waits for the client's
          // delayed ACK: 40 ms per answer on a kept-alive connection.
          beast::error_code ignored;
          socket.set_option(tcp::no_delay(true), ignored);
          std::make_shared<Connection>(std::move(socket), *this)->start();
        }
        accept();
      });
}

Expected<std::unique_ptr<HttpServer>> HttpServer::listen(const std::string& host, uint16_t port,
                                                         const HttpLimits& limits) {
  auto impl = std::make_unique<Impl>(limits);
  const unsigned workers = limits.worker_threads != 0
                               ? limits.worker_threads
                               : std::max(4u, std::thread::hardware_concurrency());
  Impl::Running& run = impl->running.emplace(workers);
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);

  beast::error_code ec;
  Expected<std::vector<tcp::endpoint>> found =
      acquire::resolveHost(run.ioc, host, port, /*passive=*/true);
  if (!found || found->empty()) {
    return Error::io("cannot listen on " + where + ": " +
                     (found ? std::string("no address") : found.error().message()));
  }
  // "localhost" may name both 127.0.0.1 and ::1; IPv4 is what most tools try.
  tcp::endpoint endpoint = found->front();
  for (const tcp::endpoint& candidate : *found) {
    if (candidate.address().is_v4()) {
      endpoint = candidate;
      break;
    }
  }
  auto failed = [&](const char* step) {
    return Error::io("cannot listen on " + where + " (" + step + "): " + ec.message());
  };
  if (run.acceptor.open(endpoint.protocol(), ec); ec) return failed("socket");
  if (run.acceptor.set_option(net::socket_base::reuse_address(true), ec); ec) {
    return failed("SO_REUSEADDR");
  }
  if (run.acceptor.bind(endpoint, ec); ec) return failed("bind");
  // SOMAXCONN, not the 5 that made bursts of new connections wait a second.
  if (run.acceptor.listen(net::socket_base::max_listen_connections, ec); ec) {
    return failed("listen");
  }
  impl->port = run.acceptor.local_endpoint().port();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::start(HttpHandler& handler) {
  impl_->handler = &handler;
  impl_->accept();
  Impl::Running& run = *impl_->running;
  for (unsigned i = 0; i < std::max(1u, impl_->limits.io_threads); i++) {
    impl_->io_threads.emplace_back([&run] { run.ioc.run(); });
  }
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  stop();
}

uint16_t HttpServer::port() const {
  return impl_->port;
}

size_t HttpServer::connections() const {
  return impl_->open_connections.load();
}

void HttpServer::stop() {
  std::call_once(impl_->stopped, [this] {
    Impl::Running& run = *impl_->running;
    run.ioc.stop();
    for (std::thread& t : impl_->io_threads) t.join();
    // Jobs under way finish; queued ones are dropped with their connections.
    run.workers.stop();
    run.workers.join();
    impl_->running.reset();  // closes the listening socket and every connection
  });
}

}  // namespace goheap::serve
