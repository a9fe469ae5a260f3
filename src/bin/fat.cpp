// Universal (fat) Mach-O files: a big-endian table of slices, each a whole
// Mach-O file for one CPU. goheap reads one slice: the one for the CPU it
// runs on (the one a user on this machine ran), else the first that holds
// Go code, else the first that parses.
#include <string>

#include "bin/container.h"

namespace goheap::bin {

namespace {

constexpr uint32_t kFatMagic = 0xcafebabe;
constexpr uint32_t kFatMagic64 = 0xcafebabf;
// Java class files share 0xcafebabe; their next word (versions) is large.
constexpr uint32_t kMaxSlices = 64;

constexpr uint32_t hostCpuType() {
#if defined(__x86_64__)
  return 0x01000007;
#elif defined(__aarch64__)
  return 0x0100000c;
#elif defined(__i386__)
  return 7;
#elif defined(__arm__)
  return 12;
#else
  return 0;
#endif
}

}  // namespace

bool isFatMachO(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  const ByteView be(bytes, true);
  return (be.u32(0) == kFatMagic || be.u32(0) == kFatMagic64) && be.u32(4) < kMaxSlices;
}

Expected<Container> readFatMachO(std::span<const uint8_t> bytes) {
  const ByteView f(bytes, true);
  if (!f.has(0, 8)) return Error::atOffset(0, "universal Mach-O header", "truncated header");
  const bool wide = f.u32(0) == kFatMagic64;
  const uint32_t n = f.u32(4);
  const uint64_t entry_size = wide ? 32 : 20;
  if (n == 0 || n >= kMaxSlices) {
    return Error::atOffset(4, "universal Mach-O header", std::to_string(n) + " slices");
  }
  if (!f.has(8, n * entry_size)) {
    return Error::atOffset(8, "universal Mach-O slice table", "truncated");
  }
  std::optional<Container> host, go, any;
  std::optional<Error> first_error;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = 8 + i * entry_size;
    const uint32_t cputype = f.u32(at);
    const uint64_t offset = wide ? f.u64(at + 8) : f.u32(at + 8);
    const uint64_t size = wide ? f.u64(at + 16) : f.u32(at + 12);
    if (!f.has(offset, size)) {
      if (!first_error) {
        first_error = Error::atOffset(at, "universal Mach-O slice " + std::to_string(i),
                                      "slice [" + std::to_string(offset) + ", +" +
                                          std::to_string(size) + ") runs past the end of the file");
      }
      continue;
    }
    Expected<Container> c = readMachO(bytes.subspan(offset, size));
    if (!c) {
      // The slice's own offsets are relative to it; say where it starts.
      if (!first_error) {
        first_error = Error("universal Mach-O slice " + std::to_string(i) + " at byte offset " +
                            std::to_string(offset) + ": " + c.error().message());
      }
      continue;
    }
    c->slice_offset = offset;
    if (cputype == hostCpuType() && !host) host = *c;
    if (!go && c->section("__gopclntab") != nullptr) go = *c;
    if (!any) any = *c;
  }
  if (host) return *host;
  if (go) return *go;
  if (any) return *any;
  return *first_error;
}

}  // namespace goheap::bin
