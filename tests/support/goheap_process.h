// Running the goheap binary (GOHEAP_BINARY) as a user does, for the tests
// of its command line: exit status, stdout and stderr, in a scratch
// directory of the test process's own.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace goheap::testing {

// A directory of its own for each test process (ctest runs them in parallel),
// removed at exit.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The test process's scratch directory, removed at exit.
ScratchDir& scratch();

struct RunResult {
  bool exited = false;  // false: killed by a signal (a crash)
  int code = -1;        // exit status when `exited`
  int signal = 0;
  std::string out;
  std::string err;

  std::string describe() const {
    std::string s = exited ? "exit " + std::to_string(code) : "signal " + std::to_string(signal);
    return s + "\n--- stdout ---\n" + out.substr(0, 2000) + "\n--- stderr ---\n" +
           err.substr(0, 2000);
  }
};

// Runs goheap with `args`, stdin from /dev/null, stdout and stderr captured
// through files (no pipe can fill up while we wait).
RunResult runGoheap(const std::vector<std::string>& args);
// The same with standard output sent to `stdout_path` (/dev/full, a file
// the test reads), which the result's `out` then does not hold.
RunResult runGoheap(const std::vector<std::string>& args, const std::string& stdout_path);
// The same run in the working directory `dir`, so that relative paths in
// `args` (and in what goheap prints about them) are relative to it.
RunResult runGoheapIn(const std::string& dir, const std::vector<std::string>& args);

// Starts goheap with `args` without waiting for it: stdin from /dev/null,
// stdout and stderr into the files named (created; stderr truncated, stdout
// when `truncate_out`), in `working_dir` when given. Its pid, or -1 after
// reporting a test failure.
pid_t spawnGoheap(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path, bool truncate_out = true,
                  const std::string& working_dir = "");

}  // namespace goheap::testing
