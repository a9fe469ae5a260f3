// The goroutines of a Go process, read from its core: runtime.allgs through
// the memory image, each runtime.g's id, status, wait reason, creation PC
// and stack, and each stack unwound frame by frame with the pclntab, as the
// runtime's own traceback (runtime/traceback.go) does. Go 1.19 through 1.27.
//
// Where the runtime's structures are comes from the executable's DWARF
// (GoroutineLayout: a handful of field offsets, kept together so that they
// can later join the heap walk's layout table); the wait reasons' names
// from the executable's runtime.waitReasonStrings, which differs per release.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "bin/pclntab.h"
#include "core/core_file.h"
#include "core/memory_image.h"
#include "goruntime/goroutine_status.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

// The byte offset of field `path` ("sched.pc") of the DWARF struct named
// `type_name`, through nested structs; a sync/atomic wrapper is looked
// through to its value. An Error naming what the DWARF lacks.
Expected<uint64_t> runtimeFieldOffset(const bin::DebugInfo& dwarf, std::string_view type_name,
                                      std::string_view path);
// The global variable `name` of the DWARF, or null.
const bin::GlobalVariable* runtimeGlobal(const bin::DebugInfo& dwarf, std::string_view name);

// Byte offsets within the runtime's structures, and the globals' link-time
// addresses, from DWARF.
struct GoroutineLayout {
  uint64_t g_size = 0;
  uint64_t goid = 0, atomicstatus = 0, waitreason = 0, waitsince = 0;
  uint64_t gopc = 0, startpc = 0, stack_lo = 0, stack_hi = 0;
  uint64_t sched_sp = 0, sched_pc = 0, sched_lr = 0, sched_bp = 0;
  uint64_t syscallsp = 0, syscallpc = 0;
  uint64_t m = 0, m_procid = 0;  // g.m, m.procid (the thread id on Linux)
  uint64_t allgs = 0;            // runtime.allgs, a []*g
  std::optional<uint64_t> allglen;
  // runtime.waitReasonStrings ([N]string), when the DWARF has it.
  uint64_t wait_reasons = 0, wait_reason_count = 0;

  // An Error naming the type or field the DWARF lacks.
  static Expected<GoroutineLayout> fromDwarf(const bin::DebugInfo& dwarf);
};

// One source-level frame of a goroutine's stack: the calls inlined at a PC
// come first with the same pc and sp, then the physical function.
struct StackFrame {
  uint64_t pc = 0;  // the return address (the current PC in the innermost frame)
  uint64_t sp = 0;
  bin::SourceFrame where;  // names are views into the executable
};

struct Goroutine {
  uint64_t address = 0;  // of its runtime.g
  uint64_t goid = 0;
  uint32_t status = 0;      // as stored: scan bit included
  uint8_t wait_reason = 0;  // waitReason's number
  int64_t wait_since = 0;   // nanotime() when it blocked; 0 when unknown
  uint64_t gopc = 0, startpc = 0;
  uint64_t stack_lo = 0, stack_hi = 0;
  uint64_t sched_pc = 0, sched_sp = 0, sched_lr = 0, sched_bp = 0;
  std::optional<uint32_t> thread;             // the thread (tid) of its M, if it has one
  uint32_t first_frame = 0, frame_count = 0;  // into Goroutines::frames
  // Why the frames stop short of runtime.goexit, or why there are none.
  std::string note;
};

struct Goroutines {
  std::vector<Goroutine> goroutines;  // allgs order, dead ones left out
  std::vector<StackFrame> frames;
  std::vector<std::string> wait_reason_names;  // by number

  std::span<const StackFrame> framesOf(const Goroutine& g) const {
    return std::span<const StackFrame>(frames).subspan(g.first_frame, g.frame_count);
  }
  // What the traceback prints in brackets: the wait reason of a waiting
  // goroutine, else its status's name.
  std::string statusText(const Goroutine& g) const;
  // The function of the go statement that created `g` ("" for the main
  // goroutine, or when gopc is in no function).
  std::string_view createdBy(const Goroutine& g, const bin::Binary& exe, uint64_t bias) const;
};

// Reads the goroutines of the process in `mem`, whose executable `exe` (with
// its DWARF `dwarf`) is loaded at link-time addresses plus `bias`. An Error
// when the layout or runtime.allgs cannot be read; a goroutine whose g or
// stack cannot be read is a warning told to `told`.
Expected<Goroutines> readGoroutines(const CoreFile& core, const MemoryImage& mem,
                                    const bin::Binary& exe, const bin::DebugInfo& dwarf,
                                    uint64_t bias, Sink& told);

}  // namespace goheap::core
