// Field positions, in words, from runtime/symtab.go's moduledata of each
// release (the facts are Go's; the code is goheap's own):
//   Go 1.5-1.15:  pclntable, ftab, filetab (slices), findfunctab, minpc,
//                 maxpc, then text, etext, noptrdata, ... enoptrbss.
//   Go 1.16+:     pcHeader, then six slices (funcnametab, cutab, filetab,
//                 pctab, pclntable, ftab), findfunctab, minpc, maxpc, text...
//   Go 1.16-1.17: after enoptrbss: end, gcdata, gcbss, types, etypes.
//   Go 1.18-1.19: after enoptrbss: end, gcdata, gcbss, types, etypes,
//                 rodata, gofunc.
//   Go 1.20+:     covctrs, ecovctrs come before end, so gofunc moves by two.
//   Go 1.27+:     types, typedesclen, etypes, itaboffset, itabsize, rodata,
//                 gofunc: gofunc moves by three more.
#include "bin/moduledata.h"

namespace goheap::bin {

namespace {

struct Positions {
  uint64_t minpc;
  uint64_t text;    // then etext, noptrdata, ..., enoptrbss
  uint64_t gofunc;  // 0: none in this release
  uint64_t words;   // how many words must be readable
  uint64_t
      types;  // runtime.types: type descriptors and DWARF's go_runtime_type are offsets from it
};

constexpr Positions kGo120{20, 22, 40, 41, 37};
constexpr Positions kGo127{20, 22, 43, 44, 37};

Positions positionsFor(PclntabLayout l, bool go127) {
  switch (l) {
    case PclntabLayout::Go12:
      return {10, 12, 0, 22, 0};  // types at 25 only since Go 1.7: not read
    case PclntabLayout::Go116:
      return {20, 22, 0, 37, 35};
    case PclntabLayout::Go118:
      return {20, 22, 38, 39, 35};
    case PclntabLayout::Go120:
      return go127 ? kGo127 : kGo120;
  }
  return {20, 22, 0, 32, 0};
}

// Go 1.27's moduledata follows types with typedesclen, etypes, itaboffset
// and itabsize, the itabs ending where the type data ends; before, etypes,
// rodata and gofunc follow it. For a file whose version is unknown.
bool looksLikeGo127(const ByteView& f, uint64_t at, uint32_t w) {
  if (!f.has(at, kGo127.words * w)) return false;
  auto word = [&](uint64_t i) { return f.word(at + i * w, w); };
  const uint64_t types = word(kGo127.types), etypes = word(kGo127.types + 2);
  const uint64_t itab_offset = word(kGo127.types + 3), itab_size = word(kGo127.types + 4);
  return etypes >= types && itab_offset <= etypes - types &&
         itab_offset + itab_size == etypes - types;
}

// Reads the candidate at file offset `at` if it validates against `t`.
std::optional<ModuleLayout> readCandidate(const Container& c, const Pclntab& t, uint64_t table_addr,
                                          uint64_t at, const Positions& p) {
  const ByteView& f = c.file;
  const uint32_t w = c.ptr_size;
  if (!f.has(at, p.words * w)) return std::nullopt;
  auto word = [&](uint64_t i) { return f.word(at + i * w, w); };
  if (t.layout() == PclntabLayout::Go12) {
    // pclntable covers the whole table; ftab starts at its function table.
    if (word(3) != table_addr + t.functionTableOffset()) return std::nullopt;
  } else if (word(1) != table_addr + t.funcnameTableOffset()) {
    return std::nullopt;
  }
  if (!t.funcs().empty() && word(p.minpc) != t.funcs().front().entry) return std::nullopt;
  ModuleLayout m;
  uint64_t* fields[] = {&m.text,  &m.etext, &m.noptrdata, &m.enoptrdata, &m.data,
                        &m.edata, &m.bss,   &m.ebss,      &m.noptrbss,   &m.enoptrbss};
  for (uint64_t i = 0; i < 10; ++i) *fields[i] = word(p.text + i);
  for (uint64_t i = 0; i < 10; i += 2) {
    if (*fields[i] > *fields[i + 1]) return std::nullopt;
  }
  if (m.text > word(p.minpc)) return std::nullopt;
  if (p.gofunc != 0) m.gofunc = word(p.gofunc);
  if (p.types != 0) m.types = word(p.types);
  m.source = "moduledata";
  return m;
}

}  // namespace

std::optional<ModuleLayout> moduleLayoutFromModuledata(const Container& c, const Pclntab& t,
                                                       std::optional<int> go_minor) {
  const std::optional<uint64_t> table_addr = c.addressOf(t.fileOffset());
  if (!table_addr || *table_addr == 0) return std::nullopt;
  const uint32_t w = c.ptr_size;
  const ByteView& f = c.file;
  // moduledata is pointer-aligned data: scan the non-executable segments'
  // file bytes word by word for the table's address.
  for (const Segment& seg : c.segments) {
    if (seg.executable || !f.has(seg.offset, seg.filesz)) continue;
    const uint64_t first = (seg.offset + w - 1) / w * w;
    for (uint64_t at = first; at + w <= seg.offset + seg.filesz; at += w) {
      if (f.word(at, w) != *table_addr) continue;
      const bool go127 = go_minor ? *go_minor >= 27 : looksLikeGo127(f, at, w);
      const Positions p = positionsFor(t.layout(), go127);
      if (std::optional<ModuleLayout> m = readCandidate(c, t, *table_addr, at, p)) return m;
    }
  }
  return std::nullopt;
}

}  // namespace goheap::bin
