#include "core/memory_image.h"

#include <algorithm>

#include "util/format.h"

namespace goheap::core {

MemoryImage::MemoryImage(const CoreFile& core) : core_(&core), words_(core.words()) {
  for (const CoreSegment& s : core.segments()) {
    if (s.bytes.empty()) continue;
    // Segments adjacent in both the process and goheap's memory (a snap
    // core's, assembled: core_file.h) are one range, so that a read may
    // straddle them as it could in the process.
    if (!core_ranges_.empty() && core_ranges_.back().end == s.vaddr &&
        core_ranges_.back().data + (core_ranges_.back().end - core_ranges_.back().start) ==
            s.bytes.data()) {
      core_ranges_.back().end += s.bytes.size();
      continue;
    }
    core_ranges_.push_back({s.vaddr, s.vaddr + s.bytes.size(), s.bytes.data(), MemorySource::Core});
  }
}

MemoryImage::MemoryImage(const CoreFile& core, const bin::Container& exe, uint64_t bias)
    : MemoryImage(core) {
  bias_ = bias;
  const bin::ByteView& f = exe.file;
  for (const bin::Segment& s : exe.segments) {
    if (s.writable || s.filesz == 0 || !f.has(s.offset, s.filesz)) continue;
    const uint64_t start = s.vaddr + bias;
    if (start + s.filesz < start) continue;  // wraps: no address maps it
    exe_ranges_.push_back(
        {start, start + s.filesz, f.bytes().data() + s.offset, MemorySource::Executable});
  }
  std::sort(exe_ranges_.begin(), exe_ranges_.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  // Overlapping segments (a corrupt executable) keep the first.
  std::vector<Range> disjoint;
  for (const Range& r : exe_ranges_) {
    if (!disjoint.empty() && r.start < disjoint.back().end) continue;
    disjoint.push_back(r);
  }
  exe_ranges_ = std::move(disjoint);
}

const MemoryImage::Range* MemoryImage::findIn(const std::vector<Range>& ranges, uint64_t addr,
                                              uint64_t n) {
  // The last range starting at or before addr.
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == ranges.begin()) return nullptr;
  const Range& r = *(it - 1);
  if (addr >= r.end || n > r.end - addr) return nullptr;
  return &r;
}

const MemoryImage::Range* MemoryImage::find(uint64_t addr, uint64_t n) const {
  if (const Range* r = findIn(core_ranges_, addr, n)) return r;
  return findIn(exe_ranges_, addr, n);
}

std::string MemoryImage::whyMissing(uint64_t addr, uint64_t n) const {
  std::string m = formatHex(addr) + " (" + std::to_string(n) + " bytes) is not in the core";
  const auto& segs = core_->segments();
  auto it = std::upper_bound(segs.begin(), segs.end(), addr,
                             [](uint64_t a, const CoreSegment& s) { return a < s.vaddr; });
  if (it == segs.begin() || addr >= (it - 1)->end()) {
    return m + ": no segment of the process maps it";
  }
  const CoreSegment& s = *(it - 1);
  const std::string where = "its segment " + formatHex(s.vaddr) + "-" + formatHex(s.end());
  if (addr - s.vaddr < s.bytes.size()) {
    return m + ": it runs past the end of " + where;
  }
  if (s.bytes.size() < s.filesz) {
    return m + ": the file is cut short before it (" + where + ")";
  }
  return m + ": " + where + " leaves it out" +
         (exe_ranges_.empty() ? " (give the executable to read file-backed memory)"
                              : ", and the executable's read-only segments do not hold it");
}

Expected<std::span<const uint8_t>> MemoryImage::read(uint64_t addr, uint64_t n) const {
  const Range* r = find(addr, n);
  if (r == nullptr) return Error(whyMissing(addr, n));
  return std::span<const uint8_t>(r->data + (addr - r->start), n);
}

Expected<uint64_t> MemoryImage::readUint(uint64_t addr, uint32_t width) const {
  if (width != 4 && width != 8) return Error("integers of " + std::to_string(width) + " bytes");
  GOHEAP_TRY(auto bytes, read(addr, width));
  return WordReader(width, words_.bigEndian()).read(bytes.data());
}

Expected<uint64_t> MemoryImage::readWord(uint64_t addr) const {
  return readUint(addr, words_.ptrSize());
}

std::optional<MemorySource> MemoryImage::sourceOf(uint64_t addr) const {
  const Range* r = find(addr, 1);
  if (r == nullptr) return std::nullopt;
  return r->source;
}

}  // namespace goheap::core
