#include "support/live_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace goheap::testing {

LiveProcess::LiveProcess(const std::vector<std::string>& argv, const std::string& dir) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  pid_ = pid;
  to_child_ = in[1];
  from_child_ = out[0];
}

LiveProcess::~LiveProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
}

std::string LiveProcess::readLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const size_t eol = buffered_.find('\n');
    if (eol != std::string::npos) {
      std::string line = buffered_.substr(0, eol);
      buffered_.erase(0, eol + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || from_child_ < 0) return "";
    pollfd p{from_child_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(from_child_, buffer, sizeof buffer);
    if (n <= 0) return "";
    buffered_.append(buffer, static_cast<size_t>(n));
  }
}

bool LiveProcess::writeLine(const std::string& line) {
  const std::string text = line + "\n";
  return to_child_ >= 0 &&
         ::write(to_child_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

int LiveProcess::finish(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  if (to_child_ >= 0) ::close(to_child_);
  to_child_ = -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool LiveProcess::running() const {
  if (pid_ <= 0) return false;
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("State:", 0) == 0) return line.find('Z') == std::string::npos;
  }
  return false;
}

namespace {

// What is wrong in one status file, "" when nothing.
std::string checkStatus(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";  // a thread that ended meanwhile
  std::string line, wrong;
  while (std::getline(in, line)) {
    const bool pending = line.rfind("SigPnd:", 0) == 0 || line.rfind("ShdPnd:", 0) == 0;
    if (pending &&
        line.find_first_not_of("0", line.find_first_not_of(" \t", 7)) != std::string::npos) {
      wrong += path + ": " + line + "\n";
    }
    if (line.rfind("State:", 0) == 0 &&
        (line.find(" t ") != std::string::npos || line.find(" T ") != std::string::npos ||
         line.find("(stopped)") != std::string::npos ||
         line.find("(tracing stop)") != std::string::npos)) {
      wrong += path + ": " + line + "\n";
    }
  }
  return wrong;
}

}  // namespace

std::string leftAsFound(pid_t pid) {
  const std::string base = "/proc/" + std::to_string(pid);
  std::string wrong = checkStatus(base + "/status");
  if (DIR* d = ::opendir((base + "/task").c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      wrong += checkStatus(base + "/task/" + e->d_name + "/status");
    }
    ::closedir(d);
  }
  return wrong;
}

uint64_t residentBytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmRSS:")) return std::stoull(line.substr(6)) * 1024;  // "  1234 kB"
  }
  return 0;
}

uint64_t writableMappingBytes(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  uint64_t total = 0;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    if (perms.size() < 2 || perms[1] != 'w') continue;
    const size_t dash = range.find('-');
    const uint64_t start = std::strtoull(range.substr(0, dash).c_str(), nullptr, 16);
    const uint64_t end = std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16);
    total += end - start;
  }
  return total;
}

}  // namespace goheap::testing
