// Per-PC variable places from location lists, DWARF 4 (.debug_loc, what Go
// 1.19-1.24 write) and DWARF 5 (.debug_loclists, Go 1.25+), over lists
// written here byte by byte from the DWARF 5 standard (sections 2.6.2 and
// 7.7.3): entries that are a fixed CFA offset give a range, registers give
// none, and DW_OP_piece splits a variable into parts.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "bin/dwarf_location.h"

namespace goheap::bin::dwarf {
namespace {

// DW_OP_call_frame_cfa; DW_OP_consts N; DW_OP_plus for a small negative N.
std::vector<uint8_t> cfaMinus(uint8_t n) {
  return {0x9c, 0x11, static_cast<uint8_t>(0x80 - n), 0x22};
}

void append(std::vector<uint8_t>& v, std::initializer_list<uint8_t> bytes) {
  v.insert(v.end(), bytes);
}
void appendU64(std::vector<uint8_t>& v, uint64_t x) {
  for (int i = 0; i < 8; i++) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}

TEST(LocationLists, Dwarf5EntriesGivePcRangesAndPieces) {
  std::vector<uint8_t> addr;
  appendU64(addr, 0x2000);  // index 0
  std::vector<uint8_t> ll;
  append(ll, {0x01, 0x00});        // DW_LLE_base_addressx 0 -> base 0x2000
  append(ll, {0x04, 0x10, 0x20});  // DW_LLE_offset_pair [0x2010, 0x2020)
  auto e1 = cfaMinus(24);
  ll.push_back(static_cast<uint8_t>(e1.size()));
  ll.insert(ll.end(), e1.begin(), e1.end());
  ll.push_back(0x08);  // DW_LLE_start_length 0x3000, 0x10
  appendU64(ll, 0x3000);
  ll.push_back(0x10);
  // In a register for its first 8 bytes, at CFA-16 for the next 8.
  std::vector<uint8_t> e2 = {0x50, 0x93, 0x08};
  auto c = cfaMinus(16);
  e2.insert(e2.end(), c.begin(), c.end());
  append(e2, {0x93, 0x08});
  ll.push_back(static_cast<uint8_t>(e2.size()));
  ll.insert(ll.end(), e2.begin(), e2.end());
  append(ll, {0x04, 0x30, 0x40, 0x01, 0x50});  // offset pair, in register 0 only
  ll.push_back(0x00);                          // DW_LLE_end_of_list

  DwarfSections s;
  s.loclists = ByteView(ll, false);
  s.addr = ByteView(addr, false);
  UnitHeader h;
  h.version = 5;
  h.addr_size = 8;
  h.low_pc = 0x1000;
  UnitContext u(s, h);
  std::vector<LocationRange> out;
  locListRangesV5(u, 0, /*frame_base_is_cfa=*/true, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].lo, 0x2010u);
  EXPECT_EQ(out[0].hi, 0x2020u);
  EXPECT_EQ(out[0].cfa_offset, -24);
  EXPECT_EQ(out[0].piece_size, 0u);  // the whole variable
  EXPECT_EQ(out[1].lo, 0x3000u);
  EXPECT_EQ(out[1].hi, 0x3010u);
  EXPECT_EQ(out[1].cfa_offset, -16);
  EXPECT_EQ(out[1].piece_offset, 8u);
  EXPECT_EQ(out[1].piece_size, 8u);
}

TEST(LocationLists, Dwarf4EntriesAreRelativeToTheBase) {
  std::vector<uint8_t> loc;
  appendU64(loc, 0x10);  // [low_pc + 0x10, low_pc + 0x18)
  appendU64(loc, 0x18);
  auto e = cfaMinus(8);
  append(loc, {static_cast<uint8_t>(e.size()), 0x00});
  loc.insert(loc.end(), e.begin(), e.end());
  appendU64(loc, ~uint64_t{0});  // base address selection: 0x5000
  appendU64(loc, 0x5000);
  appendU64(loc, 0x4);
  appendU64(loc, 0x8);
  append(loc, {static_cast<uint8_t>(e.size()), 0x00});
  loc.insert(loc.end(), e.begin(), e.end());
  appendU64(loc, 0);  // end of list
  appendU64(loc, 0);

  DwarfSections s;
  s.loc = ByteView(loc, false);
  UnitHeader h;
  h.version = 4;
  h.addr_size = 8;
  h.low_pc = 0x1000;
  UnitContext u(s, h);
  std::vector<LocationRange> out;
  locListRangesV4(u, 0, true, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].lo, 0x1010u);
  EXPECT_EQ(out[0].hi, 0x1018u);
  EXPECT_EQ(out[1].lo, 0x5004u);
  EXPECT_EQ(out[1].hi, 0x5008u);
  EXPECT_EQ(out[1].cfa_offset, -8);
}

