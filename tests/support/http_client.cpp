#include "support/http_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace goheap::testing {

namespace {

bool sameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string HttpAnswer::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (sameName(n, name)) return v;
  }
  return {};
}

HttpConnection::HttpConnection(const std::string& host, uint16_t port, double timeout_seconds)
    : host_(host), port_(port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout_seconds);
    tv.tv_usec = static_cast<suseconds_t>(std::fmod(timeout_seconds, 1.0) * 1e6);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    // Each request goes out in one write, so Nagle's algorithm would not
    // delay it anyway; off, a delay measured is the server's.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
}

HttpConnection::~HttpConnection() {
  close();
}

void HttpConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string HttpConnection::hostHeader() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

bool HttpConnection::send(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return bytes.empty();
}

bool HttpConnection::fill() {
  if (fd_ < 0) return false;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffered_.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

HttpAnswer HttpConnection::readAnswer(bool head_request) {
  size_t end;
  while ((end = buffered_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) return {};
  }
  const std::string head = buffered_.substr(0, end);
  buffered_.erase(0, end + 4);

  HttpAnswer answer;
  size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);  // "HTTP/1.1 200 OK"
  const size_t space = status_line.find(' ');
  if (space == std::string::npos) return {};
  answer.status = std::atoi(status_line.c_str() + space + 1);
  while (line_end != std::string::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line =
        head.substr(start, line_end == std::string::npos ? line_end : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    answer.headers.emplace_back(line.substr(0, colon), value);
  }
  if (head_request || answer.status == 204 || answer.status == 304) return answer;

  if (sameName(answer.header("Transfer-Encoding"), "chunked")) {
    for (;;) {
      size_t eol;
      while ((eol = buffered_.find("\r\n")) == std::string::npos) {
        if (!fill()) return {};
      }
      const size_t size = std::strtoul(buffered_.c_str(), nullptr, 16);
      buffered_.erase(0, eol + 2);
      while (buffered_.size() < size + 2) {
        if (!fill()) return {};
      }
      answer.body.append(buffered_, 0, size);
      buffered_.erase(0, size + 2);
      if (size == 0) return answer;
    }
  }
  const std::string length = answer.header("Content-Length");
  if (length.empty()) {  // the body runs to the end of the connection
    while (fill()) {
    }
    answer.body = std::move(buffered_);
    buffered_.clear();
    return answer;
  }
  const size_t size = std::strtoul(length.c_str(), nullptr, 10);
  while (buffered_.size() < size) {
    if (!fill()) return {};
  }
  answer.body = buffered_.substr(0, size);
  buffered_.erase(0, size);
  return answer;
}

HttpAnswer HttpConnection::request(const std::string& method, const std::string& target,
                                   const HttpHeaders& headers, const std::string& body) {
  std::string text = method + " " + target + " HTTP/1.1\r\n";
  const bool has_host = std::any_of(headers.begin(), headers.end(),
                                    [](const auto& h) { return sameName(h.first, "Host"); });
  if (!has_host) text += "Host: " + hostHeader() + "\r\n";
  for (const auto& [name, value] : headers) text += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST" || method == "PUT") {
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  text += "\r\n" + body;
  if (!send(text)) return {};
  return readAnswer(method == "HEAD");
}

HttpAnswer httpGet(const std::string& host, uint16_t port, const std::string& target,
                   const HttpHeaders& headers) {
  HttpConnection c(host, port);
  return c.get(target, headers);
}

}  // namespace goheap::testing
