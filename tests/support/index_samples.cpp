#include "support/index_samples.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cache/checksum.h"

namespace goheap::testing {

SampleIndex::SampleIndex(uint64_t seed, uint64_t big_bytes) {
  for (uint64_t i = 0; i < 300; ++i) words.push_back(i * 0x9e3779b97f4a7c15 + seed);
  for (uint32_t i = 0; i < 77; ++i) ids.push_back(i * 3 + static_cast<uint32_t>(seed));
  for (uint32_t i = 0; i < 5; ++i) triples.push_back({i, i + 1, static_cast<uint32_t>(seed)});
  for (uint64_t i = 0; i < big_bytes; ++i) big.push_back(static_cast<uint8_t>(i * 131 + seed));
  writer_.addArray<uint64_t>(1, words);
  writer_.addArray<uint32_t>(2, ids);
  writer_.addArray<Triple>(3, triples);
  writer_.add(4, 16, {});
  if (big_bytes > 0) writer_.addArray<uint8_t>(9, big);
  description_.input_path = "/heaps/server-" + std::to_string(seed) + ".dump";
  description_.input_size = 1000 + seed;
  description_.input_mtime_ns = 1700000000000000000 + static_cast<int64_t>(seed);
  description_.exe_path = "/bin/server";
  description_.goheap_version = "0.1.0";
  description_.created_ns = 1700000001000000000;
  writer_.setDescription(description_);
}

cache::Key testKey(uint64_t n) {
  cache::Key key;
  for (size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<uint8_t>(n + i * 7);
  return key;
}

AlignedBytes::AlignedBytes(std::span<const uint8_t> bytes)
    : blocks_((bytes.size() + sizeof(Block) - 1) / sizeof(Block)), size_(bytes.size()) {
  if (!bytes.empty()) std::memcpy(data(), bytes.data(), bytes.size());
}

AlignedBytes AlignedBytes::readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  return AlignedBytes(bytes);
}

void resealHeader(AlignedBytes& file) {
  using namespace cache::index_layout;
  uint32_t count = 0;
  std::memcpy(&count, file.data() + kSectionCountOffset, sizeof count);
  const std::span<const uint8_t> all = file.bytes();
  // A count made too big on purpose: the reader refuses it before the checksum.
  const uint64_t table = std::min<uint64_t>(count * kTableEntryBytes, all.size() - kHeaderBytes);
  const uint64_t parts[] = {cache::hash64(all.first(kChecksumOffset)),
                            cache::hash64(all.subspan(kHeaderBytes, table))};
  const uint64_t sum = cache::hashOfHashes(parts);
  std::memcpy(file.data() + kChecksumOffset, &sum, sizeof sum);
}

}  // namespace goheap::testing
