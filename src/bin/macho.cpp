// Mach-O, 32- and 64-bit, either byte order: segments and their sections
// (LC_SEGMENT, LC_SEGMENT_64) and the symbol table (LC_SYMTAB). Universal
// (fat) files are split into slices by fat.cpp. As in elf.cpp, every command and table is checked
// to lie inside the file before it is read.
#include <string>

#include "bin/container.h"

namespace goheap::bin {

namespace {

constexpr uint32_t kMagic32 = 0xfeedface;
constexpr uint32_t kMagic64 = 0xfeedfacf;
constexpr uint32_t kLcSegment = 0x1;
constexpr uint32_t kLcSymtab = 0x2;
constexpr uint32_t kLcSegment64 = 0x19;
constexpr uint32_t kVmProtExecute = 0x4;
constexpr uint32_t kVmProtWrite = 0x2;

// cputype.
constexpr MachineArch kArchs[] = {
    {7, "386"}, {0x01000007, "amd64"}, {12, "arm"}, {0x0100000c, "arm64"}, {0x01000012, "ppc64"}};
// Section and segment names are 16 bytes.
constexpr uint64_t kNameSize = 16;

bool zeroFill(uint32_t section_flags) {
  const uint32_t type = section_flags & 0xff;
  return type == 0x1 || type == 0xc ||
         type == 0x12;  // S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL
}

}  // namespace

bool isMachO(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return false;
  // The magic, read little-endian, is one of the two or byte-swapped.
  const uint32_t m = ByteView(bytes, false).u32(0);
  return m == kMagic32 || m == kMagic64 || m == __builtin_bswap32(kMagic32) ||
         m == __builtin_bswap32(kMagic64);
}

Expected<Container> readMachO(std::span<const uint8_t> bytes) {
  if (bytes.size() < 28) return Error::atOffset(0, "Mach-O header", "truncated header");
  Container c;
  c.format = ContainerFormat::MachO;
  // The magic, read little-endian, tells both the width and the byte order.
  const ByteView le(bytes, false);
  const uint32_t m = le.u32(0);
  const bool is64 = m == kMagic64 || m == __builtin_bswap32(kMagic64);
  c.big_endian = m == __builtin_bswap32(kMagic32) || m == __builtin_bswap32(kMagic64);
  c.ptr_size = is64 ? 8 : 4;
  c.file = ByteView(bytes, c.big_endian);
  const ByteView& f = c.file;
  const uint64_t header_size = is64 ? 32 : 28;
  if (!f.has(0, header_size)) return Error::atOffset(0, "Mach-O header", "truncated header");
  c.arch = goArchOf(kArchs, f.u32(4));
  const uint64_t ncmds = f.u32(16);
  const uint64_t sizeofcmds = f.u32(20);
  if (!f.has(header_size, sizeofcmds)) {
    return Error::atOffset(header_size, "Mach-O load commands", "run past the end of the file");
  }
  const uint64_t end = header_size + sizeofcmds;
  uint64_t p = header_size;
  for (uint64_t i = 0; i < ncmds; ++i) {
    if (p + 8 > end) {
      return Error::atOffset(p, "Mach-O load commands",
                             "command " + std::to_string(i) + " starts past their end");
    }
    const uint32_t cmd = f.u32(p);
    const uint64_t size = f.u32(p + 4);
    if (size < 8 || size > end - p) {
      return Error::atOffset(p, "Mach-O load commands",
                             "command " + std::to_string(i) + " has a bad size");
    }
    if (cmd == kLcSegment64 || cmd == kLcSegment) {
      const bool s64 = cmd == kLcSegment64;
      const uint32_t w = s64 ? 8 : 4;
      const uint64_t fixed = s64 ? 72 : 56;
      const uint64_t sect_size = s64 ? 80 : 68;
      if (size < fixed) return Error::atOffset(p, "Mach-O segment", "command too short");
      Segment seg;
      seg.vaddr = f.word(p + 24, w);
      seg.memsz = f.word(p + 24 + w, w);
      seg.offset = f.word(p + 24 + 2 * w, w);
      seg.filesz = f.word(p + 24 + 3 * w, w);
      const uint32_t initprot = f.u32(p + 24 + 4 * w + 4);
      seg.executable = (initprot & kVmProtExecute) != 0;
      seg.writable = (initprot & kVmProtWrite) != 0;
      c.segments.push_back(seg);
      const uint64_t nsects = f.u32(p + 24 + 4 * w + 8);
      if (nsects > (size - fixed) / sect_size) {
        return Error::atOffset(p, "Mach-O segment", "sections run past the command");
      }
      for (uint64_t k = 0; k < nsects; ++k) {
        const uint64_t s = p + fixed + k * sect_size;
        Section sec;
        sec.name = f.paddedName(s, kNameSize);
        sec.addr = f.word(s + 32, w);
        sec.size = f.word(s + 32 + w, w);
        sec.offset = f.u32(s + 32 + 2 * w);
        sec.has_file_data = !zeroFill(f.u32(s + 32 + 2 * w + 16));
        c.sections.push_back(sec);
      }
    } else if (cmd == kLcSymtab) {
      if (size < 24) return Error::atOffset(p, "Mach-O symtab", "command too short");
      const uint64_t symoff = f.u32(p + 8);
      const uint64_t nsyms = f.u32(p + 12);
      const uint64_t stroff = f.u32(p + 16);
      const uint64_t strsize = f.u32(p + 20);
      const uint64_t entry = is64 ? 16 : 12;
      if (!f.hasTable(symoff, nsyms, entry) || !f.has(stroff, strsize)) {
        return Error::atOffset(symoff, "Mach-O symbol table", "runs past the end of the file");
      }
      const ByteView strings = f.sub(stroff, strsize);
      for (uint64_t k = 0; k < nsyms; ++k) {
        const uint64_t s = symoff + k * entry;
        Symbol sym;
        sym.name = strings.cstring(f.u32(s));
        // The darwin linker prefixes C-style names with '_'; Go names (those
        // with a '.') are given without it, as on the other formats and as
        // Go's debug/macho gives them.
        if (sym.name.starts_with('_') && sym.name.find('.') != std::string_view::npos) {
          sym.name.remove_prefix(1);
        }
        sym.value = f.word(s + 8, c.ptr_size);
        c.symbols.push_back(sym);  // Mach-O records no symbol sizes
      }
    }
    p += size;
  }
  return c;
}

}  // namespace goheap::bin
