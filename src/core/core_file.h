// core::CoreFile: an ELF core file of a Linux process (the kernel's, gdb's
// gcore, qemu-user's), mapped, not copied: its memory segments (PT_LOAD)
// and its notes (threads and registers, the program's name, the files
// mapped, the auxiliary vector). 64- and 32-bit, either byte order.
//
// A core may be cut short (gcore interrupted, a full disk): a segment that
// runs past the end of the file keeps the bytes that are there, and
// warnings() says how many are missing. Memory the kernel leaves out
// (unmodified file-backed mappings such as the executable's text and
// read-only data) has memsz > filesz; core::MemoryImage reads it from the
// executable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/notes.h"
#include "util/assembled_memory.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/word_reader.h"

namespace goheap::core {

// True when `bytes` start with the ELF magic and the header says ET_CORE
// (either byte order, either class).
bool isElfCore(std::span<const uint8_t> bytes);

struct CoreSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t filesz = 0;  // as the program header says
  uint64_t offset = 0;  // in the file
  uint32_t flags = 0;   // PF_R 4, PF_W 2, PF_X 1
  // The bytes the file holds: the first min(filesz, what the file has) of
  // the segment's memory.
  std::span<const uint8_t> bytes;
  // Memory a snap core promises is zero (core/snap_note.h).
  bool zero = false;

  uint64_t end() const { return vaddr + memsz; }
  bool readable() const { return (flags & 4) != 0; }
  bool writable() const { return (flags & 2) != 0; }
  bool executable() const { return (flags & 1) != 0; }
  // Bytes of memory the file does not hold: left out by the dumper, or cut off.
  uint64_t missing() const { return memsz - bytes.size(); }
};

class CoreFile {
 public:
  // Maps and reads a core file.
  static Expected<CoreFile> open(const std::string& path);
  // The same over bytes the caller keeps alive (tests, fuzzing).
  static Expected<CoreFile> fromBytes(std::span<const uint8_t> bytes,
                                      std::string name = "<memory>");

  const std::string& path() const { return file_->path(); }
  const MappedFile& file() const { return *file_; }
  uint16_t machine() const { return machine_; }  // e_machine
  // GOARCH spelling: "amd64", "arm64", "s390x", "arm", "386", ... "unknown".
  const std::string& arch() const { return arch_; }
  bool is64() const { return words_.ptrSize() == 8; }
  uint32_t ptrSize() const { return words_.ptrSize(); }
  bool bigEndian() const { return words_.bigEndian(); }
  // Reads the process's words: its pointer size and byte order.
  const WordReader& words() const { return words_; }

  // The PT_LOAD segments by address (none overlap; empty ones are dropped).
  const std::vector<CoreSegment>& segments() const { return segments_; }
  const std::vector<Thread>& threads() const { return notes_.threads; }
  const std::optional<ProcessInfo>& process() const { return notes_.process; }
  // NT_FILE's mappings; empty when the core has none (qemu-user's cores).
  const std::vector<FileMapping>& files() const { return notes_.files; }
  const std::vector<AuxEntry>& auxv() const { return notes_.auxv; }
  // The note of a core `goheap snap` wrote, if this is one.
  const std::optional<SnapNote>& snapNote() const { return notes_.snap; }
  // The executable a core of `goheap snap -o -` carries: where it is in the
  // file (Binary::openPart reads it).
  const std::optional<CoreNotes::FileRange>& carriedExecutable() const {
    return notes_.carried_executable;
  }
  // A snap core's memory put back together where it split a mapping of the
  // process (util/assembled_memory.h): the segments of each run of adjacent
  // ones view one of these, not the file. Shared, so that a model made from
  // the core can keep views of it.
  const std::vector<std::shared_ptr<const AssembledMemory>>& assembled() const {
    return assembled_;
  }
  // The value of auxiliary vector entry `type` (AT_ENTRY ...), if present.
  std::optional<uint64_t> aux(uint64_t type) const;
  // What is wrong but not fatal: segments cut short by the end of the file.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Bytes the segments' headers promise that the file does not hold:
  // cut off by its end, and left out by the dumper (memsz past filesz).
  uint64_t truncatedBytes() const { return truncated_bytes_; }
  uint64_t omittedBytes() const { return omitted_bytes_; }

 private:
  CoreFile() = default;
  static Expected<CoreFile> read(std::unique_ptr<MappedFile> file);
  // A snap core: runs of adjacent segments assembled, zero ones included.
  void assembleSnapMemory(uint64_t& omitted_segments);
  // On the heap, so that the segments' spans survive moves of CoreFile.
  std::unique_ptr<MappedFile> file_;
  uint16_t machine_ = 0;
  std::string arch_;
  WordReader words_;
  std::vector<CoreSegment> segments_;
  CoreNotes notes_;
  std::vector<std::shared_ptr<const AssembledMemory>> assembled_;
  std::vector<std::string> warnings_;
  uint64_t truncated_bytes_ = 0, omitted_bytes_ = 0;
};

}  // namespace goheap::core
