// A test program left running for goheap snap: started with pipes on its
// stdin and stdout (zoo's live mode answers "ping" with "pong"), killed when
// the test is done with it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace goheap::testing {

class LiveProcess {
 public:
  // Starts `argv` (argv[0] the executable) in `dir`.
  LiveProcess(const std::vector<std::string>& argv, const std::string& dir);
  ~LiveProcess();
  LiveProcess(const LiveProcess&) = delete;
  LiveProcess& operator=(const LiveProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }
  // The next line of its stdout, "" after `timeout` or at its end.
  std::string readLine(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Writes `line` and a newline to its stdin; false when it cannot.
  bool writeLine(const std::string& line);
  // Closes its stdin and waits for it (at most `timeout`, then kills it):
  // its exit status, or -1 when it had to be killed or died of a signal.
  int finish(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Whether it is still there (not exited, not a zombie).
  bool running() const;

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffered_;
};

// The fields of /proc/PID/status and of each /proc/PID/task/TID/status that
// say the process was left as it was found: every pending-signal mask
// (SigPnd, ShdPnd) zero and no thread stopped (State t or T). "" when so,
// else what is wrong.
std::string leftAsFound(pid_t pid);

// The total size of the writable mappings in /proc/PID/maps: what gcore
// writes, at least.
uint64_t writableMappingBytes(pid_t pid);

// VmRSS from /proc/PID/status, in bytes; 0 if it cannot be read.
uint64_t residentBytes(pid_t pid);

}  // namespace goheap::testing
