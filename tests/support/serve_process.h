// `goheap serve` run as a user runs it (the real binary, GOHEAP_BINARY), for
// the tests that need a process of its own: its exit status, the URL line
// it prints, its memory, its surviving a dump cut short under it. Every
// wait is bounded; the destructor stops the server (SIGTERM, then SIGKILL).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/http_client.h"

namespace goheap::testing {

// Polls /api/status of the server on 127.0.0.1:`port` until its state is
// no longer "loading" (up to `seconds`): "ready", "failed", or "" when it
// did not answer or did not finish in time. `token`: its access token.
std::string waitUntilLoaded(uint16_t port, double seconds = 120, const std::string& token = "");

class ServeProcess {
 public:
  // Starts `goheap serve ARGS...` (stdout to /dev/null, stderr to a file)
  // and waits up to `seconds` for its "goheap: serving URL" line or its exit.
  explicit ServeProcess(const std::vector<std::string>& args, double seconds = 30);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // It printed where it serves (and has not exited).
  bool serving() const { return port_ != 0; }
  // Its exit status, if it exited (waiting up to `seconds` for it).
  std::optional<int> exitCode(double seconds = 0);
  bool alive();

  const std::string& url() const { return url_; }  // "http://127.0.0.1:PORT/[?token=...]"
  uint16_t port() const { return port_; }
  const std::string& token() const { return token_; }  // empty without --allow-remote
  std::string stderrText() const;
  pid_t pid() const { return pid_; }

  // GET on 127.0.0.1, with ?token= added when the server has one.
  HttpAnswer get(const std::string& target, const HttpHeaders& headers = {}) const;
  // waitUntilLoaded() for this server.
  std::string waitLoaded(double seconds = 120) const;
  // VmRSS from /proc/PID/status; 0 if it cannot be read.
  uint64_t residentBytes() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::string err_path_;
  std::string url_, token_;
  uint16_t port_ = 0;
};

}  // namespace goheap::testing
