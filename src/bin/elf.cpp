// ELF, 32- and 64-bit, either byte order: the file header, section headers
// and their names, .symtab, PT_LOAD segments and the RELATIVE relocations
// of position-independent files. Every table is checked to
// lie inside the file before it is read, so a truncated or corrupt file gives
// an Error and never a read out of bounds.
#include "bin/elf.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "bin/container.h"

namespace goheap::bin {

namespace {

constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kShtRela = 4;

// The RELATIVE relocation type of each machine (ELF e_machine): the one a
// position-independent Go executable's pointers in data get.
constexpr std::pair<uint16_t, uint32_t> kRelativeTypes[] = {
    {62, 8}, {183, 1027}, {22, 12}, {21, 22}, {243, 3}, {258, 3}, {3, 8}, {40, 23}};
constexpr uint16_t kPnXnum = 0xffff;
constexpr uint16_t kShnXindex = 0xffff;
// sh_flags sits right after sh_name and sh_type in both classes (a word).
constexpr uint64_t kShFlags = 8;
constexpr uint64_t kShfCompressed = 0x800;

// e_machine; EM_MIPS (8) serves both widths, so it is not in the table.
constexpr MachineArch kArchs[] = {{3, "386"},    {62, "amd64"}, {40, "arm"},      {183, "arm64"},
                                  {22, "s390x"}, {21, "ppc64"}, {243, "riscv64"}, {258, "loong64"}};
constexpr uint16_t kEmMips = 8;

// Field offsets of the two ELF classes, so one reader serves both.
struct Layout {
  uint32_t w;  // word width
  // file header
  uint64_t entry, phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx, ehsize;
  // section header
  uint64_t sh_size_min, sh_type, sh_addr, sh_offset, sh_size, sh_link, sh_info;
  // program header
  uint64_t ph_size_min, p_flags, p_offset, p_vaddr, p_filesz, p_memsz, p_align;
  // symbol
  uint64_t sym_size, st_value, st_size;
};

// Offsets from the ELF specification (file header e_*, section header sh_*,
// program header p_*, symbol st_*): the two classes differ in word width and,
// for program headers and symbols, in field order.
constexpr Layout kElf64{.w = 8,
                        .entry = 24,
                        .phoff = 32,
                        .shoff = 40,
                        .phentsize = 54,
                        .phnum = 56,
                        .shentsize = 58,
                        .shnum = 60,
                        .shstrndx = 62,
                        .ehsize = 64,
                        .sh_size_min = 64,
                        .sh_type = 4,
                        .sh_addr = 16,
                        .sh_offset = 24,
                        .sh_size = 32,
                        .sh_link = 40,
                        .sh_info = 44,
                        .ph_size_min = 56,
                        .p_flags = 4,
                        .p_offset = 8,
                        .p_vaddr = 16,
                        .p_filesz = 32,
                        .p_memsz = 40,
                        .p_align = 48,
                        .sym_size = 24,
                        .st_value = 8,
                        .st_size = 16};
constexpr Layout kElf32{.w = 4,
                        .entry = 24,
                        .phoff = 28,
                        .shoff = 32,
                        .phentsize = 42,
                        .phnum = 44,
                        .shentsize = 46,
                        .shnum = 48,
                        .shstrndx = 50,
                        .ehsize = 52,
                        .sh_size_min = 40,
                        .sh_type = 4,
                        .sh_addr = 12,
                        .sh_offset = 16,
                        .sh_size = 20,
                        .sh_link = 24,
                        .sh_info = 28,
                        .ph_size_min = 32,
                        .p_flags = 24,
                        .p_offset = 4,
                        .p_vaddr = 8,
                        .p_filesz = 16,
                        .p_memsz = 20,
                        .p_align = 28,
                        .sym_size = 16,
                        .st_value = 4,
                        .st_size = 8};

}  // namespace

bool isElf(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(),
                                          "\x7f"
                                          "ELF",
                                          4) == 0;
}

std::string elfGoArch(uint16_t machine, bool is64) {
  if (machine == kEmMips) return is64 ? "mips64" : "mips";
  return goArchOf(kArchs, machine);
}

