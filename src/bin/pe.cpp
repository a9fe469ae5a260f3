// PE (Windows), PE32 and PE32+: the COFF header, section table (long names
// from the string table) and COFF symbols. Go's pclntab has no section of
// its own in PE: findPclntab finds it by symbol or by its magic. Every table
// is checked to lie inside the file before it is read.
#include <algorithm>
#include <string>

#include "bin/container.h"

namespace goheap::bin {

namespace {

constexpr uint64_t kCoffHeaderSize = 20;
constexpr uint64_t kSectionHeaderSize = 40;
constexpr uint64_t kSymbolSize = 18;
constexpr uint32_t kScnCntUninitialized = 0x80;
constexpr uint32_t kScnMemExecute = 0x20000000;
constexpr uint32_t kScnMemWrite = 0x80000000;

// The COFF header's Machine.
constexpr MachineArch kArchs[] = {
    {0x14c, "386"}, {0x8664, "amd64"}, {0x1c0, "arm"}, {0x1c4, "arm"}, {0xaa64, "arm64"}};
// An 8-byte name field: inline (NUL-padded) or, for sections "/NNN" and for
// symbols four zero bytes then an offset, a string in the string table.
constexpr uint64_t kShortNameSize = 8;

}  // namespace

Expected<Container> readPe(std::span<const uint8_t> bytes) {
  Container c;
  c.format = ContainerFormat::Pe;
  c.big_endian = false;
  c.file = ByteView(bytes, false);
  const ByteView& f = c.file;
  if (!f.has(0x3c, 4)) return Error::atOffset(0, "PE DOS header", "truncated header");
  const uint64_t pe = f.u32(0x3c);
  if (!f.has(pe, 4 + kCoffHeaderSize) || f.u32(pe) != 0x00004550) {
    return Error::atOffset(pe, "PE header", "no PE signature");
  }
  const uint64_t coff = pe + 4;
  c.arch = goArchOf(kArchs, f.u16(coff));
  const uint64_t nsections = f.u16(coff + 2);
  const uint64_t symtab = f.u32(coff + 8);
  const uint64_t nsyms = f.u32(coff + 12);
  const uint64_t opt = coff + kCoffHeaderSize;
  const uint64_t opt_size = f.u16(coff + 16);
  if (!f.has(opt, opt_size) || opt_size < 32) {
    return Error::atOffset(opt, "PE optional header", "truncated");
  }
  const uint16_t magic = f.u16(opt);
  if (magic != 0x10b && magic != 0x20b) {
    return Error::atOffset(opt, "PE optional header", "bad magic " + std::to_string(magic));
  }
  c.ptr_size = magic == 0x20b ? 8 : 4;
  const uint64_t image_base = magic == 0x20b ? f.u64(opt + 24) : f.u32(opt + 28);

  const uint64_t table = opt + opt_size;
  if (!f.hasTable(table, nsections, kSectionHeaderSize)) {
    return Error::atOffset(table, "PE section table", "runs past the end of the file");
  }
  // The COFF string table follows the symbols; it starts with its own size.
  ByteView strings;
  if (symtab != 0 && nsyms <= f.size() / kSymbolSize) {
    const uint64_t at = symtab + nsyms * kSymbolSize;
    if (f.has(at, 4) && f.has(at, f.u32(at))) strings = f.sub(at, f.u32(at));
  }
  std::vector<uint64_t> section_va(nsections);
  for (uint64_t i = 0; i < nsections; ++i) {
    const uint64_t h = table + i * kSectionHeaderSize;
    Section s;
    s.name = f.paddedName(h, kShortNameSize);
    if (s.name.starts_with("/")) {
      uint64_t off = 0;
      for (char ch : s.name.substr(1)) off = off * 10 + static_cast<uint64_t>(ch - '0');
      s.name = strings.cstring(off);
    }
    const uint64_t vsize = f.u32(h + 8);
    section_va[i] = f.u32(h + 12);
    const uint64_t raw_size = f.u32(h + 16);
    const uint32_t flags = f.u32(h + 36);
    s.addr = image_base + section_va[i];
    s.offset = f.u32(h + 20);
    s.size = std::min(vsize != 0 ? vsize : raw_size, raw_size);
    s.has_file_data = (flags & kScnCntUninitialized) == 0 && raw_size != 0;
    c.sections.push_back(s);
    Segment seg;
    seg.vaddr = s.addr;
    seg.memsz = vsize;
    seg.offset = s.offset;
    seg.filesz = s.has_file_data ? s.size : 0;
    seg.executable = (flags & kScnMemExecute) != 0;
    seg.writable = (flags & kScnMemWrite) != 0;
    c.segments.push_back(seg);
  }

  if (symtab != 0 && nsyms != 0) {
    if (!f.hasTable(symtab, nsyms, kSymbolSize)) {
      return Error::atOffset(symtab, "PE symbol table", "runs past the end of the file");
    }
    for (uint64_t k = 0; k < nsyms; ++k) {
      const uint64_t s = symtab + k * kSymbolSize;
      Symbol sym;
      sym.name = f.u32(s) == 0 ? strings.cstring(f.u32(s + 4)) : f.paddedName(s, kShortNameSize);
      const auto section = static_cast<int16_t>(f.u16(s + 12));
      sym.value = f.u32(s + 8);
      if (section > 0 && static_cast<uint64_t>(section) <= nsections) {
        sym.value += image_base + section_va[static_cast<uint64_t>(section) - 1];
      }
      c.symbols.push_back(sym);
      k += f.u8(s + 17);  // auxiliary records follow their symbol
    }
  }
  return c;
}

}  // namespace goheap::bin