TEST(LocationLists, TruncatedListsStopWithoutReadingPastTheSection) {
  std::vector<uint8_t> ll = {0x04, 0x10};  // an offset pair cut short
  DwarfSections s;
  s.loclists = ByteView(ll, false);
  UnitHeader h;
  h.version = 5;
  h.addr_size = 8;
  UnitContext u(s, h);
  std::vector<LocationRange> out;
  locListRangesV5(u, 0, true, out);
  EXPECT_TRUE(out.empty());
  locListRangesV5(u, 100, true, out);  // past the end
  EXPECT_TRUE(out.empty());
}

// A DWARF 5 list of `entries` (each an entry's bytes before its
// expression, and the expression), then DW_LLE_end_of_list unless `end` is
// false.
std::vector<uint8_t> loclist(
    const std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>>& entries,
    bool end = true) {
  std::vector<uint8_t> ll;
  for (const auto& [head, expr] : entries) {
    ll.insert(ll.end(), head.begin(), head.end());
    ll.push_back(static_cast<uint8_t>(expr.size()));
    ll.insert(ll.end(), expr.begin(), expr.end());
  }
  if (end) ll.push_back(0x00);
  return ll;
}

std::optional<int64_t> cfaOffsetV5(const std::vector<uint8_t>& ll) {
  DwarfSections s;
  s.loclists = ByteView(ll, false);
  UnitHeader h;
  h.version = 5;
  h.addr_size = 8;
  return locListCfaOffset(UnitContext(s, h), 0, true);
}

TEST(LocationLists, Dwarf5CfaOffsetIsTheOneEveryEntryGives) {
  const std::vector<uint8_t> pair1 = {0x04, 0x10, 0x20}, pair2 = {0x04, 0x20, 0x30};
  const std::vector<uint8_t> fbreg24 = {0x91, 0x68};  // DW_OP_fbreg -24 (frame base = CFA)
  EXPECT_EQ(cfaOffsetV5(loclist({{pair1, cfaMinus(24)}, {pair2, fbreg24}})), -24);
  // A default location is an entry like the others.
  EXPECT_EQ(cfaOffsetV5(loclist({{{0x05}, cfaMinus(24)}, {pair2, cfaMinus(24)}})), -24);
  // Entries that disagree, or one in a register, or none: no one offset.
  EXPECT_EQ(cfaOffsetV5(loclist({{pair1, cfaMinus(24)}, {pair2, cfaMinus(16)}})), std::nullopt);
  EXPECT_EQ(cfaOffsetV5(loclist({{pair1, cfaMinus(24)}, {pair2, {0x50}}})), std::nullopt);
  EXPECT_EQ(cfaOffsetV5(loclist({})), std::nullopt);
  // No end entry, or an entry of a kind DWARF 5 does not define.
  EXPECT_EQ(cfaOffsetV5(loclist({{pair1, cfaMinus(24)}}, false)), std::nullopt);
  EXPECT_EQ(cfaOffsetV5(loclist({{pair1, cfaMinus(24)}, {{0x09}, cfaMinus(24)}})), std::nullopt);
}

TEST(LocationLists, Dwarf4CfaOffsetSkipsBaseSelectionsAndNeedsTheEnd) {
  std::vector<uint8_t> loc;
  auto entry = [&](uint64_t begin, uint64_t end, const std::vector<uint8_t>& expr) {
    appendU64(loc, begin);
    appendU64(loc, end);
    append(loc, {static_cast<uint8_t>(expr.size()), 0x00});
    loc.insert(loc.end(), expr.begin(), expr.end());
  };
  entry(0x10, 0x18, cfaMinus(8));
  appendU64(loc, ~uint64_t{0});  // base address selection: no expression
  appendU64(loc, 0x5000);
  entry(0x4, 0x8, cfaMinus(8));
  const size_t before_end = loc.size();
  appendU64(loc, 0);  // end of list
  appendU64(loc, 0);

  DwarfSections s;
  s.loc = ByteView(loc, false);
  UnitHeader h;
  h.version = 4;
  h.addr_size = 8;
  EXPECT_EQ(locListCfaOffset(UnitContext(s, h), 0, true), -8);
  const std::vector<uint8_t> cut(loc.begin(), loc.begin() + static_cast<ptrdiff_t>(before_end));
  s.loc = ByteView(cut, false);
  EXPECT_EQ(locListCfaOffset(UnitContext(s, h), 0, true), std::nullopt);
}

}  // namespace
}  // namespace goheap::bin::dwarf
