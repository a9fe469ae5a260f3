#include "core/core_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "bin/elf.h"
#include "util/format.h"

namespace goheap::core {

bool isElfCore(std::span<const uint8_t> bytes) {
  if (!bin::isElf(bytes) || bytes.size() < 18) return false;
  const bool big = bytes[5] == 2;
  const uint16_t type = big ? static_cast<uint16_t>(bytes[16] << 8 | bytes[17])
                            : static_cast<uint16_t>(bytes[17] << 8 | bytes[16]);
  return (bytes[4] == 1 || bytes[4] == 2) && (bytes[5] == 1 || big) && type == bin::kElfTypeCore;
}

std::optional<uint64_t> CoreFile::aux(uint64_t type) const {
  for (const AuxEntry& e : notes_.auxv) {
    if (e.type == type) return e.value;
  }
  return std::nullopt;
}

Expected<CoreFile> CoreFile::open(const std::string& path) {
  GOHEAP_TRY(auto mapped, MappedFile::open(path));
  auto core = read(std::make_unique<MappedFile>(std::move(mapped)));
  if (!core) return core.error().inFile(path);
  return core;
}

Expected<CoreFile> CoreFile::fromBytes(std::span<const uint8_t> bytes, std::string name) {
  return read(std::make_unique<MappedFile>(MappedFile::borrow(bytes, std::move(name))));
}

Expected<CoreFile> CoreFile::read(std::unique_ptr<MappedFile> file) {
  const std::span<const uint8_t> bytes = file->bytes();
  if (!bin::isElf(bytes)) return Error::atOffset(0, "ELF header", "not an ELF file");
  GOHEAP_TRY(const bin::ElfHeader h, bin::readElfHeader(bytes));
  if (h.type != bin::kElfTypeCore) {
    return Error::atOffset(16, "ELF header",
                           "e_type " + std::to_string(h.type) + " is not a core file (ET_CORE, 4)");
  }
  GOHEAP_TRY(auto phdrs, bin::readElfProgramHeaders(h));

  CoreFile c;
  c.file_ = std::move(file);
  c.machine_ = h.machine;
  c.arch_ = bin::elfGoArch(h.machine, h.is64);
  c.words_ = WordReader(h.is64 ? 8 : 4, h.file.bigEndian());
  const bin::ByteView& f = h.file;
  uint64_t truncated_segments = 0, omitted_segments = 0;
  std::string first_truncated;
  for (const bin::ElfProgramHeader& ph : phdrs) {
    if (ph.type == bin::kPtNote) {
      const uint64_t align = ph.align == 8 ? 8 : 4;
      Status s = readNotes(f, ph.offset, ph.filesz, align, h.machine, h.is64, c.notes_);
      if (!s) return s.error();
      continue;
    }
    if (ph.type != bin::kPtLoad || ph.memsz == 0) continue;
    if (ph.vaddr + ph.memsz < ph.vaddr) {
      return Error::atOffset(ph.at, "PT_LOAD",
                             "segment at " + formatHex(ph.vaddr) + " of " +
                                 std::to_string(ph.memsz) +
                                 " bytes wraps around the address space");
    }
    if (ph.filesz > ph.memsz) {
      return Error::atOffset(ph.at, "PT_LOAD",
                             "segment at " + formatHex(ph.vaddr) + " holds " +
                                 std::to_string(ph.filesz) + " bytes in the file, more than its " +
                                 std::to_string(ph.memsz) + " bytes of memory");
    }
    CoreSegment s;
    s.vaddr = ph.vaddr;
    s.memsz = ph.memsz;
    s.filesz = ph.filesz;
    s.offset = ph.offset;
    s.flags = ph.flags;
    const uint64_t present =
        ph.offset >= bytes.size() ? 0 : std::min<uint64_t>(ph.filesz, bytes.size() - ph.offset);
    if (present > 0) s.bytes = bytes.subspan(ph.offset, present);
    if (present < ph.filesz) {
      if (truncated_segments++ == 0) {
        first_truncated = "the first at " + formatHex(ph.vaddr) + " (program header at byte " +
                          std::to_string(ph.at) + ") lacks " + std::to_string(ph.filesz - present) +
                          " of its " + std::to_string(ph.filesz) + " bytes";
      }
      c.truncated_bytes_ += ph.filesz - present;
    }
    if (ph.filesz < ph.memsz) {
      ++omitted_segments;
      c.omitted_bytes_ += ph.memsz - ph.filesz;
    }
    c.segments_.push_back(s);
  }
  std::sort(c.segments_.begin(), c.segments_.end(),
            [](const CoreSegment& a, const CoreSegment& b) { return a.vaddr < b.vaddr; });
  for (size_t i = 1; i < c.segments_.size(); ++i) {
    const CoreSegment& a = c.segments_[i - 1];
    const CoreSegment& b = c.segments_[i];
    if (b.vaddr < a.end()) {
      return Error::atOffset(b.offset, "PT_LOAD",
                             "segment at " + formatHex(b.vaddr) + " overlaps the one at " +
                                 formatHex(a.vaddr) + " (to " + formatHex(a.end()) + ")");
    }
  }
  if (c.notes_.snap && c.notes_.snap->untouched_is_zero) c.assembleSnapMemory(omitted_segments);
  if (truncated_segments > 0) {
    c.warnings_.push_back(
        "the core is cut short: " + std::to_string(truncated_segments) +
        " segment(s) run past the end of the file (" + std::to_string(bytes.size()) + " bytes), " +
        std::to_string(c.truncated_bytes_) + " bytes missing; " + first_truncated);
  }
  if (omitted_segments > 0) {
    c.warnings_.push_back(std::to_string(omitted_segments) + " segment(s) leave out " +
                          std::to_string(c.omitted_bytes_) +
                          " bytes of memory (the dumper does not write unmodified file-backed "
                          "mappings nor inaccessible reservations; the executable's read-only "
                          "segments stand in for its own)");
  }
  return c;
}

void CoreFile::assembleSnapMemory(uint64_t& omitted_segments) {
  constexpr uint64_t kPage = 4096;
  // Each piece mapped from the file costs the process two kernel mappings
  // (its own, and the split of the reservation around it), and a process
  // may have some 65,000 (vm.max_map_count): past this many pieces in all,
  // runs of pieces (a snap of a sparse heap, one touched page in 16) are
  // copied into their run's one mapping instead.
  constexpr size_t kMostPiecesMapped = 8192;
  size_t pieces_mapped = 0;
  auto isZero = [](const CoreSegment& s) { return s.writable() && s.filesz == 0; };
  auto eligible = [&](const CoreSegment& s) { return isZero(s) || s.bytes.size() == s.memsz; };
  // The file again, to map its pieces in place; a core in memory is copied.
  const int fd =
      path().empty() || path().front() == '<' ? -1 : ::open(path().c_str(), O_RDONLY | O_CLOEXEC);
  for (size_t i = 0; i < segments_.size();) {
    if (!eligible(segments_[i])) {
      i++;
      continue;
    }
    size_t j = i + 1;
    while (j < segments_.size() && eligible(segments_[j]) &&
           segments_[j].vaddr == segments_[j - 1].end()) {
      j++;
    }
    bool has_zero = false;
    for (size_t k = i; k < j; k++) has_zero |= isZero(segments_[k]);
    const uint64_t start = segments_[i].vaddr;
    const uint64_t size = segments_[j - 1].end() - start;
    // More than a 64-bit address space holds is a corrupt core, not a snap.
    std::unique_ptr<AssembledMemory> memory = (j - i > 1 || has_zero) && size < (uint64_t{1} << 46)
                                                  ? AssembledMemory::reserve(size)
                                                  : nullptr;
    if (!memory) {
      if (j - i > 1 || has_zero) {
        warnings_.push_back("no address space to assemble the " + std::to_string(size) +
                            " bytes at " + formatHex(start) + "; their zero pages read as missing");
      }
      i = j;
      continue;
    }
    std::vector<AssembledMemory::Piece> pieces;
    for (size_t k = i; k < j; k++) {
      const CoreSegment& s = segments_[k];
      if (!isZero(s)) pieces.push_back({s.vaddr - start, s.bytes, s.offset});
    }
    if (pieces_mapped + pieces.size() > kMostPiecesMapped) {
      if (!memory->placeCopies(pieces, fd)) {
        warnings_.push_back("cannot assemble the " + std::to_string(size) + " bytes at " +
                            formatHex(start) + ": some of them read as zero");
      }
    } else {
      for (const AssembledMemory::Piece& p : pieces) {
        const bool mapped = fd >= 0 && p.at % kPage == 0 && p.offset % kPage == 0 &&
                            p.bytes.size() % kPage == 0 &&
                            memory->placeFile(p.at, fd, p.offset, p.bytes.size());
        if (!mapped) memory->placeCopy(p.at, p.bytes);
        pieces_mapped += mapped ? 1 : 0;
      }
    }
    std::shared_ptr<const AssembledMemory> shared = std::move(memory);
    for (size_t k = i; k < j; k++) {
      CoreSegment& s = segments_[k];
      s.bytes = shared->bytes().subspan(s.vaddr - start, s.memsz);
      if (isZero(s)) {
        s.zero = true;
        --omitted_segments;
        omitted_bytes_ -= s.memsz;
      }
    }
    assembled_.push_back(std::move(shared));
    i = j;
  }
  if (fd >= 0) ::close(fd);
}

}  // namespace goheap::core
