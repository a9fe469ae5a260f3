// Reading Go's pclntab. The facts (header fields, _func layout, pc-value
// encoding) come from Go's runtime/symtab.go and debug/gosym; the code is
// goheap's own.
#include "bin/pclntab.h"

#include <algorithm>
#include <string>

#include "util/enum_names.h"
#include "util/format.h"

namespace goheap::bin {

namespace {

constexpr uint32_t kMagic12 = 0xfffffffb;
constexpr uint32_t kMagic116 = 0xfffffffa;
constexpr uint32_t kMagic118 = 0xfffffff0;
constexpr uint32_t kMagic120 = 0xfffffff1;

constexpr std::string_view kWhere = "pclntab";

// Offsets in errors are file offsets (the table's own offset plus its place
// in the file), so a user can look at the bytes with a hex dump.
Error atFile(uint64_t table_in_file, uint64_t offset, std::string_view context,
             std::string_view what) {
  return Error::atOffset(table_in_file + offset, context, what);
}

std::optional<PclntabLayout> layoutOf(uint32_t magic) {
  switch (magic) {
    case kMagic12:
      return PclntabLayout::Go12;
    case kMagic116:
      return PclntabLayout::Go116;
    case kMagic118:
      return PclntabLayout::Go118;
    case kMagic120:
      return PclntabLayout::Go120;
    default:
      return std::nullopt;
  }
}

// _func fields after the entry: int32/uint32 each, in this order in every
// layout since Go 1.2 (field 2 was `frame` before 1.12, `deferreturn` since).
enum FuncField : uint32_t {
  kNameOff = 0,
  kArgs = 1,
  kDeferreturn = 2,  // Go 1.12+
  kPcSp = 3,
  kPcFile = 4,
  kPcLine = 5,
  kNpcdata = 6,
  kCuOffset = 7,
  kStartLine = 8  // Go 1.20+
};

}  // namespace

constexpr std::array<std::string_view, 4> kPclntabLayoutNames = {"go1.2", "go1.16", "go1.18",
                                                                 "go1.20"};
static_assert(namesEveryValue(kPclntabLayoutNames, PclntabLayout::Go120));

std::string_view pclntabLayoutName(PclntabLayout l) {
  return enumName(l, kPclntabLayoutNames, "unknown");
}

Expected<Pclntab> Pclntab::parse(std::span<const uint8_t> data, uint64_t text_start,
                                 uint64_t file_offset) {
  if (data.size() < 8) return atFile(file_offset, 0, kWhere, "shorter than its 8-byte header");
  ByteView le(data, false);
  ByteView be(data, true);
  std::optional<PclntabLayout> layout = layoutOf(le.u32(0));
  const bool big = !layout.has_value();
  if (big) layout = layoutOf(be.u32(0));
  if (!layout) return atFile(file_offset, 0, kWhere, "no pclntab magic");
  Pclntab t;
  t.data_ = big ? be : le;
  t.file_offset_ = file_offset;
  t.layout_ = *layout;
  const ByteView& d = t.data_;
  if (d.u8(4) != 0 || d.u8(5) != 0)
    return atFile(file_offset, 4, kWhere, "header padding not zero");
  t.quantum_ = d.u8(6);
  t.ptr_size_ = d.u8(7);
  if (t.quantum_ != 1 && t.quantum_ != 2 && t.quantum_ != 4) {
    return atFile(file_offset, 6, kWhere, "bad PC quantum " + std::to_string(t.quantum_));
  }
  if (t.ptr_size_ != 4 && t.ptr_size_ != 8) {
    return atFile(file_offset, 7, kWhere, "bad pointer size " + std::to_string(t.ptr_size_));
  }
  const uint32_t w = t.ptr_size_;
  auto word = [&](uint64_t i) { return d.word(8 + i * w, w); };
  switch (t.layout_) {
    case PclntabLayout::Go12:
      if (!d.has(8, w)) return atFile(file_offset, 8, kWhere, "truncated header");
      t.nfunc_ = word(0);
      t.functab_off_ = 8 + w;
      break;
    case PclntabLayout::Go116:
    case PclntabLayout::Go118:
    case PclntabLayout::Go120: {
      // nfunc, nfiles, then (since 1.18) textStart, then the five offsets.
      const bool has_text_start = t.textRelative();
      const uint64_t first_offset = has_text_start ? 3 : 2;
      if (!d.has(8, (first_offset + 5) * w)) {
        return atFile(file_offset, 8, kWhere, "truncated header");
      }
      t.nfunc_ = word(0);
      if (has_text_start) t.text_start_ = word(2);
      t.funcname_off_ = word(first_offset);
      t.cu_off_ = word(first_offset + 1);
      t.filetab_off_ = word(first_offset + 2);
      t.pctab_off_ = word(first_offset + 3);
      t.functab_off_ = word(first_offset + 4);
      if (has_text_start && t.text_start_ == 0) {
        t.text_start_ = text_start;
        t.text_start_from_header_ = false;
      }
      break;
    }
  }
  for (uint64_t off : {t.funcname_off_, t.cu_off_, t.filetab_off_, t.pctab_off_, t.functab_off_}) {
    if (off > d.size()) {
      return atFile(file_offset, 8, kWhere,
                    "sub-table offset " + std::to_string(off) + " past the end (" +
                        std::to_string(d.size()) + " bytes)");
    }
  }
  if (Status s = t.readFuncs(); !s) return s.error();
  return t;
}

Status Pclntab::setTextStart(uint64_t text_start) {
  if (text_start_from_header_ || !textRelative() || text_start == text_start_) {
    return Status::success();
  }
  text_start_ = text_start;
  funcs_.clear();
  return readFuncs();
}

Status Pclntab::readFuncs() {
  const ByteView& d = data_;
  // Since 1.18 entries are 32-bit offsets from the text start; before, PCs.
  const bool new_layout = textRelative();
  const uint64_t field = entryFieldSize();
  const uint64_t entry_size = 2 * field;
  if (nfunc_ >= d.size() / entry_size || !d.has(functab_off_, (nfunc_ + 1) * entry_size)) {
    return atFile(file_offset_, functab_off_, "pclntab function table",
                  std::to_string(nfunc_) + " functions do not fit in the table");
  }
  auto pcAt = [&](uint64_t i) {
    const uint64_t v = d.word(functab_off_ + i * entry_size, static_cast<uint32_t>(field));
    return new_layout ? text_start_ + v : v;
  };
  // _func offsets are relative to the function table since 1.16, to the
  // pclntab before; so are function names (to the name table since 1.16).
  const uint64_t func_base = layout_ == PclntabLayout::Go12 ? 0 : functab_off_;
  const uint64_t name_base = layout_ == PclntabLayout::Go12 ? 0 : funcname_off_;
  const uint64_t func_min_size = field + 4 * (kCuOffset + 1);
  if (layout_ == PclntabLayout::Go12) {
    // Go 1.2-1.15: the file table's offset follows the function table's end PC.
    const uint64_t at = functab_off_ + (nfunc_ + 1) * entry_size - field;
    if (!d.has(at, 4)) return atFile(file_offset_, at, kWhere, "file table offset truncated");
    filetab_off_ = d.u32(at);
  }
  funcs_.resize(nfunc_);
  for (uint64_t i = 0; i < nfunc_; ++i) {
    const uint64_t at = functab_off_ + i * entry_size;
    Func& f = funcs_[i];
    f.entry = pcAt(i);
    f.end = pcAt(i + 1);
    f.func_offset = func_base + d.word(at + field, static_cast<uint32_t>(field));
    if (f.end < f.entry) {
      return atFile(file_offset_, at, "pclntab function table",
                    "entries not sorted at function " + std::to_string(i));
    }
    if (!d.has(f.func_offset, func_min_size)) {
      return atFile(file_offset_, at, "pclntab function table",
                    "_func record of function " + std::to_string(i) + " out of range");
    }
    f.name = d.cstring(name_base + d.u32(f.func_offset + field + 4 * kNameOff));
  }
  return Status::success();
}

const Func* Pclntab::funcAt(uint64_t pc) const {
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), pc,
                             [](uint64_t p, const Func& f) { return p < f.entry; });
  if (it == funcs_.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

template <class Fn>
Status Pclntab::forEachPcValue(const Func& f, uint64_t table_offset, Fn&& fn) const {
  const ByteView& d = data_;
  uint64_t p = (layout_ == PclntabLayout::Go12 ? 0 : pctab_off_) + table_offset;
  // Summed modulo 2^64: a corrupt table may overflow, which must not be UB.
  uint64_t value = UINT64_MAX;  // -1
  uint64_t cur = f.entry;
  for (bool first = true;; first = false) {
    const uint64_t at = p;
    uint64_t uv = 0;
    uint64_t pc_delta = 0;
    if (!d.uvarint(p, uv))
      return atFile(file_offset_, at, "pclntab pc-value table", "truncated value");
    if (uv == 0 && !first) return Status::success();
    // zig-zag: the low bit says the delta is negative.
    const int64_t delta =
        (uv & 1) != 0 ? ~static_cast<int64_t>(uv >> 1) : static_cast<int64_t>(uv >> 1);
    value += static_cast<uint64_t>(delta);
    if (!d.uvarint(p, pc_delta)) {
      return atFile(file_offset_, at, "pclntab pc-value table", "truncated pc");
    }
    const uint64_t begin = cur;
    cur += pc_delta * quantum_;
    // A corrupt table could run on forever; no run ends past the function.
    if (!fn(begin, cur, static_cast<int64_t>(value)) || cur >= f.end || cur < begin) {
      return Status::success();
    }
  }
}

Expected<int64_t> Pclntab::pcValue(const Func& f, uint64_t table_offset, uint64_t pc) const {
  if (table_offset == 0) return int64_t{-1};  // the function has no such table
  int64_t found = -1;
  Status s = forEachPcValue(f, table_offset, [&](uint64_t, uint64_t end, int64_t value) {
    if (pc < end) {
      found = value;
      return false;
    }
    return true;
  });
  if (!s) return s.error();
  return found;
}

Expected<std::vector<uint64_t>> Pclntab::pcsOfLine(const Func& f, int64_t line) const {
  std::vector<uint64_t> pcs;
  const uint64_t pcln = data_.u32(f.func_offset + entryFieldSize() + 4 * kPcLine);
  if (pcln == 0) return pcs;
  Status s = forEachPcValue(f, pcln, [&](uint64_t begin, uint64_t end, int64_t value) {
    if (value == line && begin < end) pcs.push_back(begin);
    return true;
  });
  if (!s) return s.error();
  return pcs;
}

Expected<std::string_view> Pclntab::fileName(const Func& f, int64_t file_index) const {
  const ByteView& d = data_;
  if (file_index < 0) return std::string_view{};
  const auto idx = static_cast<uint64_t>(file_index);
  if (layout_ == PclntabLayout::Go12) {
    // A count, then one offset (from the pclntab start) per file; file
    // numbers start at 1.
    if (!d.has(filetab_off_, 4)) return atFile(file_offset_, filetab_off_, kWhere, "no file table");
    const uint64_t n = d.u32(filetab_off_);
    // Go 1.5's assembly functions carry file numbers past the table's end
    // (their lines are still right); the file is unknown then, as gosym says.
    if (idx == 0 || idx >= n || !d.has(filetab_off_ + 4 * idx, 4)) return std::string_view{};
    return d.cstring(d.u32(filetab_off_ + 4 * idx));
  }
  // Since 1.16 a file number indexes the function's compile unit's slice of
  // the cutab, which holds offsets into the file name table.
  const uint64_t cu = d.u32(f.func_offset + entryFieldSize() + 4 * kCuOffset);
  auto outOfRange = [&](uint64_t at) {
    return atFile(
        file_offset_, at, "pclntab cutab",
        "file number " + std::to_string(idx) + " of " + std::string(f.name) + " out of range");
  };
  if (idx > d.size()) return outOfRange(f.func_offset);
  const uint64_t slot = cu_off_ + (cu + idx) * 4;
  if (!d.has(slot, 4)) return outOfRange(slot);
  const uint32_t off = d.u32(slot);
  if (off == UINT32_MAX) return std::string_view{};
  return d.cstring(filetab_off_ + off);
}

uint64_t Pclntab::entryFieldSize() const {
  return textRelative() ? 4 : ptr_size_;
}

uint64_t Pclntab::funcFixedSize() const {
  // The int32 fields after the entry, then four bytes ending in nfuncdata:
  // Go 1.2-1.15 have no cuOffset, Go 1.20 adds startLine.
  uint64_t fields = 8;
  if (layout_ == PclntabLayout::Go12) fields = 7;
  if (layout_ == PclntabLayout::Go120) fields = 9;
  return entryFieldSize() + 4 * fields + 4;
}

Expected<Location> Pclntab::pcToLineIn(const Func& f, uint64_t pc) const {
  const uint64_t field = entryFieldSize();
  const ByteView& d = data_;
  // readFuncs checked that the fields up to cuOffset are inside the table.
  const uint64_t pcfile = d.u32(f.func_offset + field + 4 * kPcFile);
  const uint64_t pcln = d.u32(f.func_offset + field + 4 * kPcLine);
  GOHEAP_TRY(int64_t file, pcValue(f, pcfile, pc));
  GOHEAP_TRY(int64_t line, pcValue(f, pcln, pc));
  GOHEAP_TRY(std::string_view name, fileName(f, file));
  Location loc;
  loc.func = &f;
  loc.file = name;
  loc.line = line < 0 ? 0 : line;
  return loc;
}

Expected<Location> Pclntab::pcToLine(uint64_t pc) const {
  const Func* f = funcAt(pc);
  if (f == nullptr) return Error("no function of the pclntab holds " + formatHex(pc));
  return pcToLineIn(*f, pc);
}

Expected<int64_t> Pclntab::spDelta(uint64_t pc) const {
  const Func* f = funcAt(pc);
  if (f == nullptr) return Error("no function of the pclntab holds " + formatHex(pc));
  const uint64_t pcsp = data_.u32(f->func_offset + entryFieldSize() + 4 * kPcSp);
  GOHEAP_TRY(int64_t v, pcValue(*f, pcsp, pc));
  // No table (assembly without a frame): the SP has not moved.
  return v < 0 ? int64_t{0} : v;
}

Expected<int64_t> Pclntab::pcdata(const Func& f, uint32_t table, uint64_t pc) const {
  const ByteView& d = data_;
  const uint64_t fixed = funcFixedSize();
  const uint64_t npcdata = d.u32(f.func_offset + entryFieldSize() + 4 * kNpcdata);
  if (table >= npcdata) return int64_t{-1};
  const uint64_t slot = f.func_offset + fixed + 4 * uint64_t{table};
  if (!d.has(slot, 4)) {
    return atFile(file_offset_, slot, "pclntab _func", "pcdata slot past the end of the table");
  }
  return pcValue(f, d.u32(slot), pc);
}

std::optional<uint64_t> Pclntab::funcdata(const Func& f, uint32_t index) const {
  const ByteView& d = data_;
  const uint64_t fixed = funcFixedSize();
  if (!d.has(f.func_offset, fixed)) return std::nullopt;
  const uint64_t nfuncdata = d.u8(f.func_offset + fixed - 1);
  if (index >= nfuncdata) return std::nullopt;
  const uint64_t npcdata = d.u32(f.func_offset + entryFieldSize() + 4 * kNpcdata);
  if (npcdata > d.size()) return std::nullopt;
  uint64_t at = fixed + 4 * npcdata;
  if (textRelative()) {
    at = f.func_offset + at + 4 * uint64_t{index};
    if (!d.has(at, 4)) return std::nullopt;
    const uint32_t off = d.u32(at);
    if (off == UINT32_MAX) return std::nullopt;
    return off;
  }
  // Before 1.18 the slots are pointers, aligned to the pointer size from the
  // _func's start (which the linker aligns so).
  at = (at + ptr_size_ - 1) / ptr_size_ * ptr_size_;
  at = f.func_offset + at + uint64_t{ptr_size_} * index;
  if (!d.has(at, ptr_size_)) return std::nullopt;
  const uint64_t addr = d.word(at, ptr_size_);
  if (addr == 0) return std::nullopt;
  return addr;
}

std::optional<int64_t> Pclntab::startLineField(const Func& f) const {
  if (layout_ != PclntabLayout::Go120) return std::nullopt;
  const uint64_t at = f.func_offset + entryFieldSize() + 4 * kStartLine;
  if (!data_.has(at, 4)) return std::nullopt;
  return static_cast<int32_t>(data_.u32(at));
}

std::optional<int32_t> Pclntab::argsField(const Func& f) const {
  const uint64_t at = f.func_offset + entryFieldSize() + 4 * kArgs;
  if (!data_.has(at, 4)) return std::nullopt;
  return static_cast<int32_t>(data_.u32(at));
}

std::optional<uint32_t> Pclntab::deferreturnField(const Func& f) const {
  const uint64_t at = f.func_offset + entryFieldSize() + 4 * kDeferreturn;
  if (!data_.has(at, 4)) return std::nullopt;
  return data_.u32(at);
}

std::string_view Pclntab::funcNameAt(uint64_t name_offset) const {
  const uint64_t base = layout_ == PclntabLayout::Go12 ? 0 : funcname_off_;
  if (name_offset > data_.size()) return {};
  return data_.cstring(base + name_offset);
}

Expected<Location> Pclntab::lookup(uint64_t pc) const {
  const Func* f = funcAt(pc);
  if (f != nullptr && f->entry == pc) return pcToLine(pc);
  if (pc == 0 || funcAt(pc - 1) == nullptr) {
    return Error("no function of the pclntab holds the instruction before " + formatHex(pc));
  }
  return pcToLine(pc - 1);
}

Expected<Pclntab> findPclntab(const Container& c) {
  // Go's text starts at runtime.text, which an external linker may put
  // after C code at the start of .text.
  const Section* text = c.section(".text");
  if (text == nullptr) text = c.section("__text");
  const Symbol* go_text = c.symbol("runtime.text");
  const uint64_t text_start = go_text != nullptr ? go_text->value
                              : text != nullptr  ? text->addr
                                                 : 0;
  // A position-independent ELF keeps it in relro, under another name.
  for (std::string_view name : {".gopclntab", "__gopclntab", ".data.rel.ro.gopclntab"}) {
    if (const Section* s = c.section(name)) {
      GOHEAP_TRY(ByteView bytes, c.sectionData(*s));
      Expected<Pclntab> t = Pclntab::parse(bytes.bytes(), text_start, s->offset);
      if (!t) return Error("section " + std::string(name) + ", " + t.error().message());
      return t;
    }
  }
  // PE has no pclntab section; unstripped files name its bounds by symbols.
  const Symbol* begin = c.symbol("runtime.pclntab");
  const Symbol* end = c.symbol("runtime.epclntab");
  if (begin != nullptr && end != nullptr && end->value > begin->value) {
    if (std::optional<ByteView> bytes = c.readAt(begin->value, end->value - begin->value)) {
      const auto at = static_cast<uint64_t>(bytes->bytes().data() - c.file.bytes().data());
      Expected<Pclntab> t = Pclntab::parse(bytes->bytes(), text_start, at);
      if (!t) return Error("runtime.pclntab, " + t.error().message());
      return t;
    }
  }
  // No section: scan. The table is at least 4-byte aligned in every Go
  // release, and a candidate must parse completely before it is believed.
  const ByteView& f = c.file;
  for (uint64_t off = 0; f.has(off, 8); off += 4) {
    const uint32_t le = ByteView(f.bytes(), false).u32(off);
    const uint32_t be = ByteView(f.bytes(), true).u32(off);
    if (!layoutOf(le) && !layoutOf(be)) continue;
    Expected<Pclntab> t = Pclntab::parse(f.bytes().subspan(off), text_start, off);
    if (t && !t->funcs().empty()) return t;
  }
  return Error("no pclntab found (no .gopclntab section and no valid table in the file)");
}

bool isClosureName(std::string_view name) {
  if (name.ends_with("-fm")) return true;
  // Strip the ".N" of nested closures, then look for funcN or -rangeN.
  auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  while (true) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || !digits(name.substr(dot + 1))) break;
    name = name.substr(0, dot);
  }
  for (const std::string_view mark : {".func", "-range"}) {
    const size_t at = name.rfind(mark);
    if (at != std::string_view::npos && digits(name.substr(at + mark.size()))) return true;
  }
  return false;
}

}  // namespace goheap::bin
