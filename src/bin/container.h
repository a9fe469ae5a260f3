// What goheap needs from an executable file, whatever its container format:
// sections, symbols, loaded segments, the target's architecture, byte order
// and pointer size. elf.cpp, macho.cpp (fat.cpp for universal files) and
// pe.cpp each fill the same struct, so pclntab, buildinfo and DWARF code
// never see the format.
//
// A Container does not own the bytes: it holds views into the caller's
// mapping (bin::Binary keeps both together).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bin/bytes.h"
#include "util/error.h"

namespace goheap::bin {

enum class ContainerFormat : uint8_t { Elf, MachO, Pe };
std::string_view containerFormatName(ContainerFormat f);  // "ELF", "Mach-O", "PE"

struct Section {
  std::string_view name;
  uint64_t addr = 0;    // virtual address when loaded (0 for non-loaded sections)
  uint64_t offset = 0;  // in the file
  uint64_t size = 0;
  bool has_file_data = true;  // false for .bss-like sections that occupy no file bytes
  // ELF SHF_COMPRESSED: the bytes start with an Elf32/64_Chdr and hold a
  // compressed stream (how Go 1.20+ writes .debug_*; the readers of such
  // sections, not the container, undo it).
  bool compressed = false;
};

struct Symbol {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
};

// A piece of the file the loader maps at `vaddr`; memory past filesz is zero.
struct Segment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t offset = 0;
  uint64_t filesz = 0;
  bool executable = false;
  bool writable = false;  // data, not code or read-only data
};

// A RELATIVE relocation of a position-independent ELF: the loader writes its
// load bias plus `addend` at link-time address `addr`. With RELA relocations
// (amd64, arm64, s390x, ...) the file holds 0 there, so a pointer the
// linker wrote (moduledata's, a type descriptor's element type) is only
// known through its relocation.
struct Relocation {
  uint64_t addr = 0;
  uint64_t addend = 0;
};

struct Container {
  ContainerFormat format = ContainerFormat::Elf;
  std::string arch;  // GOARCH spelling: "amd64", "386", "arm64", "s390x", ... or "unknown"
  uint32_t ptr_size = 8;
  bool big_endian = false;
  ByteView file;  // the whole file, in the target's byte order
  std::vector<Section> sections;
  std::vector<Symbol> symbols;  // empty for a stripped file
  std::vector<Segment> segments;
  // The entry point's link-time address (ELF e_entry; 0 for other formats).
  uint64_t entry = 0;
  // An ELF ET_DYN file: loaded at a bias chosen at run time.
  bool position_independent = false;
  // RELATIVE relocations with explicit addends, by address (ELF only).
  std::vector<Relocation> relative_relocations;
  // Where `file` starts in the file read: non-zero for a slice of a
  // universal Mach-O file, whose offsets are relative to the slice.
  uint64_t slice_offset = 0;

  const Section* section(std::string_view name) const;
  const Symbol* symbol(std::string_view name) const;
  // The bytes of a section in the file; an Error naming the section when it
  // has none or they run past the end of the file.
  Expected<ByteView> sectionData(const Section& s) const;
  // `n` bytes at virtual address `addr`, if a segment maps all of them from
  // the file (not the zero-filled tail).
  std::optional<ByteView> readAt(uint64_t addr, uint64_t n) const;
  // The virtual address the byte at file offset `offset` is loaded at, if a
  // segment maps it.
  std::optional<uint64_t> addressOf(uint64_t offset) const;
  // The link-time pointer stored at `addr` (a word of ptr_size bytes): its
  // RELATIVE relocation's addend when it has one, else the file's word;
  // nullopt when no segment maps the word from the file.
  std::optional<uint64_t> pointerAt(uint64_t addr) const;
  // The RELATIVE relocation at `addr`, or null.
  const Relocation* relocationAt(uint64_t addr) const;
};

// One entry of a format's table of machine codes (ELF e_machine, Mach-O
// cputype, PE Machine) and the GOARCH each stands for.
struct MachineArch {
  uint32_t machine;
  std::string_view goarch;
};
// The GOARCH of `machine` in `table`, or "unknown".
std::string goArchOf(std::span<const MachineArch> table, uint32_t machine);

// Recognises the format from the first bytes and reads it: ELF, Mach-O
// (of a universal file, the slice for this machine's CPU, else the first Go
// one) and PE.
Expected<Container> readContainer(std::span<const uint8_t> bytes);
Expected<Container> readElf(std::span<const uint8_t> bytes);
Expected<Container> readMachO(std::span<const uint8_t> bytes);
Expected<Container> readPe(std::span<const uint8_t> bytes);
bool isMachO(std::span<const uint8_t> bytes);  // a thin (one-CPU) Mach-O file
bool isFatMachO(std::span<const uint8_t> bytes);
Expected<Container> readFatMachO(std::span<const uint8_t> bytes);

}  // namespace goheap::bin
