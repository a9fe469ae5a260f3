#include "bin/dwarf_location.h"

namespace goheap::bin::dwarf {

namespace {

constexpr uint8_t kOpConsts = 0x11;
constexpr uint8_t kOpPlus = 0x22;
constexpr uint8_t kOpPlusUconst = 0x23;
constexpr uint8_t kOpFbreg = 0x91;
constexpr uint8_t kOpCallFrameCfa = 0x9c;
constexpr uint8_t kOpReg0 = 0x50, kOpReg31 = 0x6f;
constexpr uint8_t kOpRegx = 0x90;
constexpr uint8_t kOpPiece = 0x93;

// Appends the CFA-relative pieces of one location expression.
void piecesOf(std::span<const uint8_t> expr, bool cfa_base, uint64_t lo, uint64_t hi,
              std::vector<LocationRange>& out) {
  Cursor c(ByteView(expr, false), 0, "location expression");
  uint64_t piece_offset = 0;
  while (c.ok() && !c.atEnd()) {
    std::optional<int64_t> offset;
    const uint8_t op = c.u8();
    if (op == kOpCallFrameCfa) {
      offset = 0;
      if (!c.atEnd() && c.peek() == kOpConsts) {
        c.u8();
        offset = c.sleb();
        if (c.u8() != kOpPlus) return;
      } else if (!c.atEnd() && c.peek() == kOpPlusUconst) {
        c.u8();
        offset = static_cast<int64_t>(c.uleb());
      }
    } else if (op == kOpFbreg && cfa_base) {
      offset = c.sleb();
    } else if (op >= kOpReg0 && op <= kOpReg31) {
      // in a register: nothing goheap can read
    } else if (op == kOpRegx) {
      c.uleb();
    } else if (op == kOpPiece) {
      piece_offset += c.uleb();  // an empty piece: optimized away
      continue;
    } else {
      return;  // another shape: give up on the rest
    }
    if (!c.ok()) return;
    if (c.atEnd()) {
      if (offset) out.push_back({lo, hi, *offset, static_cast<uint32_t>(piece_offset), 0});
      return;
    }
    if (c.u8() != kOpPiece) return;
    const uint64_t size = c.uleb();
    if (!c.ok()) return;
    if (offset) {
      out.push_back(
          {lo, hi, *offset, static_cast<uint32_t>(piece_offset), static_cast<uint32_t>(size)});
    }
    piece_offset += size;
  }
}

// DW_LLE_* (DWARF 5, section 7.7.3).
constexpr uint8_t kLleEndOfList = 0;
constexpr uint8_t kLleBaseAddressx = 1;
constexpr uint8_t kLleStartxEndx = 2;
constexpr uint8_t kLleStartxLength = 3;
constexpr uint8_t kLleOffsetPair = 4;
constexpr uint8_t kLleDefaultLocation = 5;
constexpr uint8_t kLleBaseAddress = 6;
constexpr uint8_t kLleStartEnd = 7;
constexpr uint8_t kLleStartLength = 8;

// Folds one entry's offset into the list's answer: the same offset in every
// entry, or none.
struct Agreement {
  std::optional<int64_t> value;
  bool seen = false, differ = false;
  void add(std::optional<int64_t> v) {
    if (!v || (seen && v != value)) differ = true;
    seen = true;
    value = v;
  }
  std::optional<int64_t> result() const { return seen && !differ ? value : std::nullopt; }
};

std::optional<int64_t> locListV4(const UnitContext& u, uint64_t offset, bool cfa_base) {
  const ByteView& loc = u.sections().loc;
  Cursor c(loc, offset, ".debug_loc");
  const uint32_t w = u.unit().addr_size;
  const uint64_t max_addr = w == 8 ? UINT64_MAX : (uint64_t{1} << (8 * w)) - 1;
  Agreement a;
  while (c.ok() && !c.atEnd()) {
    const uint64_t begin = c.sized(w), end = c.sized(w);
    if (!c.ok()) break;
    if (begin == 0 && end == 0) return a.result();
    if (begin == max_addr) continue;  // selects a new base address
    a.add(cfaOffsetOf(c.block(c.u16()), cfa_base));
  }
  return std::nullopt;  // ran off the section without an end entry
}

std::optional<int64_t> locListV5(const UnitContext& u, uint64_t offset, bool cfa_base) {
  Cursor c(u.sections().loclists, offset, ".debug_loclists");
  const uint32_t w = u.unit().addr_size;
  Agreement a;
  while (c.ok()) {
    const uint8_t kind = c.u8();
    switch (kind) {
      case kLleEndOfList:
        return c.ok() ? a.result() : std::nullopt;
      case kLleBaseAddressx:
        c.uleb();
        continue;
      case kLleBaseAddress:
        c.sized(w);
        continue;
      case kLleStartxEndx:
      case kLleStartxLength:
      case kLleOffsetPair:
        c.uleb();
        c.uleb();
        break;
      case kLleDefaultLocation:
        break;
      case kLleStartEnd:
        c.sized(w);
        c.sized(w);
        break;
      case kLleStartLength:
        c.sized(w);
        c.uleb();
        break;
      default:
        return std::nullopt;
    }
    a.add(cfaOffsetOf(c.block(c.uleb()), cfa_base));
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> cfaOffsetOf(std::span<const uint8_t> expr, bool frame_base_is_cfa) {
  if (expr.empty()) return std::nullopt;
  Cursor c(ByteView(expr, false), 0, "location expression");
  const uint8_t op = c.u8();
  int64_t offset = 0;
  if (op == kOpCallFrameCfa) {
    if (!c.atEnd()) {
      const uint8_t next = c.u8();
      if (next == kOpConsts) {
        offset = c.sleb();
        if (c.u8() != kOpPlus) return std::nullopt;
      } else if (next == kOpPlusUconst) {
        offset = static_cast<int64_t>(c.uleb());
      } else {
        return std::nullopt;
      }
    }
  } else if (op == kOpFbreg && frame_base_is_cfa) {
    offset = c.sleb();
  } else {
    return std::nullopt;
  }
  // Anything after the address (a DW_OP_piece, DW_OP_deref) is another shape.
  if (!c.ok() || !c.atEnd()) return std::nullopt;
  return offset;
}

std::optional<int64_t> locListCfaOffset(const UnitContext& u, uint64_t offset,
                                        bool frame_base_is_cfa) {
  return u.unit().version >= 5 ? locListV5(u, offset, frame_base_is_cfa)
                               : locListV4(u, offset, frame_base_is_cfa);
}

void locListRangesV4(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out) {
  Cursor c(u.sections().loc, offset, ".debug_loc");
  const uint32_t w = u.unit().addr_size;
  const uint64_t max_addr = w == 8 ? UINT64_MAX : (uint64_t{1} << (8 * w)) - 1;
  uint64_t base = u.unit().low_pc;
  while (c.ok() && !c.atEnd()) {
    const uint64_t begin = c.sized(w), end = c.sized(w);
    if (!c.ok() || (begin == 0 && end == 0)) return;
    if (begin == max_addr) {  // selects a new base address
      base = end;
      continue;
    }
    piecesOf(c.block(c.u16()), frame_base_is_cfa, base + begin, base + end, out);
  }
}

void locListRangesV5(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out) {
  Cursor c(u.sections().loclists, offset, ".debug_loclists");
  const uint32_t w = u.unit().addr_size;
  uint64_t base = u.unit().low_pc;
  auto indexed = [&](uint64_t i) {
    uint64_t a = 0;
    return u.indexedAddress(i, a) ? std::optional<uint64_t>(a) : std::nullopt;
  };
  while (c.ok()) {
    const uint8_t kind = c.u8();
    uint64_t lo = 0, hi = 0;
    bool ranged = true;
    switch (kind) {
      case kLleEndOfList:
        return;
      case kLleBaseAddressx:
        if (auto a = indexed(c.uleb())) base = *a;
        continue;
      case kLleBaseAddress:
        base = c.sized(w);
        continue;
      case kLleStartxEndx: {
        auto a = indexed(c.uleb()), b = indexed(c.uleb());
        if (!a || !b) ranged = false;
        lo = a.value_or(0), hi = b.value_or(0);
        break;
      }
      case kLleStartxLength: {
        auto a = indexed(c.uleb());
        const uint64_t len = c.uleb();
        if (!a) ranged = false;
        lo = a.value_or(0), hi = lo + len;
        break;
      }
      case kLleOffsetPair:
        lo = base + c.uleb();
        hi = base + c.uleb();
        break;
      case kLleDefaultLocation:
        ranged = false;  // where no other entry applies: not a PC range to trust
        break;
      case kLleStartEnd:
        lo = c.sized(w);
        hi = c.sized(w);
        break;
      case kLleStartLength:
        lo = c.sized(w);
        hi = lo + c.uleb();
        break;
      default:
        return;
    }
    const std::span<const uint8_t> expr = c.block(c.uleb());
    if (c.ok() && ranged) piecesOf(expr, frame_base_is_cfa, lo, hi, out);
  }
}

std::optional<uint64_t> locListxOffset(const UnitContext& u, uint64_t i) {
  // DW_AT_loclists_base points past the table header, at the offsets array;
  // each entry is relative to that same base.
  const ByteView& ll = u.sections().loclists;
  const uint64_t base = u.unit().loclists_base, w = u.unit().offset_size;
  if (i > (UINT64_MAX - base) / w || !ll.has(base + i * w, w)) return std::nullopt;
  return base + ll.word(base + i * w, static_cast<uint32_t>(w));
}

}  // namespace goheap::bin::dwarf
