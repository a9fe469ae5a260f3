#include "util/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>

#include "util/file_identity.h"
#include "util/signal_cleanup.h"

namespace goheap {

namespace {

mode_t currentUmask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

std::string reason(int err) {
  return std::strerror(err);
}

// The first failed write to standard output, for finishStandardOutput().
std::atomic<int> g_stdout_error{0};

}  // namespace

Status refuseInput(const std::string& path, std::span<const InputFile> inputs) {
  Expected<FileIdentity> target = identityOf(path);
  if (!target) return Status::success();  // not there yet: nobody reads it
  for (const InputFile& input : inputs) {
    Expected<FileIdentity> in = identityOf(input.path);
    if (in && in->sameFileAs(*target)) {
      std::string message = "refusing to write " + path + ": it is " + std::string(input.role);
      if (input.path != path) message += " (" + input.path + ")";
      return Error::needsInput(message + ", which this command reads; choose another file");
    }
  }
  return Status::success();
}

Expected<OutputFile> OutputFile::create(const std::string& path,
                                        std::span<const InputFile> inputs) {
  OutputFile out;
  if (path == "-") {
    out.stream_ = stdout;
    out.name_ = "standard output";
    return out;
  }
  out.name_ = path;
  if (Status s = refuseInput(path, inputs); !s) return s.error();

  std::error_code ec;
  namespace fs = std::filesystem;
  const bool exists = fs::exists(path, ec);
  Expected<FileIdentity> existing = identityOf(path);
  if (exists && existing && !S_ISREG(existing->mode)) {
    if (S_ISDIR(existing->mode)) return Error::io("cannot write " + path + ": it is a directory");
    // A FIFO, /dev/stdout, a terminal: no file to replace, written as is.
    out.stream_ = std::fopen(path.c_str(), "wb");
    if (out.stream_ == nullptr) return Error::io("cannot write " + path + ": " + reason(errno));
    out.target_ = path;
    return out;
  }
  // A file the user made read-only is not replaced behind their back, as a
  // plain open for writing would not either.
  if (exists && ::access(path.c_str(), W_OK) != 0) {
    return Error::io("cannot write " + path + ": " + reason(errno));
  }
  // Through a symbolic link, the file it names is the one replaced.
  out.target_ = exists ? fs::canonical(path, ec).string() : path;
  if (ec) out.target_ = path;
  fs::path folder = fs::path(out.target_).parent_path();
  if (folder.empty()) folder = ".";
  std::string pattern =
      (folder / ("." + fs::path(out.target_).filename().string() + ".goheap-XXXXXX")).string();
  const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) return Error::io("cannot create " + path + ": " + reason(errno));
  out.temporary_ = pattern;
  out.cleanup_slot_ = removeOnSignal(out.temporary_);
  // mkstemp makes 0600; the file gets what the user would have got from a
  // plain create, or the mode of the file it replaces.
  const mode_t mode = exists && existing ? (existing->mode & 07777) : (0666 & ~currentUmask());
  ::fchmod(fd, mode);
  out.stream_ = ::fdopen(fd, "wb");
  if (out.stream_ == nullptr) {
    const int err = errno;
    ::close(fd);
    return Error::io("cannot create " + path + ": " + reason(err));
  }
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : stream_(std::exchange(other.stream_, nullptr)),
      name_(std::move(other.name_)),
      target_(std::move(other.target_)),
      temporary_(std::exchange(other.temporary_, std::string())),
      cleanup_slot_(std::exchange(other.cleanup_slot_, -1)),
      committed_(std::exchange(other.committed_, true)) {}

OutputFile::~OutputFile() {
  if (!committed_) discard();
}

void OutputFile::discard() {
  if (stream_ != nullptr && stream_ != stdout) std::fclose(stream_);
  stream_ = nullptr;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  keepOnSignal(cleanup_slot_);
  cleanup_slot_ = -1;
}

Status OutputFile::commit() {
  committed_ = true;
  if (stream_ == stdout) {
    stream_ = nullptr;
    return finishStandardOutput();
  }
  errno = 0;
  const bool write_failed = std::ferror(stream_) != 0;
  const bool flush_failed = std::fflush(stream_) != 0;
  int err = errno;
  const bool close_failed = std::fclose(stream_) != 0;
  if (close_failed && err == 0) err = errno;
  stream_ = nullptr;
  if (write_failed || flush_failed || close_failed) {
    discard();
    return Error::io("cannot write " + name_ + ": " + (err != 0 ? reason(err) : "a write failed"));
  }
  if (!temporary_.empty()) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      err = errno;
      discard();
      return Error::io("cannot write " + name_ + ": " + reason(err));
    }
    temporary_.clear();
  }
  keepOnSignal(cleanup_slot_);
  cleanup_slot_ = -1;
  return Status::success();
}

void endOnBrokenPipe() {
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::sigprocmask(SIG_UNBLOCK, &pipe_only, nullptr);
  ::raise(SIGPIPE);
  std::_Exit(128 + SIGPIPE);
}

void writeStandardOutput(std::string_view text) {
  if (text.empty()) return;
  if (std::fwrite(text.data(), 1, text.size(), stdout) == text.size()) return;
  const int err = errno;
  if (err == EPIPE) endOnBrokenPipe();
  int none = 0;
  g_stdout_error.compare_exchange_strong(none, err != 0 ? err : EIO);
}

Status finishStandardOutput() {
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  int err = flush_failed ? errno : 0;
  if (err == EPIPE) endOnBrokenPipe();
  if (const int earlier = g_stdout_error.load(); earlier != 0) err = earlier;
  if (!flush_failed && err == 0 && std::ferror(stdout) == 0) return Status::success();
  return Error::io("cannot write standard output: " + (err != 0 ? reason(err) : "a write failed"));
}

}  // namespace goheap
