// A file a command writes for the user (convert -o, report --html): written
// so that no run of goheap can lose a file the user had.
//
// - It never writes a file it reads in the same run: the target is compared
//   by device and inode, not by name, with the run's inputs (the dump, the
//   executable), so "-o c.dump", "-o ./c.dump" and a hard link are all
//   refused.
// - A regular (or new) target is written to a temporary file in its folder
//   and renamed over it only when every byte is written, with the mode the
//   old file had: a failed or interrupted run leaves the old file whole.
//   The temporary file is removed on failure, and by SIGINT, SIGTERM and
//   SIGHUP.
// - Anything else ("-", /dev/stdout, a FIFO, a terminal) is written directly.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "util/error.h"

namespace goheap {

// A file the run reads, named for messages ("the heap dump").
struct InputFile {
  std::string_view role;
  std::string path;
};

class OutputFile {
 public:
  // Prepares to write `path` ("-": standard output). An Error, naming the
  // file and the reason, when it is one of `inputs` or cannot be created.
  // Call it before the long work, so that a mistake is told at once.
  static Expected<OutputFile> create(const std::string& path, std::span<const InputFile> inputs);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Without commit(): the temporary file is removed, the target untouched.
  ~OutputFile();

  std::FILE* stream() const { return stream_; }
  // The path as given, or "standard output": for messages.
  const std::string& name() const { return name_; }

  // Flushes and checks every write, then puts the file in place. An Error
  // naming the file and strerror(3). A reader of standard output that went
  // away (EPIPE) ends the process quietly, as SIGPIPE would.
  Status commit();

 private:
  OutputFile() = default;
  void discard();

  std::FILE* stream_ = nullptr;
  std::string name_;
  std::string target_;     // where the file ends up
  std::string temporary_;  // empty when written directly
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

// Whether `path` is one of `inputs` (same device and inode); an
// Error::needsInput saying so, naming both, when it is (the user chooses
// another file).
Status refuseInput(const std::string& path, std::span<const InputFile> inputs);

// Ends the process as SIGPIPE would (quietly, status 141): for a write that
// failed with EPIPE because the reader, `head` say, had enough.
[[noreturn]] void endOnBrokenPipe();

// Writes to standard output, remembering the first failure for
// finishStandardOutput() (stdio forgets its errno); EPIPE ends quietly.
void writeStandardOutput(std::string_view text);
// Flushes standard output: an Error naming it with strerror(3) when any
// write to it failed (a full disk, /dev/full); EPIPE ends quietly.
Status finishStandardOutput();

}  // namespace goheap