Expected<ElfHeader> readElfHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < 16) return Error::atOffset(0, "ELF header", "file shorter than the ELF ident");
  const uint8_t cls = bytes[4];
  const uint8_t data = bytes[5];
  if (cls != 1 && cls != 2)
    return Error::atOffset(4, "ELF header", "bad class " + std::to_string(cls));
  if (data != 1 && data != 2) {
    return Error::atOffset(5, "ELF header", "bad byte order " + std::to_string(data));
  }
  const Layout& L = cls == 2 ? kElf64 : kElf32;
  ElfHeader h;
  h.is64 = cls == 2;
  h.file = ByteView(bytes, data == 2);
  const ByteView& f = h.file;
  if (!f.has(0, L.ehsize)) return Error::atOffset(0, "ELF header", "truncated file header");
  h.type = f.u16(16);
  h.machine = f.u16(18);
  h.entry = f.word(L.entry, L.w);
  h.phoff = f.word(L.phoff, L.w);
  h.shoff = f.word(L.shoff, L.w);
  h.phentsize = f.u16(L.phentsize);
  h.phnum = f.u16(L.phnum);
  h.shentsize = f.u16(L.shentsize);
  h.shnum = f.u16(L.shnum);
  h.shstrndx = f.u16(L.shstrndx);
  // Files with 0xff00 or more sections, or 0xffff or more program headers (a
  // core of a process with that many mappings), keep the real counts in
  // section 0.
  const bool counts_in_section0 = h.shnum == 0 || h.shstrndx == kShnXindex || h.phnum == kPnXnum;
  if (h.shoff != 0 && counts_in_section0) {
    if (h.shentsize < L.sh_size_min) {
      return Error::atOffset(L.shentsize, "ELF header", "section header entry size too small");
    }
    if (!f.has(h.shoff, h.shentsize)) {
      return Error::atOffset(h.shoff, "ELF section headers",
                             "table starts past the end of the file");
    }
    if (h.shnum == 0) h.shnum = f.word(h.shoff + L.sh_size, L.w);
    if (h.shstrndx == kShnXindex) h.shstrndx = f.u32(h.shoff + L.sh_link);
    if (h.phnum == kPnXnum) h.phnum = f.u32(h.shoff + L.sh_info);
  }
  return h;
}

Expected<std::vector<ElfProgramHeader>> readElfProgramHeaders(const ElfHeader& h) {
  const Layout& L = h.is64 ? kElf64 : kElf32;
  const ByteView& f = h.file;
  std::vector<ElfProgramHeader> out;
  if (h.phnum == 0) return out;
  if (h.phentsize < L.ph_size_min) {
    return Error::atOffset(L.phentsize, "ELF header", "program header entry size too small");
  }
  if (!f.hasTable(h.phoff, h.phnum, h.phentsize)) {
    return Error::atOffset(h.phoff, "ELF program headers",
                           std::to_string(h.phnum) + " entries run past the end of the file (" +
                               std::to_string(f.size()) + " bytes)");
  }
  out.reserve(h.phnum);
  for (uint64_t i = 0; i < h.phnum; ++i) {
    const uint64_t p = h.phoff + i * h.phentsize;
    ElfProgramHeader ph;
    ph.at = p;
    ph.type = f.u32(p);
    ph.flags = f.u32(p + L.p_flags);
    ph.offset = f.word(p + L.p_offset, L.w);
    ph.vaddr = f.word(p + L.p_vaddr, L.w);
    ph.filesz = f.word(p + L.p_filesz, L.w);
    ph.memsz = f.word(p + L.p_memsz, L.w);
    ph.align = f.word(p + L.p_align, L.w);
    out.push_back(ph);
  }
  return out;
}

namespace {

struct RawSection {
  uint32_t name, type, link;
  uint64_t offset, size, entsize;
};

// Collects the RELATIVE relocations of every SHT_RELA section (a truncated
// section is read as far as the file goes: the relocations only add to what
// the file's words say).
void readRelativeRelocations(const ByteView& f, const Layout& L, uint16_t machine,
                             const std::vector<RawSection>& raw, Container& c) {
  uint32_t relative = 0;
  for (const auto& [m, type] : kRelativeTypes) {
    if (m == machine) relative = type;
  }
  if (relative == 0) return;
  const uint64_t entry = L.w == 8 ? 24 : 12;
  for (const RawSection& r : raw) {
    if (r.type != kShtRela) continue;
    for (uint64_t at = r.offset; at - r.offset + entry <= r.size && f.has(at, entry); at += entry) {
      const uint64_t info = f.word(at + L.w, L.w);
      const uint64_t type = L.w == 8 ? info & 0xffffffff : info & 0xff;
      if (type == relative)
        c.relative_relocations.push_back({f.word(at, L.w), f.word(at + 2 * L.w, L.w)});
    }
  }
  std::sort(c.relative_relocations.begin(), c.relative_relocations.end(),
            [](const Relocation& a, const Relocation& b) { return a.addr < b.addr; });
}

}  // namespace

