// A read-only memory mapping of a whole file. Decoders read straight from it;
// object contents are never copied out of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "util/error.h"

namespace goheap {

class MappedFile {
 public:
  static Expected<MappedFile> open(const std::string& path);
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

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool owned_ = false;
  std::string path_;
};

}  // namespace goheap
