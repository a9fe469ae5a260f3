// The notes of an ELF core file (PT_NOTE): each thread's NT_PRSTATUS
// (thread id, signal, registers), NT_PRPSINFO (the program's name),
// NT_FILE (the files mapped) and NT_AUXV (the auxiliary vector). Layouts
// are Linux's (include/uapi/linux/elfcore.h, glibc's sys/procfs.h): notes
// padded to 4 bytes, elf_prstatus's registers at byte 112 in 64-bit cores and
// at 72 in 32-bit ones.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bin/bytes.h"
#include "core/snap_note.h"
#include "util/error.h"

namespace goheap::core {

// Auxiliary vector keys (linux/auxvec.h).
constexpr uint64_t kAtPhdr = 3;
constexpr uint64_t kAtPhnum = 5;
constexpr uint64_t kAtPagesz = 6;
constexpr uint64_t kAtBase = 7;
constexpr uint64_t kAtEntry = 9;
constexpr uint64_t kAtRandom = 25;
constexpr uint64_t kAtExecfn = 31;
constexpr uint64_t kAtSysinfoEhdr = 33;
// "AT_ENTRY", or "" for a key without a name here.
std::string_view auxName(uint64_t type);

// One thread of the process when it was dumped (NT_PRSTATUS).
struct Thread {
  uint32_t tid = 0;
  uint32_t signal = 0;  // pr_cursig: the signal the thread was handling
  // Whether the registers below were read (a machine goheap knows the
  // register layout of).
  bool has_registers = false;
  uint64_t pc = 0, sp = 0;
  uint64_t fp = 0;  // rbp on amd64, x29 on arm64, r11 on arm, 0 where none
  uint64_t lr = 0;  // the link register: x30 on arm64, r14 on arm and s390x, else 0
  // Every general register in the order of the machine's user_regs
  // (registerNames names them).
  std::vector<uint64_t> registers;
};

// The names of `machine`'s general registers as NT_PRSTATUS lists them
// ("r15", ... "rip", ... on amd64; "x0" ... "x30", "sp", "pc", "pstate" on
// arm64); empty for a machine goheap does not know.
std::span<const std::string_view> registerNames(uint16_t machine, bool is64);

// NT_PRPSINFO.
struct ProcessInfo {
  std::string_view name;  // pr_fname: the executable's base name, at most 15 bytes
  std::string_view args;  // pr_psargs: the start of the command line
};

// One mapping of NT_FILE.
struct FileMapping {
  uint64_t start = 0, end = 0;
  uint64_t file_offset = 0;  // in bytes (the note has it in pages)
  std::string_view path;

  // `path` without the " (deleted)" the kernel appends to the name of a
  // file deleted since it was mapped (a program replaced by a redeploy).
  std::string_view pathWithoutDeleted() const {
    constexpr std::string_view kDeleted = " (deleted)";
    std::string_view p = path;
    if (p.size() > kDeleted.size() && p.ends_with(kDeleted)) p.remove_suffix(kDeleted.size());
    return p;
  }
};

struct AuxEntry {
  uint64_t type = 0, value = 0;
};

struct CoreNotes {
  std::vector<Thread> threads;
  std::optional<ProcessInfo> process;
  std::vector<FileMapping> files;
  uint64_t file_page_size = 0;  // NT_FILE's page size; 0 without NT_FILE
  std::vector<AuxEntry> auxv;
  std::optional<SnapNote> snap;  // a core goheap snap wrote (core/snap_note.h)
  // Where in the core file the executable it carries is (kNtGoheapExecutable).
  struct FileRange {
    uint64_t offset = 0, size = 0;
  };
  std::optional<FileRange> carried_executable;
};

// Reads the notes of one PT_NOTE segment: `size` bytes at `offset` of `file`,
// each padded to `align` (4, or 8 when the segment says so). `machine` and
// `is64` pick the register layout. An Error names the byte offset of the
// first note that does not fit or is malformed.
Status readNotes(const bin::ByteView& file, uint64_t offset, uint64_t size, uint64_t align,
                 uint16_t machine, bool is64, CoreNotes& out);

}  // namespace goheap::core
