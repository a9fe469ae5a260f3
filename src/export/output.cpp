#include "export/output.h"

#include <cerrno>
#include <cstring>

#include "util/output_file.h"

namespace goheap::exporting {

namespace {
constexpr size_t kBufferSize = size_t{1} << 20;
}

Output::Output(std::FILE* file, std::string name)
    : file_(file), name_(std::move(name)), buffer_(kBufferSize) {}

Output::~Output() {
  flush();
}

void Output::flush() {
  if (used_ == 0) return;
  if (!failed_ && std::fwrite(buffer_.data(), 1, used_, file_) != used_) {
    failed_ = true;
    error_ = errno;
    // `goheap convert ... -o - | head`: the reader had enough.
    if (error_ == EPIPE && file_ == stdout) endOnBrokenPipe();
  }
  used_ = 0;
}

void Output::bytes(const void* data, size_t n) {
  written_ += n;
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    if (used_ == buffer_.size()) flush();
    const size_t take = std::min(n, buffer_.size() - used_);
    std::memcpy(buffer_.data() + used_, p, take);
    used_ += take;
    p += take;
    n -= take;
  }
}

void Output::u16be(uint16_t v) {
  const uint8_t b[2] = {static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  bytes(b, 2);
}

void Output::u32be(uint32_t v) {
  const uint8_t b[4] = {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
                        static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  bytes(b, 4);
}

void Output::u64be(uint64_t v) {
  u32be(static_cast<uint32_t>(v >> 32));
  u32be(static_cast<uint32_t>(v));
}

void Output::idbe(uint64_t v, uint32_t size) {
  if (size == 8) {
    u64be(v);
  } else {
    u32be(static_cast<uint32_t>(v));
  }
}

Status Output::finish() {
  flush();
  if (!failed_ && std::fflush(file_) != 0) {
    failed_ = true;
    error_ = errno;
    if (error_ == EPIPE && file_ == stdout) endOnBrokenPipe();
  }
  if (failed_) {
    return Error::io("cannot write " + name_ + ": " +
                     (error_ != 0 ? std::strerror(error_) : "a write failed"));
  }
  return Status::success();
}

}  // namespace goheap::exporting
