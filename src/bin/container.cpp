// Format-independent lookups over a Container, and format dispatch.
#include "bin/container.h"

#include <algorithm>
#include <cstring>

#include "bin/elf.h"
#include "util/enum_names.h"

namespace goheap::bin {

constexpr std::array<std::string_view, 3> kContainerFormatNames = {"ELF", "Mach-O", "PE"};
static_assert(namesEveryValue(kContainerFormatNames, ContainerFormat::Pe));

std::string_view containerFormatName(ContainerFormat f) {
  return enumName(f, kContainerFormatNames, "unknown");
}

std::string goArchOf(std::span<const MachineArch> table, uint32_t machine) {
  for (const MachineArch& m : table) {
    if (m.machine == machine) return std::string(m.goarch);
  }
  return "unknown";
}

const Section* Container::section(std::string_view name) const {
  for (const Section& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Symbol* Container::symbol(std::string_view name) const {
  for (const Symbol& s : symbols) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Expected<ByteView> Container::sectionData(const Section& s) const {
  if (!s.has_file_data) {
    return Error("section " + std::string(s.name) + " occupies no bytes in the file");
  }
  if (!file.has(s.offset, s.size)) {
    return Error::atOffset(s.offset, "section " + std::string(s.name),
                           std::to_string(s.size) + " bytes run past the end of the file (" +
                               std::to_string(file.size()) + " bytes)");
  }
  return file.sub(s.offset, s.size);
}

std::optional<ByteView> Container::readAt(uint64_t addr, uint64_t n) const {
  for (const Segment& seg : segments) {
    if (addr < seg.vaddr) continue;
    const uint64_t delta = addr - seg.vaddr;
    if (delta > seg.filesz || n > seg.filesz - delta) continue;
    if (!file.has(seg.offset, seg.filesz)) continue;
    return file.sub(seg.offset + delta, n);
  }
  return std::nullopt;
}

std::optional<uint64_t> Container::addressOf(uint64_t offset) const {
  for (const Segment& seg : segments) {
    if (offset >= seg.offset && offset - seg.offset < seg.filesz) {
      return seg.vaddr + (offset - seg.offset);
    }
  }
  return std::nullopt;
}

const Relocation* Container::relocationAt(uint64_t addr) const {
  auto it = std::lower_bound(relative_relocations.begin(), relative_relocations.end(), addr,
                             [](const Relocation& r, uint64_t a) { return r.addr < a; });
  return it != relative_relocations.end() && it->addr == addr ? &*it : nullptr;
}

std::optional<uint64_t> Container::pointerAt(uint64_t addr) const {
  if (const Relocation* r = relocationAt(addr)) return r->addend;
  std::optional<ByteView> b = readAt(addr, ptr_size);
  if (!b) return std::nullopt;
  return b->word(0, ptr_size);
}

Expected<Container> readContainer(std::span<const uint8_t> bytes) {
  if (isElf(bytes)) return readElf(bytes);
  if (isMachO(bytes)) return readMachO(bytes);
  if (isFatMachO(bytes)) return readFatMachO(bytes);
  if (bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z') {
    return readPe(bytes);
  }
  return Error::atOffset(0, "file header",
                         "not an executable goheap knows (ELF, Mach-O or PE expected)");
}

}  // namespace goheap::bin
