// What a file on disk is, as far as telling it apart from another file or
// from its own earlier self: device and inode name the file whatever path
// reaches it (links, "./x" against "x"), size and modification time tell
// that its contents changed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/error.h"

namespace goheap {

struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  mode_t mode = 0;

  // The same file, whatever its contents.
  bool sameFileAs(const FileIdentity& other) const {
    return device == other.device && inode == other.inode;
  }
  // The same file with (as far as stat can tell) the same contents.
  bool unchangedFrom(const FileIdentity& other) const {
    return sameFileAs(other) && size == other.size && mtime_ns == other.mtime_ns;
  }
};

// stat(2) of `path`, following symbolic links; an Error with strerror.
Expected<FileIdentity> identityOf(const std::string& path);
// fstat(2) of an open descriptor.
Expected<FileIdentity> identityOfDescriptor(int fd, const std::string& name);

// "a directory", "a FIFO (named pipe)", "a regular file", ...: for messages.
std::string fileKindName(mode_t mode);

}  // namespace goheap
