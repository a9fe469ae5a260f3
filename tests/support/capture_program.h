// tests/programs/captureprog run as a service would run: its heap served
// by the capture package's handler on 127.0.0.1, its temporary files in a
// folder of the test's, its report read. Every wait is bounded; the
// destructor ends it (closing its standard input, then SIGKILL).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "support/json_value.h"

namespace goheap::testing {

class CaptureProgram {
 public:
  // Starts EXE REPORT in `dir` (which it also gets as TMPDIR) and waits up
  // to 30 s for its "port N" line. started() tells whether it came up;
  // problem() why not.
  CaptureProgram(const std::string& exe, const std::string& dir);
  ~CaptureProgram();
  CaptureProgram(const CaptureProgram&) = delete;
  CaptureProgram& operator=(const CaptureProgram&) = delete;

  bool started() const { return port_ != 0; }
  const std::string& problem() const { return problem_; }
  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT" + target.
  std::string url(const std::string& target) const;
  const JsonValue& report() const { return report_; }
  // Its TMPDIR: where the handler writes each dump before sending it.
  const std::string& tmpdir() const { return tmpdir_; }
  std::string stderrText() const;

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  uint16_t port_ = 0;
  std::string tmpdir_, err_path_, problem_;
  JsonValue report_;
};

}  // namespace goheap::testing
