#include "bin/dwarf_location.h"

namespace goheap::bin::dwarf {

namespace {

// The address part of a CFA-relative location whose first operation `op`
// the cursor has just read: DW_OP_call_frame_cfa, alone (offset 0) or
// followed by DW_OP_consts N DW_OP_plus or DW_OP_plus_uconst N; or
// DW_OP_fbreg N when the frame base is the CFA. Leaves the cursor after it;
// nullopt for another operation, or DW_OP_consts without DW_OP_plus.
std::optional<int64_t> cfaAddress(Cursor& c, uint8_t op, bool cfa_base) {
  if (op == kOpFbreg && cfa_base) return c.sleb();
  if (op != kOpCallFrameCfa) return std::nullopt;
  if (!c.atEnd() && c.peek() == kOpConsts) {
    c.u8();
    const int64_t offset = c.sleb();
    if (c.u8() != kOpPlus) return std::nullopt;
    return offset;
  }
  if (!c.atEnd() && c.peek() == kOpPlusUconst) {
    c.u8();
    return static_cast<int64_t>(c.uleb());
  }
  return 0;
}

// Appends the CFA-relative pieces of one location expression.
void piecesOf(std::span<const uint8_t> expr, bool cfa_base, uint64_t lo, uint64_t hi,
              std::vector<LocationRange>& out) {
  Cursor c(ByteView(expr, false), 0, "location expression");
  uint64_t piece_offset = 0;
  while (c.ok() && !c.atEnd()) {
    std::optional<int64_t> offset;
    const uint8_t op = c.u8();
    if (op == kOpCallFrameCfa || (op == kOpFbreg && cfa_base)) {
      offset = cfaAddress(c, op, cfa_base);
      if (!offset) return;
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

// One entry of a location list: its location expression and PC range,
// `ranged` false when the range is not one to trust (a default location, an
// address index outside .debug_addr).
struct LocListEntry {
  uint64_t lo = 0, hi = 0;
  bool ranged = true;
  std::span<const uint8_t> expr;
};

// Calls fn(entry) for each entry of the DWARF 2-4 list at `offset` of
// .debug_loc that reads whole; true when the list ends with its end entry,
// false when it runs off the section.
template <class Fn>
bool forEachLocListEntryV4(const UnitContext& u, uint64_t offset, Fn&& fn) {
  Cursor c(u.sections().loc, offset, ".debug_loc");
  const uint32_t w = u.unit().addr_size;
  const uint64_t max_addr = w == 8 ? UINT64_MAX : (uint64_t{1} << (8 * w)) - 1;
  uint64_t base = u.unit().low_pc;
  while (c.ok() && !c.atEnd()) {
    const uint64_t begin = c.sized(w), end = c.sized(w);
    if (!c.ok()) return false;
    if (begin == 0 && end == 0) return true;
    if (begin == max_addr) {  // selects a new base address
      base = end;
      continue;
    }
    const std::span<const uint8_t> expr = c.block(c.u16());
    if (c.ok()) fn(LocListEntry{base + begin, base + end, true, expr});
  }
  return false;
}

// The same for a DWARF 5 list at `offset` of .debug_loclists; false also for
// an entry of an unknown kind.
template <class Fn>
bool forEachLocListEntryV5(const UnitContext& u, uint64_t offset, Fn&& fn) {
  Cursor c(u.sections().loclists, offset, ".debug_loclists");
  const uint32_t w = u.unit().addr_size;
  uint64_t base = u.unit().low_pc;
  auto indexed = [&](uint64_t i) {
    uint64_t a = 0;
    return u.indexedAddress(i, a) ? std::optional<uint64_t>(a) : std::nullopt;
  };
  while (c.ok()) {
    const uint8_t kind = c.u8();
    LocListEntry e;
    switch (kind) {
      case kLleEndOfList:
        return c.ok();
      case kLleBaseAddressx:
        if (auto a = indexed(c.uleb())) base = *a;
        continue;
      case kLleBaseAddress:
        base = c.sized(w);
        continue;
      case kLleStartxEndx: {
        auto a = indexed(c.uleb()), b = indexed(c.uleb());
        if (!a || !b) e.ranged = false;
        e.lo = a.value_or(0), e.hi = b.value_or(0);
        break;
      }
      case kLleStartxLength: {
        auto a = indexed(c.uleb());
        const uint64_t len = c.uleb();
        if (!a) e.ranged = false;
        e.lo = a.value_or(0), e.hi = e.lo + len;
        break;
      }
      case kLleOffsetPair:
        e.lo = base + c.uleb();
        e.hi = base + c.uleb();
        break;
      case kLleDefaultLocation:
        e.ranged = false;  // where no other entry applies: not a PC range to trust
        break;
      case kLleStartEnd:
        e.lo = c.sized(w);
        e.hi = c.sized(w);
        break;
      case kLleStartLength:
        e.lo = c.sized(w);
        e.hi = e.lo + c.uleb();
        break;
      default:
        return false;
    }
    e.expr = c.block(c.uleb());
    if (c.ok()) fn(e);
  }
  return false;
}

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

}  // namespace

std::optional<int64_t> cfaOffsetOf(std::span<const uint8_t> expr, bool frame_base_is_cfa) {
  if (expr.empty()) return std::nullopt;
  Cursor c(ByteView(expr, false), 0, "location expression");
  const std::optional<int64_t> offset = cfaAddress(c, c.u8(), frame_base_is_cfa);
  // Anything after the address (a DW_OP_piece, DW_OP_deref) is another shape.
  if (!offset || !c.ok() || !c.atEnd()) return std::nullopt;
  return offset;
}

std::optional<int64_t> locListCfaOffset(const UnitContext& u, uint64_t offset,
                                        bool frame_base_is_cfa) {
  Agreement a;
  auto add = [&](const LocListEntry& e) { a.add(cfaOffsetOf(e.expr, frame_base_is_cfa)); };
  const bool ended = u.unit().version >= 5 ? forEachLocListEntryV5(u, offset, add)
                                           : forEachLocListEntryV4(u, offset, add);
  return ended ? a.result() : std::nullopt;
}

void locListRangesV4(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out) {
  forEachLocListEntryV4(u, offset, [&](const LocListEntry& e) {
    piecesOf(e.expr, frame_base_is_cfa, e.lo, e.hi, out);
  });
}

void locListRangesV5(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out) {
  forEachLocListEntryV5(u, offset, [&](const LocListEntry& e) {
    if (e.ranged) piecesOf(e.expr, frame_base_is_cfa, e.lo, e.hi, out);
  });
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
