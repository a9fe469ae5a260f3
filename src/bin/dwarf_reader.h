// The encoding layer of DWARF (versions 2 to 5): a bounds-checked cursor with
// LEB128, abbreviation tables, unit headers and attribute values by form.
// What the values mean is debug_info.cpp's business.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bin/bytes.h"
#include "bin/dwarf_sections.h"
#include "util/error.h"

namespace goheap::bin::dwarf {

// Reads forward through one section. A read past the end does not throw or
// return an Expected: it marks the cursor failed (remembering where) and
// yields zeros, so that the hot loop over millions of attributes checks once
// per DIE, not once per byte.
class Cursor {
 public:
  Cursor(ByteView bytes, uint64_t pos, std::string_view section)
      : b_(bytes), pos_(pos), section_(section) {}

  uint64_t pos() const { return pos_; }
  void seek(uint64_t pos) { pos_ = pos; }
  bool ok() const { return !failed_; }
  bool atEnd() const { return pos_ >= b_.size(); }
  const ByteView& bytes() const { return b_; }
  std::string_view section() const { return section_; }

  uint8_t u8();
  // The next byte without moving; 0 at the end.
  uint8_t peek() const { return atEnd() ? 0 : b_.u8(pos_); }
  uint16_t u16();
  uint32_t u24();
  uint32_t u32();
  uint64_t u64();
  uint64_t sized(uint32_t n);  // 1, 2, 4 or 8 bytes
  uint64_t uleb();
  int64_t sleb();
  std::string_view cstring();
  std::span<const uint8_t> block(uint64_t n);
  void skip(uint64_t n);

  // Marks the cursor failed at the current position, for a caller that finds
  // the bytes well-formed but their meaning impossible.
  void fail(std::string what);
  // The first failure, as an Error naming the section and offset.
  Error error() const;

 private:
  bool need(uint64_t n);

