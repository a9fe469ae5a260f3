#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "util/format.h"
#include "util/mapping_guard.h"

namespace goheap {

Expected<MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever;
  // the fstat below then refuses it. It does not affect a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Error::io(path + ": cannot open: " + std::strerror(errno));
  Expected<FileIdentity> id = identityOfDescriptor(fd, path);
  if (!id) {
    ::close(fd);
    return id.error();
  }
  if (!S_ISREG(id->mode)) {
    ::close(fd);
    return Error(path + ": is " + fileKindName(id->mode) +
                 ", not a regular file; goheap reads dumps and executables from files (save it "
                 "to one first)");
  }
  MappedFile file;
  file.path_ = path;
  file.identity_ = *id;
  file.size_ = static_cast<size_t>(id->size);
  if (file.size_ > 0) {
    void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return Error::io(path + ": cannot map: " + std::strerror(err));
    }
    // The reader makes one forward pass; tell the kernel to read ahead.
    ::madvise(p, file.size_, MADV_SEQUENTIAL);
    file.data_ = static_cast<const uint8_t*>(p);
    file.map_base_ = file.data_;
    file.map_size_ = file.size_;
    file.owned_ = true;
    file.guard_slot_ = mapping_guard::guard(p, file.size_);
  }
  ::close(fd);
  return file;
}

Expected<MappedFile> MappedFile::openPart(const std::string& path, uint64_t offset, uint64_t size) {
  Expected<MappedFile> file = open(path);
  if (!file) return file.error();
  if (offset > file->size_ || size > file->size_ - offset) {
    return Error::atOffset(offset, path,
                           "a part of " + std::to_string(size) +
                               " bytes runs past the end of the "
                               "file (" +
                               std::to_string(file->size_) + " bytes)");
  }
  file->data_ += offset;
  file->size_ = static_cast<size_t>(size);
  return file;
}

MappedFile MappedFile::borrow(std::span<const uint8_t> bytes, std::string name) {
  MappedFile file;
  file.data_ = bytes.data();
  file.size_ = bytes.size();
  file.path_ = std::move(name);
  return file;
}

Status MappedFile::checkUnchanged() const {
  if (!owned_) return Status::success();
  if (mapping_guard::faulted(guard_slot_)) {
    return Error(path_ + ": the file was truncated while goheap was reading it (it was " +
                 formatBytes(identity_.size) + ")");
  }
  Expected<FileIdentity> now = identityOf(path_);
  if (!now) return Error(path_ + ": the file is gone since goheap opened it");
  if (!now->sameFileAs(identity_)) return Error(path_ + ": the file was replaced by another");
  if (now->size != identity_.size) {
    return Error(path_ + ": the file changed size since goheap opened it (" +
                 formatBytes(identity_.size) + ", now " + formatBytes(now->size) + ")");
  }
  if (now->mtime_ns != identity_.mtime_ns) {
    return Error(path_ + ": the file was rewritten since goheap opened it");
  }
  return Status::success();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      map_base_(std::exchange(other.map_base_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      owned_(std::exchange(other.owned_, false)),
      guard_slot_(std::exchange(other.guard_slot_, -1)),
      path_(std::move(other.path_)),
      identity_(other.identity_) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    map_base_ = std::exchange(other.map_base_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    owned_ = std::exchange(other.owned_, false);
    guard_slot_ = std::exchange(other.guard_slot_, -1);
    path_ = std::move(other.path_);
    identity_ = other.identity_;
  }
  return *this;
}

MappedFile::~MappedFile() {
  unmap();
}

void MappedFile::unmap() {
  if (!owned_) return;
  mapping_guard::release(guard_slot_);
  guard_slot_ = -1;
  ::munmap(const_cast<uint8_t*>(map_base_), map_size_);
  owned_ = false;
}

}  // namespace goheap
