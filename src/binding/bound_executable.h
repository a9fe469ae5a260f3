// An executable bound to the heap model of its program (a heap dump or a
// core the program wrote), where the model meets the executable. Binding finds the
// load bias (a position-independent executable runs at another address than
// it was linked at) and checks that the two belong together: architecture,
// Go version, the data and bss segments, and the functions the dump's own
// stack frames name. After that every run-time address of the dump (frame
// PCs, a goroutine's creation PC, finalizer and defer functions, closure
// code pointers, global variables) can be named from the executable.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "model/heap_model.h"
#include "util/error.h"

namespace goheap::binding {

// A global variable holding an address: its symbol and where in it.
struct GlobalSymbol {
  std::string_view name;
  uint64_t address = 0;  // run-time address of the variable's start
  uint64_t size = 0;
  uint64_t offset = 0;  // of the address within the variable
};

class BoundExecutable {
 public:
  // Binds `exe` to `model`. An Error says why they do not belong together
  // ("the executable is go1.19.8 but the dump was written by go1.24.4").
  // `known_bias`: the load bias when the reader already found it (a core's,
  // from its entry point: core/executable_match.h); else it is found here,
  // from the dump's frames and data segment.
  static Expected<BoundExecutable> bind(bin::Binary exe, const model::HeapModel& model,
                                        std::optional<uint64_t> known_bias = std::nullopt);

  const bin::Binary& binary() const { return *exe_; }
  // Run-time address minus link-time address (0 unless position-independent).
  uint64_t loadBias() const { return bias_; }
  // How many of the dump's stack frames were checked, and how many named the
  // function the executable has at their PC.
  uint64_t framesChecked() const { return frames_checked_; }
  uint64_t framesMatched() const { return frames_matched_; }

  // The source frames at a run-time return address, innermost first
  // (inlined calls, then the physical function).
  Expected<std::vector<bin::SourceFrame>> frames(uint64_t pc) const;
  // "main.worker (main.go:42)": the physical function at a return address and
  // the line it is at; empty when the PC is not in the executable.
  std::string describeReturnAddress(uint64_t pc) const;
  // The function whose entry is exactly this run-time address (a closure's
  // or finalizer's code pointer), or null.
  const bin::Func* functionEntry(uint64_t addr) const;
  // The function holding this run-time code address, or null.
  const bin::Func* functionAt(uint64_t addr) const;
  // The function of this name (as the dump's frames and profile spell it).
  const bin::Func* functionNamed(std::string_view name) const;
  // The source frames at the instruction of `function` that its line table
  // gives `file`:`line`, innermost first; empty when there is none.
  std::vector<bin::SourceFrame> framesOfLine(std::string_view function, std::string_view file,
                                             int64_t line) const;
  // An allocation-stack frame as the dump records it: the physical function
  // with the file and line of the instruction. The runtime lists an inlined
  // call as a frame of its own but names it by the function it is inlined
  // into; this gives the inlined function's name (else `function`).
  std::string_view inlinedName(std::string_view function, std::string_view file,
                               int64_t line) const;
  // The executable's DWARF (bin::Binary::debugInfo: read once, on first
  // use); null when it has none (a stripped build) or it cannot be read, and
  // debugInfoProblem() says why.
  const bin::DebugInfo* debugInfo() const { return exe_->debugInfo(); }
  const std::string& debugInfoProblem() const { return exe_->debugInfoProblem(); }

  // The types the typing pass and everything above it read: the DWARF when
  // the executable has it, else the program's types read from the runtime's
  // type descriptors (bin/type_descriptors.h), with the descriptors the
  // heap names (itabs, finalizers, malloc headers) as further roots. Read
  // once, on first use; null when neither can be read, and
  // typeTableProblem() says why. Safe to call from several threads.
  const bin::DebugInfo* typeTable() const;
  const std::string& typeTableProblem() const;
  // Where typeTable() came from: "DWARF", "type descriptors" or "".
  std::string_view typeTableSource() const;
  // The global variable holding a run-time data or bss address.
  std::optional<GlobalSymbol> globalAt(uint64_t addr) const;

 private:
  struct LazyTypeTable {
    std::once_flag once;
    std::unique_ptr<bin::DebugInfo> descriptors;
    std::string problem;
    // Link-time descriptor addresses the heap names, found at bind time.
    std::vector<uint64_t> roots;
  };

  BoundExecutable() = default;
  void readTypeTable() const;
  std::unique_ptr<bin::Binary> exe_;
  std::unique_ptr<LazyTypeTable> types_ = std::make_unique<LazyTypeTable>();
  std::unordered_map<std::string_view, const bin::Func*> by_name_;
  uint64_t bias_ = 0;
  uint64_t frames_checked_ = 0, frames_matched_ = 0;
};

}  // namespace goheap::binding
