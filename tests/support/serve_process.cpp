#include "support/serve_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/goheap_process.h"
#include "support/live_process.h"
#include "support/json_value.h"

namespace goheap::testing {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

std::string waitUntilLoaded(uint16_t port, double seconds, const std::string& token) {
  const std::string target = "/api/status" + (token.empty() ? "" : "?token=" + token);
  const auto deadline = after(seconds);
  while (Clock::now() < deadline) {
    const HttpAnswer a = httpGet("127.0.0.1", port, target);
    if (a.status != 200) return "";
    const std::string state = JsonValue::parse(a.body)["state"].str();
    if (state != "loading") return state;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

ServeProcess::ServeProcess(const std::vector<std::string>& args, double seconds) {
  static int counter = 0;
  err_path_ = scratch().file("serve-stderr." + std::to_string(counter++));
  std::vector<std::string> words{"serve"};
  words.insert(words.end(), args.begin(), args.end());
  pid_ = spawnGoheap(words, "/dev/null", err_path_);
  if (pid_ < 0) return;

  const std::string prefix = "goheap: serving ";
  const auto deadline = after(seconds);
  while (Clock::now() < deadline) {
    const std::string err = stderrText();
    const size_t at = err.find(prefix);
    const size_t eol = at == std::string::npos ? at : err.find('\n', at);
    if (eol != std::string::npos) {
      url_ = err.substr(at + prefix.size(), eol - at - prefix.size());
      // "http://HOST:PORT/" or "http://HOST:PORT/?token=HEX"
      const size_t slash = url_.find('/', 7);
      const size_t colon = url_.rfind(':', slash);
      port_ = static_cast<uint16_t>(std::stoi(url_.substr(colon + 1, slash - colon - 1)));
      if (const size_t t = url_.find("?token="); t != std::string::npos) {
        token_ = url_.substr(t + 7);
      }
      return;
    }
    if (exitCode()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

ServeProcess::~ServeProcess() {
  if (pid_ <= 0 || exit_code_) return;
  ::kill(pid_, SIGTERM);
  if (!exitCode(5)) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::optional<int> ServeProcess::exitCode(double seconds) {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  const auto deadline = after(seconds);
  for (;;) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      // A crash shows as 128 + the signal, as a shell says it.
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool ServeProcess::alive() {
  return pid_ > 0 && !exitCode();
}

std::string ServeProcess::stderrText() const {
  std::ifstream in(err_path_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

HttpAnswer ServeProcess::get(const std::string& target, const HttpHeaders& headers) const {
  std::string with_token = target;
  if (!token_.empty()) {
    with_token += (target.find('?') == std::string::npos ? "?token=" : "&token=") + token_;
  }
  return httpGet("127.0.0.1", port_, with_token, headers);
}

std::string ServeProcess::waitLoaded(double seconds) const {
  return waitUntilLoaded(port_, seconds, token_);
}

uint64_t ServeProcess::residentBytes() const {
  return testing::residentBytes(pid_);
}

}  // namespace goheap::testing
