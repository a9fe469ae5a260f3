// The hashes of the index cache, all XXH3 (xxHash): fast enough that
// verifying a file costs about what reading it does.
//
// A section's checksum is a small tree: XXH3-64 over the XXH3-64 of each of
// its 4 MiB blocks. A flat hash of one big section would run on one core;
// the blocks of the tree are shared out between threads.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace goheap::cache {

inline constexpr uint64_t kChecksumBlockBytes = uint64_t{4} << 20;

uint64_t hash64(std::span<const uint8_t> bytes);
// XXH3-128 with a seed, as two 64-bit halves (low, high).
std::array<uint64_t, 2> hash128(std::span<const uint8_t> bytes, uint64_t seed);

// XXH3-64 over a list of hashes: how a section's block hashes, and the
// header's and the table's, are combined into one.
uint64_t hashOfHashes(std::span<const uint64_t> hashes);

// A section's checksum, computed on the calling thread.
uint64_t sectionChecksum(std::span<const uint8_t> bytes);

// The checksums of several sections, their blocks hashed on up to `threads`
// threads (the calling one included); one thread when there is little to
// hash. The result is sectionChecksum() of each, in order.
std::vector<uint64_t> sectionChecksums(std::span<const std::span<const uint8_t>> sections,
                                       unsigned threads);

}  // namespace goheap::cache
