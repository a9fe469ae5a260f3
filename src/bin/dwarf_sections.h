// The DWARF sections of an executable, found by name whatever the container
// (".debug_info" in ELF and PE, "__debug_info" in Mach-O) and decompressed:
// Go compresses them by default: in PE and Mach-O as ".zdebug_*" /
// "__zdebug_*" holding "ZLIB", an 8-byte big-endian size and a zlib stream;
// in ELF as SHF_COMPRESSED sections (an Elf32/64_Chdr, then the stream),
// still named .debug_* (Go 1.19 and 1.24; older Go wrote .zdebug_* with the
// ZLIB header in ELF too).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "bin/bytes.h"
#include "bin/container.h"
#include "util/error.h"

namespace goheap::bin {

struct DwarfSections {
  // Empty views for the sections the file lacks.
  ByteView info, abbrev, str, line_str, addr, str_offsets, loc, loclists;
  // The decompressed bytes the views above may point into; heap blocks, so
  // the views stay valid when this struct moves.
  std::vector<std::unique_ptr<uint8_t[]>> owned;

  // An Error when the file has no .debug_info (stripped, -ldflags=-w) or a
  // compressed section does not inflate to its stated size.
  static Expected<DwarfSections> load(const Container& c);
};

// The largest decompressed size a compressed section may claim: zlib cannot
// expand data more than about 1032 times, and no Go executable's DWARF comes
// near 4 GiB; a corrupt header must not make us allocate more.
uint64_t maxInflatedSize(uint64_t compressed_size);

}  // namespace goheap::bin
