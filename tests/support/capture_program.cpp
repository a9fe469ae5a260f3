#include "support/capture_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace goheap::testing {

namespace {

// Waits up to `seconds` for `pid` to exit; whether it did.
bool reaped(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

}  // namespace

CaptureProgram::CaptureProgram(const std::string& exe, const std::string& dir) {
  tmpdir_ = dir + "/tmp";
  err_path_ = dir + "/stderr.txt";
  const std::string report_path = dir + "/report.json";
  std::filesystem::create_directories(tmpdir_);

  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    problem_ = "pipe failed";
    return;
  }
  // The environment as it is, but TMPDIR.
  std::vector<std::string> env{"TMPDIR=" + tmpdir_};
  for (char** e = environ; *e != nullptr; e++) {
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> words{exe, report_path};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  const int spawn_error =
      ::posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  stdin_fd_ = in[1];
  if (spawn_error != 0) {
    pid_ = -1;
    ::close(out[0]);
    problem_ = "cannot run " + exe + ": " + std::strerror(spawn_error);
    return;
  }

  // "port N\n", within 30 s.
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;  // it exited
    line.append(buffer, static_cast<size_t>(n));
  }
  ::close(out[0]);
  unsigned port = 0;
  if (std::sscanf(line.c_str(), "port %u", &port) != 1 || port == 0 || port > 65535) {
    problem_ = "captureprog printed no port (\"" + line + "\"); stderr: " + stderrText();
    return;
  }
  report_ = JsonValue::parseFile(report_path);
  port_ = static_cast<uint16_t>(port);
}

CaptureProgram::~CaptureProgram() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);  // it exits when its input ends
  if (pid_ > 0 && !reaped(pid_, 10)) {
    ::kill(pid_, SIGKILL);
    reaped(pid_, 10);
  }
}

std::string CaptureProgram::url(const std::string& target) const {
  return "http://127.0.0.1:" + std::to_string(port_) + target;
}

std::string CaptureProgram::stderrText() const {
  std::ifstream in(err_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace goheap::testing
