// Index files for the cache's tests: a writer with a few sections of every
// kind (8-, 4- and 12-byte elements, an empty one, a description), and
// bytes held at the 64-byte alignment IndexFile::fromBytes wants.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cache/cache_key.h"
#include "cache/index_file.h"

namespace goheap::testing {

struct Triple {
  uint32_t a;
  uint32_t b;
  uint32_t c;
};

// A writer and the arrays its sections point at.
class SampleIndex {
 public:
  // `seed` varies the values; `big_bytes` adds a section of that many bytes
  // (id 9), for files of several checksum blocks.
  explicit SampleIndex(uint64_t seed, uint64_t big_bytes = 0);
  SampleIndex(const SampleIndex&) = delete;
  SampleIndex& operator=(const SampleIndex&) = delete;

  const cache::IndexWriter& writer() const { return writer_; }
  const cache::EntryDescription& description() const { return description_; }

  std::vector<uint64_t> words;  // section 1
  std::vector<uint32_t> ids;    // section 2
  std::vector<Triple> triples;  // section 3
  std::vector<uint8_t> big;     // section 9, when asked for
                                // Section 4 is empty.

 private:
  cache::IndexWriter writer_;
  cache::EntryDescription description_;
};

// A key made from a number, for tests that need several.
cache::Key testKey(uint64_t n);

// Bytes starting at a 64-byte boundary.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(std::span<const uint8_t> bytes);
  static AlignedBytes readFile(const std::string& path);

  std::span<const uint8_t> bytes() const { return {data(), size_}; }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(blocks_.data()); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(blocks_.data()); }
  size_t size() const { return size_; }
  uint8_t& operator[](size_t i) { return data()[i]; }

 private:
  struct alignas(64) Block {
    uint8_t bytes[64];
  };
  std::vector<Block> blocks_;
  size_t size_ = 0;
};

// Recomputes the header's checksum after a test changed the header or
// table on purpose, so that the reader looks past it.
void resealHeader(AlignedBytes& file);

}  // namespace goheap::testing
