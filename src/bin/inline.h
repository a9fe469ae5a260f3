// Inlined frames: the compiler records, per physical function, a tree of the
// calls it inlined (FUNCDATA InlTree) and, per PC, which of them the
// instruction belongs to (PCDATA InlTreeIndex). Expanding a PC walks from
// that call to its callers the way the runtime's own unwinder does, so
// goheap names the same frames runtime.CallersFrames would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bin/container.h"
#include "bin/pclntab.h"
#include "util/error.h"

namespace goheap::bin {

// Where a release keeps its inline trees and how a tree entry (the
// runtime's inlinedCall) is laid out.
struct InlineTreeFormat {
  uint32_t pcdata_index = 2;    // PCDATA_InlTreeIndex
  uint32_t funcdata_index = 3;  // FUNCDATA_InlTree
  uint32_t entry_size = 16;     // sizeof(inlinedCall)
  uint32_t name_at = 4;         // offset of the callee's name offset (int32)
  uint32_t parent_pc_at = 8;    // offset of parentPc (int32, from the entry PC)
  bool from_gofunc = true;      // funcdata is an offset from moduledata.gofunc
};

// The format for a pclntab layout and Go minor version (19 for go1.19.8;
// nullopt when unknown). nullopt when the release has no parentPc (before Go
// 1.12) or the version needed to tell is unknown: no expansion then.
std::optional<InlineTreeFormat> inlineTreeFormat(PclntabLayout layout, std::optional<int> go_minor);

// 19 for "go1.19.8", 21 for "go1.21rc2"; nullopt for "devel ..." and other
// strings.
std::optional<int> goMinorVersion(std::string_view version);

// A function name as the runtime prints it since Go 1.21 (runtime.Frame,
// FuncForPC, tracebacks): the type arguments of a generic instantiation,
// from the first '[' to the last ']', shown as "[...]". The pclntab keeps
// the full name, which symbolize() returns.
std::string funcNameForPrint(std::string_view name);

class InlineExpander {
 public:
  // `gofunc` is moduledata.gofunc (needed for Go 1.18+ formats; 0 when
  // unknown, and then only the physical frame is given).
  InlineExpander(const Container& c, const Pclntab& t, std::optional<InlineTreeFormat> format,
                 uint64_t gofunc)
      : container_(c), table_(t), format_(format), gofunc_(gofunc) {}

  // The frames at return address `pc` (Pclntab::lookup semantics),
  // innermost first, ending with the physical function.
  Expected<std::vector<SourceFrame>> expand(uint64_t pc) const;

 private:
  // The address of `f`'s inline tree, if it has one and it can be found.
  std::optional<uint64_t> treeAddress(const Func& f) const;
  // An Error at `f`'s _func record about its inline tree.
  Error treeError(const Func& f, std::string_view what) const;

  const Container& container_;
  const Pclntab& table_;
  std::optional<InlineTreeFormat> format_;
  uint64_t gofunc_;
};

}  // namespace goheap::bin
