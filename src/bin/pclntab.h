// Go's pclntab: the table the runtime itself uses to name functions and map
// program counters to file:line. Every Go executable has one, stripped or
// not, so it is goheap's first source of names for frames and allocation
// sites. Layouts by magic (see shared FORMATS.md, "Go executables"):
//   0xfffffffb  Go 1.2-1.15   0xfffffffa  Go 1.16-1.17
//   0xfffffff0  Go 1.18-1.19  0xfffffff1  Go 1.20+
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bin/bytes.h"
#include "bin/container.h"
#include "util/error.h"

namespace goheap::bin {

enum class PclntabLayout : uint8_t { Go12, Go116, Go118, Go120 };
std::string_view pclntabLayoutName(PclntabLayout l);  // "go1.2", "go1.16", "go1.18", "go1.20"

struct Func {
  uint64_t entry = 0;
  uint64_t end = 0;  // the next function's entry (or the table's end PC)
  std::string_view name;
  uint64_t func_offset = 0;  // of its _func record within the pclntab
};

// Whether the compiler named a function as a closure or a method value,
// whose func values carry a context object: "main.f.func1", "main.f.func1.2",
// "main.glob..func3", "main.f-range1" (range-over-func bodies) and
// "main.T.M-fm".
bool isClosureName(std::string_view name);

// Where a PC is: its function, and the file and line of the instruction.
// `file` is empty and `line` 0 when the function has no line table there.
struct Location {
  const Func* func = nullptr;
  std::string_view file;
  int64_t line = 0;
};

// One source-level frame at a PC. A PC inside code the compiler inlined has
// several: the inlined calls, innermost first, then the physical function.
struct SourceFrame {
  std::string_view function;
  std::string_view file;
  int64_t line = 0;
  bool inlined = false;
  const Func* func = nullptr;  // the physical function holding the PC
};

class Pclntab {
 public:
  // Parses `data` (the pclntab's bytes, starting at its magic). The byte order
  // is taken from the magic. `text_start` is used when the header's own text
  // start is 0 (Go 1.26+ linking externally writes 0 there): pass the best
  // guess (runtime.text's symbol, else the .text section's address, which
  // may start with C code), and correct it with setTextStart once the
  // runtime's moduledata is found.
  // `file_offset` (where the table starts in its file) is added to the byte
  // offsets that errors report.
  static Expected<Pclntab> parse(std::span<const uint8_t> data, uint64_t text_start = 0,
                                 uint64_t file_offset = 0);

  PclntabLayout layout() const { return layout_; }
  // Where function entries are counted from (Go 1.18+), and whether the
  // table's own header said so rather than the caller's guess.
  uint64_t textStart() const { return text_start_; }
  bool textStartFromHeader() const { return text_start_from_header_; }
  // Replaces a guessed text start (moduledata.text knows it): re-reads the
  // function table. Does nothing when the header gave it.
  Status setTextStart(uint64_t text_start);
  uint32_t quantum() const { return quantum_; }
  uint32_t ptrSize() const { return ptr_size_; }
  bool bigEndian() const { return data_.bigEndian(); }
  // Sorted by entry PC.
  std::span<const Func> funcs() const { return funcs_; }

  // The function whose [entry, end) holds pc, or null.
  const Func* funcAt(uint64_t pc) const;
  // File and line of the instruction at exactly `pc`. An Error when no
  // function holds pc or its tables are corrupt.
  Expected<Location> pcToLine(uint64_t pc) const;
  // For stack frames: a frame's pc is normally a return address, which may
  // already be the first byte of the next function (a call as the last
  // instruction), so the instruction looked up is pc-1. The exception is a pc
  // that is exactly a function's entry (a goroutine that has not run yet is
  // parked at its function's entry): that pc is looked up as is.
  Expected<Location> lookup(uint64_t pc) const;
  // File and line of the instruction at `pc` by `f`'s own tables (inlined
  // frames read their caller's position at a PC the tables put in `f`).
  Expected<Location> pcToLineIn(const Func& f, uint64_t pc) const;

