// A file goheap makes for itself and removes when done: a heap downloaded
// from a URL, a snapshot of a live process taken for one command. It is
// created in $TMPDIR (else /tmp, else the working folder: a static goheap in
// an empty container root has no /tmp) with mode 0600, since it holds a
// process's memory, and removed by the destructor, or by SIGINT, SIGTERM and
// SIGHUP (util/signal_cleanup.h).
#pragma once

#include <string>
#include <string_view>

#include "util/error.h"
#include "util/sink.h"

namespace goheap {

class TemporaryFile {
 public:
  // A new empty file named "goheap-" + `stem` + a unique part + `suffix`
  // ("goheap-snap-1234-XXXXXX.core"), opened for writing as fd(). When it
  // goes to the working folder (no $TMPDIR, no /tmp), `sink` hears so.
  static Expected<TemporaryFile> create(std::string_view stem, std::string_view suffix,
                                        Sink& sink = nullSink());

  TemporaryFile(TemporaryFile&& other) noexcept;
  TemporaryFile& operator=(TemporaryFile&&) = delete;
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile();

  const std::string& path() const { return path_; }
  // Open for reading and writing until closeFd(); -1 after.
  int fd() const { return fd_; }
  void closeFd();

  // The folder temporary files go to: $TMPDIR when set, else /tmp when it
  // is a folder, else "." (the working folder).
  static std::string directory();

 private:
  TemporaryFile() = default;

  std::string path_;
  int fd_ = -1;
  int cleanup_slot_ = -1;
};

}  // namespace goheap
