// Where a Go variable lives in its frame, from its DW_AT_location: only the
// case goheap can use, an address a fixed distance from the canonical frame
// address (CFA) over the variable's whole scope. Registers, pieces, and
// location lists whose entries disagree give nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bin/debug_info.h"
#include "bin/dwarf_reader.h"

namespace goheap::bin::dwarf {

// DW_OP_* (DWARF 5, section 7.7.1): the operations of the location
// expressions goheap reads.
enum Op : uint8_t {
  kOpAddr = 0x03,
  kOpConsts = 0x11,
  kOpPlus = 0x22,
  kOpPlusUconst = 0x23,
  kOpReg0 = 0x50,
  kOpReg31 = 0x6f,
  kOpRegx = 0x90,
  kOpFbreg = 0x91,
  kOpPiece = 0x93,
  kOpCallFrameCfa = 0x9c,
  kOpAddrx = 0xa1,
};

// The CFA offset of a location expression of one of the shapes Go writes:
//   DW_OP_call_frame_cfa                        (offset 0)
//   DW_OP_call_frame_cfa DW_OP_consts N DW_OP_plus
//   DW_OP_call_frame_cfa DW_OP_plus_uconst N
//   DW_OP_fbreg N                               (when the frame base is the CFA)
std::optional<int64_t> cfaOffsetOf(std::span<const uint8_t> expr, bool frame_base_is_cfa);

// The CFA offset all entries of a location list agree on: a DWARF 2-4 list at
// `offset` of .debug_loc, or (DWARF 5) of .debug_loclists. Empty when an
// entry gives another place, the list is empty, or it is malformed (a bad
// list loses a variable's place, not the whole DWARF).
std::optional<int64_t> locListCfaOffset(const UnitContext& u, uint64_t offset,
                                        bool frame_base_is_cfa);

// Appends, for the DWARF 2-4 location list at `offset` of .debug_loc, each
// entry (or DW_OP_piece of one) that is at a fixed CFA offset, with its PC
// range: a variable optimized code keeps in registers part of the time is on
// the stack across calls, which is where a heap dump's frames stop.
void locListRangesV4(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out);

// The same for a DWARF 5 list at `offset` of .debug_loclists (Go 1.25+
// writes DWARF 5).
void locListRangesV5(const UnitContext& u, uint64_t offset, bool frame_base_is_cfa,
                     std::vector<LocationRange>& out);

// The .debug_loclists offset of DW_FORM_loclistx index `i` in this unit.
std::optional<uint64_t> locListxOffset(const UnitContext& u, uint64_t i);

}  // namespace goheap::bin::dwarf