  // The stack pointer's distance below its value at entry for the
  // instruction at exactly `pc` (the pcsp table): 0 at a function's entry,
  // the frame size inside its body. An Error when no function holds pc.
  Expected<int64_t> spDelta(uint64_t pc) const;
  // The first PC of each run of `f`'s code that its line table gives
  // `line` (inlined code has the line of its own source): how an allocation
  // site the dump names only by function, file and line is found again.
  Expected<std::vector<uint64_t>> pcsOfLine(const Func& f, int64_t line) const;

  // The value of pc-data table `table` (PCDATA_*) of `f` at `pc`; -1 when
  // `f` has no such table, as the runtime reads it.
  Expected<int64_t> pcdata(const Func& f, uint32_t table, uint64_t pc) const;
  // Slot `index` of `f`'s funcdata (FUNCDATA_*), raw: since Go 1.18 an offset
  // from moduledata.gofunc, before an address; nullopt when the slot is
  // absent or empty. The Go 1.2 layout's nfuncdata is read as the Go
  // 1.12-1.15 uint8 (callers do not ask older files).
  std::optional<uint64_t> funcdata(const Func& f, uint32_t index) const;
  // _func.startLine (Go 1.20+ layout only).
  std::optional<int64_t> startLineField(const Func& f) const;
  // _func.args: the bytes of arguments and results (ArgsSizeUnknown,
  // INT32_MIN, for the runtime's variadic assembly); the stack scan needs
  // it for the outgoing-args area a frame leaves to its caller.
  std::optional<int32_t> argsField(const Func& f) const;
  // _func.deferreturn: the offset from the entry of the call to
  // runtime.deferreturn, 0 when the function defers nothing (Go 1.12+).
  std::optional<uint32_t> deferreturnField(const Func& f) const;
  // A function name by name offset, as _func.nameOff and inlinedCall hold
  // it: into the name table since Go 1.16, into the pclntab before.
  std::string_view funcNameAt(uint64_t name_offset) const;

  // Where the table is: its offset in the file and size; its sub-tables'
  // offsets within it (the runtime's moduledata points at them).
  uint64_t fileOffset() const { return file_offset_; }
  uint64_t size() const { return data_.size(); }
  uint64_t funcnameTableOffset() const { return funcname_off_; }
  uint64_t functionTableOffset() const { return functab_off_; }

 private:
  Pclntab() = default;
  Status readFuncs();
  // The value of the pc-value table at `table_offset` (relative to the
  // pc-value area) for `pc` within `f`; -1 when the table has no entry.
  Expected<int64_t> pcValue(const Func& f, uint64_t table_offset, uint64_t pc) const;
  // Calls fn(begin, end, value) for each run of a pc-value table, in PC
  // order, until fn returns false.
  template <class Fn>
  Status forEachPcValue(const Func& f, uint64_t table_offset, Fn&& fn) const;
  Expected<std::string_view> fileName(const Func& f, int64_t file_index) const;
  // Size of the fixed part of _func; the width of its entry field.
  uint64_t funcFixedSize() const;
  uint64_t entryFieldSize() const;
  // Go 1.18+: the header has textStart, function entries are 32-bit offsets
  // from it and funcdata slots offsets from moduledata.gofunc.
  bool textRelative() const {
    return layout_ == PclntabLayout::Go118 || layout_ == PclntabLayout::Go120;
  }

  ByteView data_;
  uint64_t file_offset_ = 0;
  PclntabLayout layout_ = PclntabLayout::Go120;
  uint32_t quantum_ = 1;
  uint32_t ptr_size_ = 8;
  uint64_t nfunc_ = 0;
  uint64_t text_start_ = 0;
  bool text_start_from_header_ = true;
  // Offsets within data_ of the sub-tables (Go 1.16+); for Go 1.2 names,
  // pc-value tables and files are all relative to the pclntab start.
  uint64_t funcname_off_ = 0, cu_off_ = 0, filetab_off_ = 0, pctab_off_ = 0, functab_off_ = 0;
  std::vector<Func> funcs_;
};

// Finds the pclntab of a Go executable: the .gopclntab section, or, when the
// file has no such section (stripped, or another container), the first place
// holding a pclntab magic whose header and function table validate.
Expected<Pclntab> findPclntab(const Container& c);

}  // namespace goheap::bin
