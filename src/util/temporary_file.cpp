#include "util/temporary_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "util/signal_cleanup.h"

namespace goheap {

std::string TemporaryFile::directory() {
  const char* dir = std::getenv("TMPDIR");
  if (dir != nullptr && *dir != '\0') return dir;
  struct stat st {};
  if (::stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode)) return "/tmp";
  return ".";
}

Expected<TemporaryFile> TemporaryFile::create(std::string_view stem, std::string_view suffix,
                                              Sink& sink) {
  std::string name = directory();
  if (name == ".") {
    sink.note(
        "no $TMPDIR and no /tmp: the temporary file goes to the working folder (set TMPDIR "
        "to choose one)");
  }
  name.append("/goheap-").append(stem).append("-XXXXXX").append(suffix);
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  // mkstemps makes the file with mode 0600.
  const int fd = ::mkstemps(buffer.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return Error::io("cannot create a temporary file in " + directory() + ": " +
                     std::strerror(errno) + " (set TMPDIR to a folder with room)");
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  TemporaryFile file;
  file.path_.assign(buffer.data());
  file.fd_ = fd;
  file.cleanup_slot_ = removeOnSignal(file.path_);
  return file;
}

TemporaryFile::TemporaryFile(TemporaryFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      cleanup_slot_(std::exchange(other.cleanup_slot_, -1)) {
  other.path_.clear();
}

void TemporaryFile::closeFd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

TemporaryFile::~TemporaryFile() {
  closeFd();
  if (!path_.empty()) ::unlink(path_.c_str());
  keepOnSignal(cleanup_slot_);
}

}  // namespace goheap
