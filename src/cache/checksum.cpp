#include "cache/checksum.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace goheap::cache {

namespace {

uint64_t blockCount(uint64_t bytes) {
  return (bytes + kChecksumBlockBytes - 1) / kChecksumBlockBytes;
}

// Below this much in all, a second thread costs more than it saves.
constexpr uint64_t kParallelBytes = uint64_t{16} << 20;

}  // namespace

uint64_t hash64(std::span<const uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::array<uint64_t, 2> hash128(std::span<const uint8_t> bytes, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(bytes.data(), bytes.size(), seed);
  return {h.low64, h.high64};
}

uint64_t hashOfHashes(std::span<const uint64_t> hashes) {
  return XXH3_64bits(hashes.data(), hashes.size_bytes());
}

uint64_t sectionChecksum(std::span<const uint8_t> bytes) {
  return sectionChecksums(std::span(&bytes, 1), 1)[0];
}

std::vector<uint64_t> sectionChecksums(std::span<const std::span<const uint8_t>> sections,
                                       unsigned threads) {
  // Every block of every section is one job, numbered in order; a section's
  // block hashes are then contiguous in `hashes` from first_job[section].
  std::vector<uint64_t> first_job(sections.size() + 1, 0);
  uint64_t total_bytes = 0;
  for (size_t s = 0; s < sections.size(); ++s) {
    first_job[s + 1] = first_job[s] + blockCount(sections[s].size());
    total_bytes += sections[s].size();
  }
  std::vector<uint64_t> hashes(first_job.back());
  std::atomic<uint64_t> next_job{0};
  auto work = [&] {
    size_t section = 0;
    for (uint64_t job; (job = next_job.fetch_add(1, std::memory_order_relaxed)) < hashes.size();) {
      while (first_job[section + 1] <= job) ++section;
      const uint64_t at = (job - first_job[section]) * kChecksumBlockBytes;
      const std::span<const uint8_t> bytes = sections[section];
      hashes[job] =
          hash64(bytes.subspan(at, std::min<uint64_t>(kChecksumBlockBytes, bytes.size() - at)));
    }
  };
  const unsigned helpers =
      total_bytes >= kParallelBytes && hashes.size() > 1 ? std::max(threads, 1u) - 1 : 0;
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  std::vector<uint64_t> checksums(sections.size());
  for (size_t s = 0; s < sections.size(); ++s) {
    checksums[s] = hashOfHashes(
        std::span<const uint64_t>(hashes).subspan(first_job[s], first_job[s + 1] - first_job[s]));
  }
  return checksums;
}

}  // namespace goheap::cache
