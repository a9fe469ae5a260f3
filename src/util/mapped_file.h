// A read-only memory mapping of a whole file. Decoders read straight from it;
// object contents are never copied out of it.
//
// The file may change under us while it is mapped (a program rewriting its
// dump): the mapping is guarded against truncation (util/mapping_guard.h),
// and checkUnchanged() tells whether what was read can still be trusted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "util/error.h"
#include "util/file_identity.h"

namespace goheap {

class MappedFile {
 public:
  // Maps a regular file. Anything else (a FIFO, a directory, a device) is
  // refused at once, without blocking on it.
  static Expected<MappedFile> open(const std::string& path);
  // Maps bytes [offset, offset + size) of a regular file: a file carried
  // inside another (the executable in a core of `goheap snap -o -`).
  // path() and checkUnchanged() are the whole file's.
  static Expected<MappedFile> openPart(const std::string& path, uint64_t offset, uint64_t size);
  // Wraps memory the caller owns (tests, fuzzing); nothing is unmapped.
  static MappedFile borrow(std::span<const uint8_t> bytes, std::string name = "<memory>");

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // The file as it was when mapped (all zero for borrowed memory).
  const FileIdentity& identity() const { return identity_; }

  // An Error naming the file when what was mapped can no longer be trusted:
  // a read faulted because the file shrank, or the file at the path is not
  // the one mapped any more (another inode, size or modification time, or
  // gone). One stat(2); always fine for borrowed memory.
  Status checkUnchanged() const;

 private:
  MappedFile() = default;
  void unmap();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  // The whole mapping, which data_ and size_ may be a part of (openPart).
  const uint8_t* map_base_ = nullptr;
  size_t map_size_ = 0;
  bool owned_ = false;
  int guard_slot_ = -1;
  std::string path_;
  FileIdentity identity_;
};

}  // namespace goheap
