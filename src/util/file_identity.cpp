#include "util/file_identity.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace goheap {

namespace {

FileIdentity fromStat(const struct stat& st) {
  FileIdentity id;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.mode = st.st_mode;
  return id;
}

}  // namespace

Expected<FileIdentity> identityOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error::io(path + ": " + std::strerror(errno));
  return fromStat(st);
}

Expected<FileIdentity> identityOfDescriptor(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::io(name + ": cannot stat: " + std::strerror(errno));
  return fromStat(st);
}

std::string fileKindName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace goheap
