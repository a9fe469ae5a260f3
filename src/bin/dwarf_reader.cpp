#include "bin/dwarf_reader.h"

#include "util/format.h"

namespace goheap::bin::dwarf {

bool Cursor::need(uint64_t n) {
  if (failed_) return false;
  if (b_.has(pos_, n)) return true;
  fail("truncated: " + std::to_string(n) + " bytes needed, " +
       std::to_string(pos_ <= b_.size() ? b_.size() - pos_ : 0) + " left");
  return false;
}

void Cursor::fail(std::string what) {
  if (failed_) return;
  failed_ = true;
  fail_at_ = pos_;
  what_ = std::move(what);
}

Error Cursor::error() const {
  return Error::atOffset(fail_at_, section_, what_);
}

uint8_t Cursor::u8() {
  if (!need(1)) return 0;
  return b_.u8(pos_++);
}
uint16_t Cursor::u16() {
  if (!need(2)) return 0;
  const uint16_t v = b_.u16(pos_);
  pos_ += 2;
  return v;
}
uint32_t Cursor::u24() {
  if (!need(3)) return 0;
  const uint32_t b0 = b_.u8(pos_), b1 = b_.u8(pos_ + 1), b2 = b_.u8(pos_ + 2);
  pos_ += 3;
  return b_.bigEndian() ? (b0 << 16 | b1 << 8 | b2) : (b2 << 16 | b1 << 8 | b0);
}
uint32_t Cursor::u32() {
  if (!need(4)) return 0;
  const uint32_t v = b_.u32(pos_);
  pos_ += 4;
  return v;
}
uint64_t Cursor::u64() {
  if (!need(8)) return 0;
  const uint64_t v = b_.u64(pos_);
  pos_ += 8;
  return v;
}
uint64_t Cursor::sized(uint32_t n) {
  switch (n) {
    case 1:
      return u8();
    case 2:
      return u16();
    case 4:
      return u32();
    case 8:
      return u64();
    default:
      fail("unsupported size " + std::to_string(n));
      return 0;
  }
}

uint64_t Cursor::uleb() {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (!need(1)) return 0;
    const uint8_t byte = b_.u8(pos_++);
    // Bits beyond 64 are dropped; only their count is bounded, by the data.
    if (shift < 64) v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
}

int64_t Cursor::sleb() {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t byte = 0;
  do {
    if (!need(1)) return 0;
    byte = b_.u8(pos_++);
    if (shift < 64) v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    shift += 7;
  } while ((byte & 0x80) != 0);
  if (shift < 64 && (byte & 0x40) != 0) v |= ~uint64_t{0} << shift;
  return static_cast<int64_t>(v);
}

std::string_view Cursor::cstring() {
  if (failed_) return {};
  if (pos_ >= b_.size()) {
    fail("string past the end");
    return {};
  }
  const std::string_view s = b_.cstring(pos_);
  // cstring() gives "" both for an empty string and a missing NUL.
  if (s.empty() && b_.u8(pos_) != 0) {
    fail("unterminated string");
    return {};
  }
  pos_ += s.size() + 1;
  return s;
}

std::span<const uint8_t> Cursor::block(uint64_t n) {
  if (!need(n)) return {};
  auto s = b_.bytes().subspan(pos_, n);
  pos_ += n;
  return s;
}

void Cursor::skip(uint64_t n) {
  if (need(n)) pos_ += n;
}

Expected<AbbrevTable> AbbrevTable::read(ByteView abbrev, uint64_t offset) {
  AbbrevTable t;
  Cursor c(abbrev, offset, ".debug_abbrev");
  if (offset >= abbrev.size()) {
    return Error::atOffset(offset, ".debug_abbrev", "table offset past the end of the section");
  }
  for (;;) {
    const uint64_t at = c.pos();
    const uint64_t code = c.uleb();
    if (!c.ok()) return c.error();
    if (code == 0) break;
    Abbrev a;
    const uint64_t tag = c.uleb();
    a.children = c.u8() != 0;
    if (tag == 0 || tag > UINT32_MAX) return Error::atOffset(at, ".debug_abbrev", "bad tag");
    a.tag = static_cast<uint32_t>(tag);
    a.first_spec = static_cast<uint32_t>(t.specs_.size());
    for (;;) {
      AttrSpec s;
      const uint64_t attr = c.uleb();
      const uint64_t form = c.uleb();
      if (!c.ok()) return c.error();
      if (attr == 0 && form == 0) break;
      if (attr > UINT32_MAX || form > UINT16_MAX) {
        return Error::atOffset(c.pos(), ".debug_abbrev", "attribute or form out of range");
      }
      s.attr = static_cast<uint32_t>(attr);
      s.form = static_cast<uint16_t>(form);
      if (s.form == kFormImplicitConst) s.implicit_const = c.sleb();
      t.specs_.push_back(s);
    }
    a.spec_count = static_cast<uint32_t>(t.specs_.size() - a.first_spec);
    // Dense codes go in a vector; a stray huge code must not size it.
    if (code < 65536 && code < 4 * (t.dense_.size() + 64)) {
      if (code >= t.dense_.size()) t.dense_.resize(code + 1);
      if (t.dense_[code].tag != 0) return Error::atOffset(at, ".debug_abbrev", "duplicate code");
      t.dense_[code] = a;
    } else if (!t.sparse_.emplace(code, a).second) {
      return Error::atOffset(at, ".debug_abbrev", "duplicate code");
    }
  }
  return t;
}

Expected<UnitHeader> readUnitHeader(const ByteView& info, uint64_t offset) {
  UnitHeader u;
  u.offset = offset;
  Cursor c(info, offset, ".debug_info");
  uint64_t length = c.u32();
  if (length == 0xffffffff) {
    u.offset_size = 8;
    length = c.u64();
  } else if (length >= 0xfffffff0) {
    return Error::atOffset(offset, ".debug_info", "reserved unit length");
  }
  const uint64_t body = c.pos();
  if (!c.ok()) return c.error();
  if (!info.has(body, length)) {
    return Error::atOffset(offset, ".debug_info",
                           "unit of " + std::to_string(length) + " bytes runs past the section");
  }
  u.end = body + length;
  u.version = c.u16();
  if (u.version < 2 || u.version > 5) {
    return Error::atOffset(body, ".debug_info",
                           "unsupported DWARF version " + std::to_string(u.version));
  }
  if (u.version >= 5) {
    u.unit_type = c.u8();
    u.addr_size = c.u8();
    u.abbrev_offset = c.sized(u.offset_size);
    // Skeleton/split and type units carry an id (and a type offset).
    if (u.unit_type == 4 || u.unit_type == 5) c.skip(8);
    if (u.unit_type == 2 || u.unit_type == 6) c.skip(8 + u.offset_size);
  } else {
    u.unit_type = 1;
    u.abbrev_offset = c.sized(u.offset_size);
    u.addr_size = c.u8();
  }
  if (!c.ok()) return c.error();
  if (u.addr_size != 4 && u.addr_size != 8 && u.addr_size != 2) {
    return Error::atOffset(body, ".debug_info",
                           "unsupported address size " + std::to_string(u.addr_size));
  }
  u.die_start = c.pos();
  if (u.die_start > u.end) return Error::atOffset(offset, ".debug_info", "unit header too long");
  return u;
}

FormValue readForm(Cursor& c, const AttrSpec& spec, const UnitHeader& u) {
  FormValue v;
  v.form = spec.form;
  uint16_t form = spec.form;
  if (form == kFormIndirect) {
    const uint64_t f = c.uleb();
    if (f == kFormIndirect || f == kFormImplicitConst || f > UINT16_MAX) {
      c.fail("bad indirect form");
      return v;
    }
    form = v.form = static_cast<uint16_t>(f);
  }
  switch (form) {
    case kFormAddr:
      v.u = c.sized(u.addr_size);
      break;
    case kFormBlock1:
      v.data = c.block(c.u8());
      break;
    case kFormBlock2:
      v.data = c.block(c.u16());
      break;
    case kFormBlock4:
      v.data = c.block(c.u32());
      break;
    case kFormBlock:
    case kFormExprloc:
      v.data = c.block(c.uleb());
      break;
    case kFormData1:
    case kFormRef1:
    case kFormFlag:
    case kFormStrx1:
    case kFormAddrx1:
      v.u = c.u8();
      break;
    case kFormData2:
    case kFormRef2:
    case kFormStrx2:
    case kFormAddrx2:
      v.u = c.u16();
      break;
    case kFormStrx3:
    case kFormAddrx3:
      v.u = c.u24();
      break;
    case kFormData4:
    case kFormRef4:
    case kFormRefSup4:
    case kFormStrx4:
    case kFormAddrx4:
      v.u = c.u32();
      break;
    case kFormData8:
    case kFormRef8:
    case kFormRefSig8:
    case kFormRefSup8:
      v.u = c.u64();
      break;
    case kFormData16:
      v.data = c.block(16);
      break;
    case kFormString: {
      const std::string_view s = c.cstring();
      v.data = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
      break;
    }
    case kFormSdata:
      v.s = c.sleb();
      v.u = static_cast<uint64_t>(v.s);
      break;
    case kFormUdata:
    case kFormRefUdata:
    case kFormStrx:
    case kFormAddrx:
    case kFormLoclistx:
    case kFormRnglistx:
    case kFormGnuAddrIndex:
    case kFormGnuStrIndex:
      v.u = c.uleb();
      break;
    case kFormStrp:
    case kFormLineStrp:
    case kFormSecOffset:
    case kFormStrpSup:
    case kFormGnuRefAlt:
    case kFormGnuStrpAlt:
      v.u = c.sized(u.offset_size);
      break;
    case kFormRefAddr:
      // DWARF 2 made it address-sized; later versions offset-sized.
      v.u = c.sized(u.version == 2 ? u.addr_size : u.offset_size);
      break;
    case kFormFlagPresent:
      v.u = 1;
      break;
    case kFormImplicitConst:
      v.s = spec.implicit_const;
      v.u = static_cast<uint64_t>(v.s);
      break;
    default:
      c.fail("unknown attribute form " + formatHex(form));
  }
  return v;
}

std::string_view UnitContext::string(const FormValue& v) const {
  auto at = [](const ByteView& b, uint64_t off) -> std::string_view {
    return off < b.size() ? b.cstring(off) : std::string_view();
  };
  switch (v.form) {
    case kFormString:
      return {reinterpret_cast<const char*>(v.data.data()), v.data.size()};
    case kFormStrp:
      return at(s_.str, v.u);
    case kFormLineStrp:
      return at(s_.line_str, v.u);
    case kFormStrx:
    case kFormStrx1:
    case kFormStrx2:
    case kFormStrx3:
    case kFormStrx4:
    case kFormGnuStrIndex: {
      const uint64_t w = u_.offset_size;
      if (v.u > (UINT64_MAX - u_.str_offsets_base) / w) return {};
      const uint64_t slot = u_.str_offsets_base + v.u * w;
      if (!s_.str_offsets.has(slot, w)) return {};
      return at(s_.str, s_.str_offsets.word(slot, static_cast<uint32_t>(w)));
    }
    default:
      return {};
  }
}

bool UnitContext::indexedAddress(uint64_t i, uint64_t& out) const {
  const uint64_t w = u_.addr_size;
  if (i > (UINT64_MAX - u_.addr_base) / w) return false;
  const uint64_t slot = u_.addr_base + i * w;
  if (!s_.addr.has(slot, w)) return false;
  out = w == 8 ? s_.addr.u64(slot) : w == 4 ? s_.addr.u32(slot) : s_.addr.u16(slot);
  return true;
}

bool UnitContext::address(const FormValue& v, uint64_t& out) const {
  switch (v.form) {
    case kFormAddr:
      out = v.u;
      return true;
    case kFormAddrx:
    case kFormAddrx1:
    case kFormAddrx2:
    case kFormAddrx3:
    case kFormAddrx4:
    case kFormGnuAddrIndex:
      return indexedAddress(v.u, out);
    default:
      return false;
  }
}

bool UnitContext::reference(const FormValue& v, uint64_t& out) const {
  switch (v.form) {
    case kFormRef1:
    case kFormRef2:
    case kFormRef4:
    case kFormRef8:
    case kFormRefUdata:
      out = u_.offset + v.u;  // unit-relative
      return true;
    case kFormRefAddr:
      out = v.u;
      return true;
    default:
      return false;
  }
}

bool UnitContext::constant(const FormValue& v, int64_t& out) const {
  switch (v.form) {
    case kFormData1:
    case kFormData2:
    case kFormData4:
    case kFormData8:
    case kFormUdata:
      out = static_cast<int64_t>(v.u);
      return true;
    case kFormSdata:
    case kFormImplicitConst:
      out = v.s;
      return true;
    default:
      return false;
  }
}

}  // namespace goheap::bin::dwarf
