// A buffered binary/text writer over a FILE*, for the exporters: they stream
// millions of records and must not build the whole file in memory. Writes
// are not checked one by one; finish() reports the first failure.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace goheap::exporting {

class Output {
 public:
  // `file` stays the caller's; `name` is for error messages.
  Output(std::FILE* file, std::string name);
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();

  void bytes(const void* data, size_t n);
  void text(std::string_view s) { bytes(s.data(), s.size()); }
  void u8(uint8_t v) { bytes(&v, 1); }
  void u16be(uint16_t v);
  void u32be(uint32_t v);
  void u64be(uint64_t v);
  // The word size given (4 or 8), big-endian.
  void idbe(uint64_t v, uint32_t size);

  uint64_t written() const { return written_; }
  // Flushes; an Error naming the file when any write failed.
  Status finish();

 private:
  void flush();
  std::FILE* file_;
  std::string name_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t written_ = 0;
  bool failed_ = false;
  int error_ = 0;  // errno of the first failed write
};

}  // namespace goheap::exporting
