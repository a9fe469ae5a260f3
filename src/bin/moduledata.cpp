// Field positions, in words, from runtime/symtab.go's moduledata of each
// release (the facts are Go's; the code is goheap's own):
//   Go 1.5-1.15:  pclntable, ftab, filetab (slices), findfunctab, minpc,
//                 maxpc, then text, etext, noptrdata, ... enoptrbss.
//   Go 1.16+:     pcHeader, then six slices (funcnametab, cutab, filetab,
//                 pctab, pclntable, ftab), findfunctab, minpc, maxpc, text...
//   Go 1.16-1.17: after enoptrbss: end, gcdata, gcbss, types, etypes,
//                 textsectmap, typelinks, itablinks (slices).
//   Go 1.18-1.19: after etypes: rodata, gofunc, then the three slices.
//   Go 1.20+:     covctrs, ecovctrs come before end, so everything after
//                 moves by two.
//   Go 1.26+:     epclntab follows gofunc: the slices move by one.
//   Go 1.27+:     types, typedesclen, etypes, itaboffset, itabsize, rodata,
//                 gofunc, epclntab, textsectmap; no typelinks or itablinks.
//
// A position-independent executable holds these pointers as RELATIVE
// relocations, the file's words being 0: every word is read through
// Container::pointerAt, and candidates are found among the relocations too.
#include "bin/moduledata.h"

namespace goheap::bin {

namespace {

struct Positions {
  uint64_t minpc;
  uint64_t text;       // then etext, noptrdata, ..., enoptrbss
  uint64_t gofunc;     // 0: none in this release
  uint64_t words;      // how many words must be readable
  uint64_t types;      // runtime.types, then etypes (Go 1.27: typedesclen, etypes)
  uint64_t typelinks;  // 0: none (then itablinks 3 words later)
  bool go127;
};

constexpr Positions kGo120{20, 22, 40, 50, 37, 44, false};
constexpr Positions kGo126{20, 22, 40, 51, 37, 45, false};
constexpr Positions kGo127{20, 22, 43, 44, 37, 0, true};

Positions positionsFor(PclntabLayout l, std::optional<int> go_minor, bool go127) {
  switch (l) {
    case PclntabLayout::Go12:
      return {10, 12, 0, 22, 0, 0, false};  // types at 25 only since Go 1.7: not read
    case PclntabLayout::Go116:
      return {20, 22, 0, 46, 35, 40, false};
    case PclntabLayout::Go118:
      return {20, 22, 38, 48, 35, 42, false};
    case PclntabLayout::Go120:
      if (go127) return kGo127;
      return go_minor && *go_minor >= 26 ? kGo126 : kGo120;
  }
  return {20, 22, 0, 32, 0, 0, false};
}

// Reads the words of a candidate moduledata at link-time address `at`.
class Words {
 public:
  Words(const Container& c, uint64_t at) : c_(c), at_(at) {}
  bool readable(uint64_t n) const { return c_.readAt(at_, n * c_.ptr_size).has_value(); }
  uint64_t operator()(uint64_t i) const { return c_.pointerAt(at_ + i * c_.ptr_size).value_or(0); }

