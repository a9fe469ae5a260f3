#include "support/scripted_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>

namespace goheap::testing {

namespace {

// Waits up to `ms` for `fd` to be readable; false on a timeout.
bool readable(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) > 0;
}

int listenOnLoopback(uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

ScriptedReply ScriptedReply::whole(std::string_view status, std::string_view headers,
                                   std::string_view body) {
  std::string bytes = "HTTP/1.1 ";
  bytes.append(status).append("\r\n").append(headers);
  if (headers.find("Transfer-Encoding") == std::string_view::npos) {
    bytes.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  bytes.append("\r\n").append(body);
  return ScriptedReply{{{std::move(bytes), 0}}, false};
}

ScriptedServer::ScriptedServer(std::vector<ScriptedReply> replies)
    : replies_(std::move(replies)) {
  listen_fd_ = listenOnLoopback(port_);
  thread_ = std::thread([this] { serve(); });
}

ScriptedServer::~ScriptedServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::string ScriptedServer::url(std::string_view target) const {
  std::string out = "http://127.0.0.1:";
  out.append(std::to_string(port_)).append(target);
  return out;
}

std::vector<std::string> ScriptedServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void ScriptedServer::serve() {
  size_t next = 0;
  while (!stop_) {
    if (!readable(listen_fd_, 50)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (next < replies_.size()) answer(fd, replies_[next++]);
    ::close(fd);
  }
}

void ScriptedServer::answer(int fd, const ScriptedReply& reply) {
  // The request's head, up to its empty line (a GET has no body).
  std::string head;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (head.find("\r\n\r\n") == std::string::npos && !stop_ &&
         std::chrono::steady_clock::now() < deadline) {
    if (!readable(fd, 50)) continue;
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    head.append(buffer, static_cast<size_t>(n));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(head);
  }
  for (const ScriptedReply::Step& step : reply.steps) {
    std::string_view bytes = step.bytes;
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the client went away
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    for (int waited = 0; waited < step.pause_ms && !stop_; waited += 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  // Held: until the client closes (a read of 0) or the server stops, at
  // most a minute.
  for (int waited = 0; reply.hold && !stop_ && waited < 60000; waited += 50) {
    if (!readable(fd, 50)) continue;
    char buffer[512];
    if (::recv(fd, buffer, sizeof buffer, 0) <= 0) break;
  }
}

uint16_t closedPort() {
  uint16_t port = 0;
  ::close(listenOnLoopback(port));
  return port;
}

}  // namespace goheap::testing