Expected<Container> readElf(std::span<const uint8_t> bytes) {
  GOHEAP_TRY(const ElfHeader eh, readElfHeader(bytes));
  const Layout& L = eh.is64 ? kElf64 : kElf32;
  Container c;
  c.format = ContainerFormat::Elf;
  c.big_endian = eh.file.bigEndian();
  c.ptr_size = L.w;
  c.file = eh.file;
  c.entry = eh.entry;
  c.position_independent = eh.type == kElfTypeDyn;
  const ByteView& f = c.file;
  c.arch = elfGoArch(eh.machine, eh.is64);

  const uint64_t shoff = eh.shoff;
  const uint64_t shentsize = eh.shentsize;
  const uint64_t shnum = eh.shnum;
  const uint64_t shstrndx = eh.shstrndx;

  // Program headers: the PT_LOAD segments, to turn addresses into offsets.
  GOHEAP_TRY(auto phdrs, readElfProgramHeaders(eh));
  for (const ElfProgramHeader& ph : phdrs) {
    if (ph.type != kPtLoad) continue;
    Segment s;
    s.offset = ph.offset;
    s.vaddr = ph.vaddr;
    s.filesz = ph.filesz;
    s.memsz = ph.memsz;
    s.executable = (ph.flags & kPfExecute) != 0;
    s.writable = (ph.flags & kPfWrite) != 0;
    c.segments.push_back(s);
  }

  if (shoff == 0) return c;  // no section headers: segments only
  if (shentsize < L.sh_size_min) {
    return Error::atOffset(L.shentsize, "ELF header", "section header entry size too small");
  }
  if (!f.has(shoff, shentsize)) {
    return Error::atOffset(shoff, "ELF section headers", "table starts past the end of the file");
  }
  if (!f.hasTable(shoff, shnum, shentsize)) {
    return Error::atOffset(shoff, "ELF section headers", "table runs past the end of the file");
  }
  if (shstrndx >= shnum) {
    return Error::atOffset(L.shstrndx, "ELF header", "section name table index out of range");
  }

  using Raw = RawSection;
  std::vector<Raw> raw(shnum);
  c.sections.resize(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + i * shentsize;
    Raw& r = raw[i];
    r.name = f.u32(h);
    r.type = f.u32(h + L.sh_type);
    r.link = f.u32(h + L.sh_link);
    r.offset = f.word(h + L.sh_offset, L.w);
    r.size = f.word(h + L.sh_size, L.w);
    Section& s = c.sections[i];
    s.addr = f.word(h + L.sh_addr, L.w);
    s.offset = r.offset;
    s.size = r.size;
    s.has_file_data = r.type != kShtNobits && r.type != 0;
    s.compressed = (f.word(h + kShFlags, L.w) & kShfCompressed) != 0;
  }
  const Raw& names = raw[shstrndx];
  if (!f.has(names.offset, names.size)) {
    return Error::atOffset(names.offset, "ELF section name table", "runs past the end of the file");
  }
  const ByteView name_table = f.sub(names.offset, names.size);
  for (uint64_t i = 0; i < shnum; ++i) c.sections[i].name = name_table.cstring(raw[i].name);

  // .symtab: names come from the string table its sh_link names.
  for (uint64_t i = 0; i < shnum; ++i) {
    const Raw& r = raw[i];
    if (r.type != kShtSymtab) continue;
    const std::string where = "ELF symbol table " + std::string(c.sections[i].name);
    if (!f.has(r.offset, r.size)) {
      return Error::atOffset(r.offset, where, "runs past the end of the file");
    }
    if (r.link >= shnum || !f.has(raw[r.link].offset, raw[r.link].size)) {
      return Error::atOffset(r.offset, where, "its string table is missing or truncated");
    }
    const ByteView strings = f.sub(raw[r.link].offset, raw[r.link].size);
    const uint64_t count = r.size / L.sym_size;
    c.symbols.reserve(c.symbols.size() + count);
    for (uint64_t k = 1; k < count; ++k) {  // entry 0 is the reserved null symbol
      const uint64_t s = r.offset + k * L.sym_size;
      Symbol sym;
      sym.name = strings.cstring(f.u32(s));
      sym.value = f.word(s + L.st_value, L.w);
      sym.size = f.word(s + L.st_size, L.w);
      c.symbols.push_back(sym);
    }
  }
  readRelativeRelocations(f, L, eh.machine, raw, c);
  return c;
}

}  // namespace goheap::bin