 private:
  const Container& c_;
  uint64_t at_;
};

// Go 1.27's moduledata follows types with typedesclen, etypes, itaboffset
// and itabsize, the itabs ending where the type data ends; before, etypes,
// rodata and gofunc follow it. For a file whose version is unknown.
bool looksLikeGo127(const Words& word) {
  if (!word.readable(kGo127.words)) return false;
  const uint64_t types = word(kGo127.types), etypes = word(kGo127.types + 2);
  const uint64_t itab_offset = word(kGo127.types + 3), itab_size = word(kGo127.types + 4);
  return etypes >= types && itab_offset <= etypes - types &&
         itab_offset + itab_size == etypes - types;
}

// Reads the candidate at link-time address `at` if it validates against `t`.
std::optional<ModuleLayout> readCandidate(const Pclntab& t, uint64_t table_addr, const Words& word,
                                          const Positions& p) {
  if (!word.readable(p.words)) return std::nullopt;
  if (t.layout() == PclntabLayout::Go12) {
    // pclntable covers the whole table; ftab starts at its function table.
    if (word(3) != table_addr + t.functionTableOffset()) return std::nullopt;
  } else if (word(1) != table_addr + t.funcnameTableOffset()) {
    return std::nullopt;
  }
  ModuleLayout m;
  uint64_t* fields[] = {&m.text,  &m.etext, &m.noptrdata, &m.enoptrdata, &m.data,
                        &m.edata, &m.bss,   &m.ebss,      &m.noptrbss,   &m.enoptrbss};
  for (uint64_t i = 0; i < 10; ++i) *fields[i] = word(p.text + i);
  for (uint64_t i = 0; i < 10; i += 2) {
    if (*fields[i] > *fields[i + 1]) return std::nullopt;
  }
  const uint64_t minpc = word(p.minpc);
  if (m.text > minpc) return std::nullopt;
  if (!t.funcs().empty()) {
    // The first function's entry: absolute when the table knows its text
    // start; else only its distance from the text start can be compared.
    const uint64_t first = t.funcs().front().entry;
    if (t.textStartFromHeader() ? minpc != first : minpc - m.text != first - t.textStart()) {
      return std::nullopt;
    }
  }
  if (p.gofunc != 0) m.gofunc = word(p.gofunc);
  if (p.types != 0) {
    m.types = word(p.types);
    if (p.go127) {
      m.type_descriptors_size = word(p.types + 1);
      m.etypes = word(p.types + 2);
    } else {
      m.etypes = word(p.types + 1);
    }
    if (m.etypes < m.types) m.etypes = 0;
  }
  if (p.typelinks != 0) {
    // Slices {ptr, len, cap}: a linker-written slice has len == cap.
    if (word(p.typelinks + 1) == word(p.typelinks + 2)) {
      m.typelinks = word(p.typelinks);
      m.typelinks_count = word(p.typelinks + 1);
    }
    if (word(p.typelinks + 4) == word(p.typelinks + 5)) {
      m.itablinks = word(p.typelinks + 3);
      m.itablinks_count = word(p.typelinks + 4);
    }
  }
  m.source = "moduledata";
  return m;
}

}  // namespace

std::optional<ModuleLayout> moduleLayoutFromModuledata(const Container& c, const Pclntab& t,
                                                       std::optional<int> go_minor) {
  const std::optional<uint64_t> table_addr = c.addressOf(t.fileOffset());
  if (!table_addr || *table_addr == 0) return std::nullopt;
  auto tryAt = [&](uint64_t at) -> std::optional<ModuleLayout> {
    const Words word(c, at);
    const bool go127 = go_minor ? *go_minor >= 27 : looksLikeGo127(word);
    return readCandidate(t, *table_addr, word, positionsFor(t.layout(), go_minor, go127));
  };
  // A position-independent file: the first word is a relocation's addend.
  for (const Relocation& r : c.relative_relocations) {
    if (r.addend != *table_addr) continue;
    if (std::optional<ModuleLayout> m = tryAt(r.addr)) return m;
  }
  // moduledata is pointer-aligned data: scan the non-executable segments'
  // file bytes word by word for the table's address.
  const uint32_t w = c.ptr_size;
  const ByteView& f = c.file;
  for (const Segment& seg : c.segments) {
    if (seg.executable || !f.has(seg.offset, seg.filesz)) continue;
    const uint64_t first = (seg.offset + w - 1) / w * w;
    for (uint64_t at = first; at + w <= seg.offset + seg.filesz; at += w) {
      if (f.word(at, w) != *table_addr) continue;
      if (std::optional<ModuleLayout> m = tryAt(seg.vaddr + (at - seg.offset))) return m;
    }
  }
  return std::nullopt;
}

}  // namespace goheap::bin
