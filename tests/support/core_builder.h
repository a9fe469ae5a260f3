// A test-only writer of small ELF core files in memory, written from the
// ELF specification and Linux's core layouts (elf.h, linux/elfcore.h), not
// from the reader: the file header, a PT_NOTE segment and PT_LOAD segments.
// The tests of bad input change the bytes it writes at the offsets layout()
// gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace goheap::testsupport {

class CoreBuilder {
 public:
  // e_machine 62 is x86-64, 183 AArch64, 22 s390, 40 ARM.
  explicit CoreBuilder(bool is64 = true, bool big_endian = false, uint16_t machine = 62);

  // A PT_LOAD at `vaddr` holding `bytes` in the file and `memsz` bytes of
  // memory (at least bytes.size(); the rest is left out, as the kernel does
  // for file-backed memory). Flags: PF_R 4, PF_W 2, PF_X 1.
  CoreBuilder& segment(uint64_t vaddr, std::vector<uint8_t> bytes, uint64_t memsz = 0,
                       uint32_t flags = 6);
  // NT_PRSTATUS: pr_cursig, pr_pid and pr_reg as given (the machine's
  // user_regs words, in order).
  CoreBuilder& thread(uint32_t tid, uint16_t signal, const std::vector<uint64_t>& regs);
  // NT_PRPSINFO with pr_fname and pr_psargs.
  CoreBuilder& process(const std::string& name, const std::string& args);
  // One NT_FILE entry (all go into one note); page offset in pages.
  CoreBuilder& file(uint64_t start, uint64_t end, uint64_t page_offset, const std::string& path);
  // One NT_AUXV pair (AT_NULL is added at the end).
  CoreBuilder& aux(uint64_t type, uint64_t value);
  // Any note, its descriptor as given.
  CoreBuilder& note(const std::string& name, uint32_t type, std::vector<uint8_t> desc);
  // e_type (4, ET_CORE, by default).
  CoreBuilder& type(uint16_t t);

  std::vector<uint8_t> build();

  // Where things landed in the last build().
  struct Layout {
    uint64_t phoff = 0, phentsize = 0;
    uint64_t notes_offset = 0, notes_size = 0;
    std::vector<uint64_t> note_offsets;     // each note's header
    std::vector<uint64_t> segment_offsets;  // each PT_LOAD's data, in the order given
    std::vector<uint64_t> segment_headers;  // each PT_LOAD's program header
  };
  const Layout& layout() const { return layout_; }

  // Little helpers for tests: `v` as `width` bytes in the builder's order.
  void putWord(std::vector<uint8_t>& out, uint64_t v, uint32_t width) const;

 private:
  struct Seg {
    uint64_t vaddr, memsz;
    uint32_t flags;
    std::vector<uint8_t> bytes;
  };
  struct Note {
    std::string name;
    uint32_t type;
    std::vector<uint8_t> desc;
  };
  struct FileEntry {
    uint64_t start, end, pgoff;
    std::string path;
  };
  bool is64_, big_;
  uint16_t machine_;
  uint16_t type_ = 4;
  std::vector<Seg> segments_;
  std::vector<Note> notes_;
  std::vector<FileEntry> files_;
  std::vector<std::pair<uint64_t, uint64_t>> auxv_;
  Layout layout_;
};

}  // namespace goheap::testsupport
