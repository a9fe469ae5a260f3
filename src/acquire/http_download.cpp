#include "acquire/http_download.h"

#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "acquire/host_resolver.h"
#include "acquire/http_url.h"

namespace goheap::acquire {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// The body is copied through a buffer of this size: the dump never is in
// memory as a whole.
constexpr size_t kChunkBytes = 256 * 1024;
// How much of an error answer's body is read, for its first line.
constexpr size_t kErrorBodyBytes = 4096;

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

// The parts one after the other (appended: GCC 12 at -O3 warns on
// "literal" + std::string).
std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const std::string_view part : parts) out.append(part);
  return out;
}

// "60 s", "0.2 s".
std::string secondsText(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

// The start of a body, for a message: printable ASCII, at most `limit`
// characters, up to the first line break.
std::string firstLine(std::string_view body, size_t limit) {
  std::string out;
  for (const char c : body) {
    if (c == '\n' || c == '\r') {
      if (out.empty()) continue;
      break;
    }
    if (out.size() == limit) {
      out += "...";
      break;
    }
    out += c >= ' ' && c < 0x7f ? c : '.';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Writes all of `bytes` to `fd`.
Status writeAll(int fd, const char* bytes, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, bytes, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      std::string why = "cannot write the download to ";
      why.append(path).append(": ").append(std::strerror(errno));
      if (errno == ENOSPC) why.append(" (set TMPDIR to a folder with room)");
      return Error::io(why);
    }
    bytes += w;
    n -= static_cast<size_t>(w);
  }
  return Status::success();
}

bool isRedirect(unsigned status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// One request on a connection of its own, each step under a deadline.
// Beast's synchronous calls have none (a server that stops sending would
// hang them forever), so every step is an asynchronous operation run to
// its end on a private io_context: to the caller, a blocking call.
class Exchange {
 public:
  explicit Exchange(const DownloadOptions& options) : options_(options), stream_(ioc_) {}

  // Connects to `url`'s server, sends the GET and reads the answer's
  // header. An Error is the reason alone.
  Status request(const HttpUrl& url) {
    Expected<std::vector<tcp::endpoint>> addresses =
        resolveHost(ioc_, url.host, url.port, /*passive=*/false);
    if (!addresses) {
      return Error::io(
          concat({"cannot resolve the host name ", url.host, ": ", addresses.error().message()}));
    }
    beast::error_code ec;

    ec = run(options_.idle_seconds,
             [&](auto handler) { stream_.async_connect(*addresses, std::move(handler)); });
    if (ec == beast::error::timeout) {
      return Error::io(concat(
          {"no connection to ", url.hostHeader(), " within ", secondsText(options_.idle_seconds)}));
    }
    if (ec == net::error::connection_refused) {
      return Error::io(
          concat({"connection refused (is the service listening on ", url.hostHeader(), "?)"}));
    }
    if (ec) return Error::io(concat({"cannot connect to ", url.hostHeader(), ": ", ec.message()}));

    http::request<http::empty_body> req(http::verb::get, url.target, 11);
    req.set(http::field::host, url.hostHeader());
    req.set(http::field::user_agent, "goheap");
    req.set(http::field::accept, "*/*");
    req.set(http::field::connection, "close");
    ec = run(options_.idle_seconds,
             [&](auto handler) { http::async_write(stream_, req, std::move(handler)); });
    if (ec) {
      return Error::io(concat({"cannot send the request: ", describe(ec, options_.idle_seconds)}));
    }

    // Beast reads as much as the buffer has room for, at least 512 bytes: a
    // buffer left at its first size would read the body 512 bytes a call.
    buffer_.reserve(kChunkBytes);
    parser_.emplace();
    parser_->header_limit(64 * 1024);
    parser_->body_limit(std::numeric_limits<uint64_t>::max());
    ec = run(options_.answer_seconds, [&](auto handler) {
      http::async_read_header(stream_, buffer_, *parser_, std::move(handler));
    });
    if (ec == beast::error::timeout) {
      return Error::io(concat({"no answer within ", secondsText(options_.answer_seconds)}));
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) {
      return Error::io("the server closed the connection without answering");
    }
    if (ec) {
      return Error::io(concat({"cannot read the answer: ", describe(ec, options_.answer_seconds)}));
    }
    return Status::success();
  }

  unsigned status() const { return parser_->get().result_int(); }
  std::string header(http::field name) const {
    const auto& fields = parser_->get();
    const auto it = fields.find(name);
    return it == fields.end() ? std::string() : std::string(it->value());
  }

  // What a status other than 200 says: "429 Too Many Requests: another
  // heap dump is being written; try again in 1 s".
  std::string refusal() {
    std::string body;
    std::vector<char> buffer(kErrorBodyBytes);
    while (!parser_->is_done() && body.size() < kErrorBodyBytes) {
      auto& b = parser_->get().body();
      b.data = buffer.data();
      b.size = buffer.size();
      const beast::error_code ec = read();
      body.append(buffer.data(), buffer.size() - b.size);
      if (ec && ec != http::error::need_buffer) break;  // what came is enough
    }
    std::string text = std::to_string(status());
    std::string reason(parser_->get().reason());
    if (reason.empty()) reason = std::string(http::obsolete_reason(parser_->get().result()));
    if (!reason.empty()) text.append(" ").append(reason);
    if (const std::string line = firstLine(body, 300); !line.empty()) {
      text.append(": ").append(line);
    }
    if (status() == 404) {
      text.append(options_.expect == DownloadedKind::Heap
                      ? " (is the capture handler mounted at this path?)"
                      : " (the server has no file for this build ID)");
    }
    return text;
  }

  // Streams the body into a new temporary file, as the phase "download" of
  // `sink` (which ends with the request's, in downloadHeap).
  Expected<TemporaryFile> receive(Sink& sink) {
    const uint64_t total = parser_->content_length().value_or(0);
    sink.endPhase();
    sink.beginPhase("download", total);
    GOHEAP_TRY(TemporaryFile file, TemporaryFile::create("download", "", sink));

    std::vector<char> buffer(kChunkBytes);
    std::string head;  // the body's first bytes, to tell a dump from a web page
    bool checked = false;
    uint64_t done = 0;
    while (!parser_->is_done()) {
      auto& b = parser_->get().body();
      b.data = buffer.data();
      b.size = buffer.size();
      beast::error_code ec = read();
      if (ec == http::error::need_buffer) ec = {};  // the buffer is full: write it out
      const size_t got = buffer.size() - b.size;
      if (got > 0) {
        if (head.size() < 64) head.append(buffer.data(), std::min<size_t>(got, 64 - head.size()));
        if (!checked && head.size() >= 4) {
          if (Status s = checkHead(head); !s) return s.error();
          checked = true;
        }
        if (Status s = writeAll(file.fd(), buffer.data(), got, file.path()); !s) {
          return s.error();
        }
        done += got;
        sink.progress(done);
      }
      if (ec) return Error::io(cutShort(ec, done, total));
    }
    if (done == 0) return Error("the server answered 200 with an empty body");
    if (!checked) {
      if (Status s = checkHead(head); !s) return s.error();
    }
    file.closeFd();
    return file;
  }

 private:
  // Runs the operation `start` begins (given its completion handler) until
  // it ends, at most `timeout` seconds: its error, beast::error::timeout
  // when the deadline passed first (which closes the connection).
  template <class Start>
  beast::error_code run(double timeout, Start&& start) {
    beast::error_code result = net::error::operation_aborted;
    stream_.expires_after(seconds(timeout));
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc_.restart();
    ioc_.run();
    return result;
  }

  // Reads some of the body into the buffer set on the parser: returns when
  // anything arrived, so the idle deadline is per read, not per buffer.
  beast::error_code read() {
    return run(options_.idle_seconds, [&](auto handler) {
      http::async_read_some(stream_, buffer_, *parser_, std::move(handler));
    });
  }

  // Whether the body starts like a heap dump ("go1.7 heap dump") or an ELF
  // core: a web page or a JSON error at the wrong URL is refused at once,
  // not downloaded whole and then found unreadable.
  Status checkHead(std::string_view head) const {
    const bool elf = head.starts_with(
        "\x7f"
        "ELF");
    if (elf || (options_.expect == DownloadedKind::Heap && head.starts_with("go1."))) {
      return Status::success();
    }
    std::string why = options_.expect == DownloadedKind::Heap
                          ? "the answer is not a heap dump or a core file"
                          : "the answer is not an ELF file";
    const std::string type = header(http::field::content_type);
    why.append(" (Content-Type ").append(type.empty() ? "not given" : type);
    why.append("; it starts \"").append(firstLine(head, 60)).append("\")");
    return Error(why);
  }

  // Why the body ended early, after `done` of `total` bytes (0: not known).
  std::string cutShort(beast::error_code ec, uint64_t done, uint64_t total) const {
    std::string so_far = concat({"after ", std::to_string(done)});
    if (total > 0) so_far.append(" of ").append(std::to_string(total));
    so_far.append(" bytes");
    if (ec == beast::error::timeout) {
      return concat(
          {"the server sent nothing for ", secondsText(options_.idle_seconds), ", ", so_far});
    }
    if (ec == http::error::partial_message || ec == http::error::end_of_stream ||
        ec == net::error::connection_reset || ec == net::error::eof) {
      return concat(
          {"the connection closed ", so_far, total > 0 ? "" : ", before the answer's end"});
    }
    return concat({describe(ec, options_.idle_seconds), ", ", so_far});
  }

  std::string describe(beast::error_code ec, double timeout) const {
    if (ec == beast::error::timeout) return concat({"nothing for ", secondsText(timeout)});
    return ec.message();
  }

  const DownloadOptions& options_;
  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
};

Error downloadError(std::string_view where, const Error& why) {
  std::string message = "cannot download ";
  message.append(where).append(": ").append(why.message());
  return Error(why.kind(), std::move(message));
}

}  // namespace

bool isHttpUrl(std::string_view text) {
  return text.starts_with("http://") || text.starts_with("https://");
}

Expected<TemporaryFile> downloadHeap(std::string_view url, Sink& sink,
                                     const DownloadOptions& options) {
  DownloadOptions heap = options;
  heap.expect = DownloadedKind::Heap;
  return downloadFile(url, sink, heap);
}

Expected<TemporaryFile> downloadFile(std::string_view url, Sink& sink,
                                     const DownloadOptions& options) {
  struct EndPhase {
    Sink& sink;
    ~EndPhase() { sink.endPhase(); }
  };
  sink.beginPhase("request", 0);
  const EndPhase end{sink};
  Expected<HttpUrl> parsed = parseHttpUrl(url);
  if (!parsed) {
    std::string message = "cannot read ";
    message.append(url).append(": ").append(parsed.error().message());
    return Error::needsInput(std::move(message));
  }
  HttpUrl current = parsed.take();
  // The URL as messages name it: as given, and where it led.
  std::string where(url);
  for (int redirects = 0;; redirects++) {
    Exchange exchange(options);
    if (Status s = exchange.request(current); !s) return downloadError(where, s.error());
    const unsigned status = exchange.status();
    if (isRedirect(status)) {
      if (redirects == options.max_redirects) {
        return downloadError(
            where,
            Error(concat({"more than ", std::to_string(options.max_redirects), " redirects"})));
      }
      const std::string location = exchange.header(http::field::location);
      Expected<HttpUrl> next = resolveLocation(current, location);
      if (!next) {
        std::string why = "it redirects to ";
        why.append(location.empty() ? std::string("nowhere (no Location)") : location);
        if (!location.empty()) why.append(", which goheap does not read: ");
        if (!location.empty()) why.append(next.error().message());
        return downloadError(where, Error(why));
      }
      current = next.take();
      where = std::string(url);
      where.append(" (redirected to ").append(current.text()).append(")");
      continue;
    }
    if (status != 200) {
      return downloadError(where, Error(concat({"the server answered ", exchange.refusal()})));
    }
    Expected<TemporaryFile> file = exchange.receive(sink);
    if (!file) return downloadError(where, file.error());
    return file;
  }
}

}  // namespace goheap::acquire
