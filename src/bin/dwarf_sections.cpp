#include "bin/dwarf_sections.h"

#include <zlib.h>

#include <algorithm>
#include <string>

namespace goheap::bin {

namespace {

constexpr uint32_t kCompressZlib = 1;  // ELF ch_type

// The part of a section's name after its DWARF prefix ("info" for
// ".zdebug_info"), and whether that prefix says "compressed with a ZLIB
// header"; empty for a section that is not DWARF.
struct DwarfName {
  std::string_view suffix;
  bool zdebug = false;
};

DwarfName dwarfName(std::string_view name) {
  for (const auto& [prefix, z] : {std::pair<std::string_view, bool>{".debug_", false},
                                  {".zdebug_", true},
                                  {"__debug_", false},
                                  {"__zdebug_", true}}) {
    if (name.starts_with(prefix)) return {name.substr(prefix.size()), z};
  }
  return {};
}

// Inflates `in` (a zlib stream) into exactly `size` bytes.
Expected<std::unique_ptr<uint8_t[]>> inflateExactly(std::span<const uint8_t> in, uint64_t size,
                                                    uint64_t file_offset,
                                                    const std::string& where) {
  if (size > maxInflatedSize(in.size())) {
    return Error::atOffset(file_offset, where,
                           "claims " + std::to_string(size) + " decompressed bytes from " +
                               std::to_string(in.size()) + ", more than zlib can expand to");
  }
  auto out = std::make_unique<uint8_t[]>(size);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Error::atOffset(file_offset, where, "zlib init failed");
  // avail_in/avail_out are 32-bit: feed both in chunks.
  constexpr uint64_t kChunk = 1U << 30;
  uint64_t in_done = 0, out_done = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.avail_in == 0 && in_done < in.size()) {
      const uint64_t n = std::min(kChunk, in.size() - in_done);
      z.next_in = const_cast<Bytef*>(in.data() + in_done);  // zlib does not write it
      z.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    if (z.avail_out == 0 && out_done < size) {
      const uint64_t n = std::min(kChunk, size - out_done);
      z.next_out = out.get() + out_done;
      z.avail_out = static_cast<uInt>(n);
      out_done += n;
    }
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && z.avail_out == 0 && out_done == size) break;     // more than claimed
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_done == in.size()) break;  // truncated
  }
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    const std::string why = rc == Z_DATA_ERROR  ? "corrupt zlib stream"
                            : rc == Z_BUF_ERROR ? "zlib stream truncated or longer than claimed"
                                                : "zlib error " + std::to_string(rc);
    return Error::atOffset(
        file_offset, where,
        why + " after " + std::to_string(produced) + " of " + std::to_string(size) + " bytes");
  }
  if (produced != size) {
    return Error::atOffset(file_offset, where,
                           "inflates to " + std::to_string(produced) + " bytes, not the " +
                               std::to_string(size) + " its header claims");
  }
  return out;
}

// The section's DWARF bytes: as stored, or inflated when compressed.
Expected<ByteView> sectionBytes(const Container& c, const Section& s, bool zdebug,
                                std::vector<std::unique_ptr<uint8_t[]>>& owned) {
  GOHEAP_TRY(const ByteView b, c.sectionData(s));
  const std::string where = "section " + std::string(s.name);
  uint64_t header = 0, size = 0;
  static constexpr uint8_t kZlibMagic[4] = {'Z', 'L', 'I', 'B'};
  const bool zlib_header = b.has(0, 12) && std::equal(kZlibMagic, kZlibMagic + 4, b.bytes().data());
  if (zlib_header) {
    // Go writes the ".zdebug_" size big-endian whatever the target.
    header = 12;
    for (uint64_t i = 4; i < 12; ++i) size = size << 8 | b.u8(i);
  } else if (s.compressed) {
    const uint64_t chdr = c.ptr_size == 8 ? 24 : 12;
    if (!b.has(0, chdr)) return Error::atOffset(s.offset, where, "truncated compression header");
    if (b.u32(0) != kCompressZlib) {
      return Error::atOffset(s.offset, where,
                             "compression type " + std::to_string(b.u32(0)) + " is not zlib");
    }
    header = chdr;
    size = c.ptr_size == 8 ? b.u64(8) : b.u32(4);
  } else if (zdebug) {
    return Error::atOffset(s.offset, where, "no ZLIB header");
  } else {
    return b;
  }
  GOHEAP_TRY(auto inflated,
             inflateExactly(b.bytes().subspan(header), size, s.offset + header, where));
  owned.push_back(std::move(inflated));
  return ByteView(std::span<const uint8_t>(owned.back().get(), size), c.big_endian);
}

}  // namespace

uint64_t maxInflatedSize(uint64_t compressed_size) {
  constexpr uint64_t kCeiling = uint64_t{4} << 30;
  return std::min(kCeiling, compressed_size * 1032 + 64);
}

Expected<DwarfSections> DwarfSections::load(const Container& c) {
  DwarfSections d;
  const std::pair<std::string_view, ByteView DwarfSections::*> wanted[] = {
      {"info", &DwarfSections::info}, {"abbrev", &DwarfSections::abbrev},
      {"str", &DwarfSections::str},   {"line_str", &DwarfSections::line_str},
      {"addr", &DwarfSections::addr}, {"str_offsets", &DwarfSections::str_offsets},
      {"loc", &DwarfSections::loc},   {"loclists", &DwarfSections::loclists},
  };
  bool have_info = false;
  for (const Section& s : c.sections) {
    const DwarfName n = dwarfName(s.name);
    if (n.suffix.empty()) continue;
    for (const auto& [suffix, member] : wanted) {
      if (n.suffix != suffix) continue;
      GOHEAP_TRY(d.*member, sectionBytes(c, s, n.zdebug, d.owned));
      if (member == &DwarfSections::info) have_info = true;
    }
  }
  if (!have_info) {
    return Error("no DWARF: the file has no .debug_info section (stripped, or linked with -w)");
  }
  return d;
}

}  // namespace goheap::bin
