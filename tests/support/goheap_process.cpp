#include "support/goheap_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace goheap::testing {

namespace fs = std::filesystem;

namespace {
std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "goheap-cli-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

ScratchDir& scratch() {
  static ScratchDir dir;
  return dir;
}

pid_t spawnGoheap(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path, bool truncate_out, const std::string& working_dir) {
  std::vector<std::string> words{GOHEAP_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                   O_WRONLY | O_CREAT | (truncate_out ? O_TRUNC : 0), 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    ADD_FAILURE() << "cannot run " << GOHEAP_BINARY << ": " << std::strerror(spawn_error);
    return -1;
  }
  return pid;
}

RunResult runGoheap(const std::vector<std::string>& args) {
  return runGoheap(args, std::string());
}

namespace {

RunResult runAndWait(const std::vector<std::string>& args, const std::string& stdout_path,
                     const std::string& working_dir) {
  static int counter = 0;
  const bool capture = stdout_path.empty();
  const std::string out_path =
      capture ? scratch().file("stdout." + std::to_string(counter)) : stdout_path;
  const std::string err_path = scratch().file("stderr." + std::to_string(counter));
  counter++;

  RunResult r;
  const pid_t pid = spawnGoheap(args, out_path, err_path, capture, working_dir);
  if (pid < 0) return r;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return r;
    }
  }
  r.exited = WIFEXITED(status);
  if (r.exited) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (capture) {
    r.out = readWholeFile(out_path);
    fs::remove(out_path);
  }
  r.err = readWholeFile(err_path);
  fs::remove(err_path);
  return r;
}

}  // namespace

RunResult runGoheap(const std::vector<std::string>& args, const std::string& stdout_path) {
  return runAndWait(args, stdout_path, "");
}

RunResult runGoheapIn(const std::string& dir, const std::vector<std::string>& args) {
  return runAndWait(args, "", dir);
}

}  // namespace goheap::testing
