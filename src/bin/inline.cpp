// The facts (inlinedCall layouts, PCDATA/FUNCDATA numbers, the walk through
// parentPc) come from Go's runtime (symtab.go, symtabinl.go, runtime2.go and
// funcdata.h of each release); the code is goheap's own.
#include "bin/inline.h"

#include "util/format.h"
#include "util/go_version.h"

namespace goheap::bin {

namespace {

// A corrupt tree could send the walk around in a circle; real inlining
// depth is a few dozen at most.
constexpr int kMaxInlineDepth = 1000;

}  // namespace

std::optional<int> goMinorVersion(std::string_view version) {
  return parseGoVersion(version).minor;
}

std::string funcNameForPrint(std::string_view name) {
  const size_t open = name.find('[');
  const size_t close = name.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open) {
    return std::string(name);
  }
  return std::string(name.substr(0, open)) + "[...]" + std::string(name.substr(close + 1));
}

std::optional<InlineTreeFormat> inlineTreeFormat(PclntabLayout layout,
                                                 std::optional<int> go_minor) {
  InlineTreeFormat f;
  switch (layout) {
    case PclntabLayout::Go120:
      // {funcID uint8, _ [3]byte, nameOff int32, parentPc int32, startLine int32}
      return f;
    case PclntabLayout::Go12:
      // The record below since Go 1.12 (func_ then indexes the pclntab); Go
      // 1.12 numbered the tables differently, and before 1.12 there is no
      // parentPc to walk by.
      if (!go_minor || *go_minor < 12 || *go_minor > 15) return std::nullopt;
      f.pcdata_index = *go_minor == 12 ? 1 : 2;
      f.funcdata_index = *go_minor == 12 ? 2 : 4;
      [[fallthrough]];
    case PclntabLayout::Go118:
    case PclntabLayout::Go116:
      // {parent int16, funcID uint8, _ byte, file, line, func_, parentPc int32};
      // func_ indexes the name table (since Go 1.16).
      f.entry_size = 20;
      f.name_at = 12;
      f.parent_pc_at = 16;
      f.from_gofunc = layout == PclntabLayout::Go118;
      return f;
  }
  return std::nullopt;
}

Error InlineExpander::treeError(const Func& f, std::string_view what) const {
  return Error::atOffset(table_.fileOffset() + f.func_offset,
                         "inline tree of " + std::string(f.name), what);
}

std::optional<uint64_t> InlineExpander::treeAddress(const Func& f) const {
  std::optional<uint64_t> slot = table_.funcdata(f, format_->funcdata_index);
  if (!slot) return std::nullopt;
  if (!format_->from_gofunc) return *slot;
  if (gofunc_ == 0) return std::nullopt;
  return gofunc_ + *slot;
}

Expected<std::vector<SourceFrame>> InlineExpander::expand(uint64_t pc) const {
  GOHEAP_TRY(Location at, table_.lookup(pc));
  const Func& f = *at.func;
  // The instruction the frame is in: the call before a return address,
  // except at a function's entry (see Pclntab::lookup).
  uint64_t q = f.entry == pc ? pc : pc - 1;
  std::vector<SourceFrame> frames;
  const std::optional<uint64_t> tree = format_ ? treeAddress(f) : std::nullopt;
  for (int depth = 0; tree; ++depth) {
    GOHEAP_TRY(int64_t ix, table_.pcdata(f, format_->pcdata_index, q));
    if (ix < 0) break;
    if (depth == kMaxInlineDepth) {
      return treeError(
          f, "more than " + std::to_string(kMaxInlineDepth) + " inlined calls at " + formatHex(pc));
    }
    const uint64_t entry_addr = *tree + static_cast<uint64_t>(ix) * format_->entry_size;
    std::optional<ByteView> rec = container_.readAt(entry_addr, format_->entry_size);
    if (!rec) {
      return treeError(f, "entry " + std::to_string(ix) + " at " + formatHex(entry_addr) +
                              " is not in the file");
    }
    GOHEAP_TRY(Location loc, table_.pcToLineIn(f, q));
    const auto name_off = static_cast<int32_t>(rec->u32(format_->name_at));
    const auto parent_pc = static_cast<int32_t>(rec->u32(format_->parent_pc_at));
    SourceFrame sf;
    sf.function =
        name_off < 0 ? std::string_view{} : table_.funcNameAt(static_cast<uint64_t>(name_off));
    sf.file = loc.file;
    sf.line = loc.line;
    sf.inlined = true;
    sf.func = &f;
    frames.push_back(sf);
    // Continue at an instruction whose position is the call site.
    q = f.entry + static_cast<uint64_t>(static_cast<int64_t>(parent_pc));
  }
  GOHEAP_TRY(Location loc, table_.pcToLineIn(f, q));
  SourceFrame sf;
  sf.function = f.name;
  sf.file = loc.file;
  sf.line = loc.line;
  sf.func = &f;
  frames.push_back(sf);
  return frames;
}

}  // namespace goheap::bin