  ByteView b_;
  uint64_t pos_ = 0;
  std::string_view section_;
  bool failed_ = false;
  uint64_t fail_at_ = 0;
  std::string what_;
};

// DW_FORM_* (DWARF 5, section 7.5.6), and the GNU ones readers meet.
enum Form : uint16_t {
  kFormAddr = 0x01,
  kFormBlock2 = 0x03,
  kFormBlock4 = 0x04,
  kFormData2 = 0x05,
  kFormData4 = 0x06,
  kFormData8 = 0x07,
  kFormString = 0x08,
  kFormBlock = 0x09,
  kFormBlock1 = 0x0a,
  kFormData1 = 0x0b,
  kFormFlag = 0x0c,
  kFormSdata = 0x0d,
  kFormStrp = 0x0e,
  kFormUdata = 0x0f,
  kFormRefAddr = 0x10,
  kFormRef1 = 0x11,
  kFormRef2 = 0x12,
  kFormRef4 = 0x13,
  kFormRef8 = 0x14,
  kFormRefUdata = 0x15,
  kFormIndirect = 0x16,
  kFormSecOffset = 0x17,
  kFormExprloc = 0x18,
  kFormFlagPresent = 0x19,
  kFormStrx = 0x1a,
  kFormAddrx = 0x1b,
  kFormRefSup4 = 0x1c,
  kFormStrpSup = 0x1d,
  kFormData16 = 0x1e,
  kFormLineStrp = 0x1f,
  kFormRefSig8 = 0x20,
  kFormImplicitConst = 0x21,
  kFormLoclistx = 0x22,
  kFormRnglistx = 0x23,
  kFormRefSup8 = 0x24,
  kFormStrx1 = 0x25,
  kFormStrx2 = 0x26,
  kFormStrx3 = 0x27,
  kFormStrx4 = 0x28,
  kFormAddrx1 = 0x29,
  kFormAddrx2 = 0x2a,
  kFormAddrx3 = 0x2b,
  kFormAddrx4 = 0x2c,
  kFormGnuAddrIndex = 0x1f01,
  kFormGnuStrIndex = 0x1f02,
  kFormGnuRefAlt = 0x1f20,
  kFormGnuStrpAlt = 0x1f21,
};

struct AttrSpec {
  uint32_t attr = 0;
  uint16_t form = 0;
  int64_t implicit_const = 0;  // DW_FORM_implicit_const: the value lives here
};

struct Abbrev {
  uint32_t tag = 0;
  bool children = false;
  uint32_t first_spec = 0, spec_count = 0;  // into AbbrevTable::specs
};

// One abbreviation table (all the units of a Go executable share one).
class AbbrevTable {
 public:
  static Expected<AbbrevTable> read(ByteView abbrev, uint64_t offset);
  // Null for an unknown code.
  const Abbrev* find(uint64_t code) const {
    if (code < dense_.size()) return dense_[code].tag != 0 ? &dense_[code] : nullptr;
    auto it = sparse_.find(code);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  std::span<const AttrSpec> specs(const Abbrev& a) const {
    return std::span<const AttrSpec>(specs_).subspan(a.first_spec, a.spec_count);
  }

 private:
  std::vector<Abbrev> dense_;  // codes are small and consecutive in practice
  std::unordered_map<uint64_t, Abbrev> sparse_;
  std::vector<AttrSpec> specs_;
};

struct UnitHeader {
  uint64_t offset = 0;     // of the header in .debug_info
  uint64_t end = 0;        // one past the unit
  uint64_t die_start = 0;  // the first DIE
  uint16_t version = 0;
  uint8_t unit_type = 0;  // DW_UT_*; 1 (compile) for DWARF 2-4
  uint8_t addr_size = 0;
  uint8_t offset_size = 4;  // 8 for 64-bit DWARF
  uint64_t abbrev_offset = 0;
  // From the unit DIE (DWARF 5): where this unit's part of .debug_addr,
  // .debug_str_offsets and .debug_loclists starts.
  uint64_t addr_base = 0, str_offsets_base = 0, loclists_base = 0;
  // The unit DIE's DW_AT_low_pc: the base of DWARF 4 location list entries.
  uint64_t low_pc = 0;
};

// Reads the unit header at `offset` of .debug_info.
Expected<UnitHeader> readUnitHeader(const ByteView& info, uint64_t offset);

// An attribute's value as its form encodes it, before interpretation.
struct FormValue {
  uint16_t form = 0;
  uint64_t u = 0;                 // constants, addresses, offsets, indexes, flags
  int64_t s = 0;                  // DW_FORM_sdata, DW_FORM_implicit_const
  std::span<const uint8_t> data;  // blocks, exprlocs, inline strings
  bool present() const { return form != 0; }
};

// Reads the value of one attribute of form `spec.form` at the cursor.
FormValue readForm(Cursor& c, const AttrSpec& spec, const UnitHeader& u);

// Interprets form values in their unit: strings from .debug_str and friends,
// addresses from .debug_addr, references as .debug_info offsets.
class UnitContext {
 public:
  UnitContext(const DwarfSections& s, const UnitHeader& u) : s_(s), u_(u) {}
  const UnitHeader& unit() const { return u_; }
  UnitHeader& unit() { return u_; }
  const DwarfSections& sections() const { return s_; }

  // Empty for a non-string form or a string outside its section.
  std::string_view string(const FormValue& v) const;
  // An address (DW_FORM_addr, addrx*), or false.
  bool address(const FormValue& v, uint64_t& out) const;
  // A reference as an offset in .debug_info, or false.
  bool reference(const FormValue& v, uint64_t& out) const;
  // A constant (data*, udata, sdata, implicit_const), or false.
  bool constant(const FormValue& v, int64_t& out) const;
  // The address at index `i` of this unit's .debug_addr table.
  bool indexedAddress(uint64_t i, uint64_t& out) const;

 private:
  const DwarfSections& s_;
  UnitHeader u_;
};

}  // namespace goheap::bin::dwarf
