// Every goroutine as `goheap goroutines` lists it: state, frames with their
// source lines, what its stack retains, whether it leaked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/snapshot.h"

namespace goheap::analysis {

struct GoroutineLeaks;  // goroutine_leaks.h

// A source position, from the executable's pclntab.
struct SourceLine {
  std::string function;
  std::string file;
  int64_t line = 0;
};

struct FrameInfo {
  std::string function;
  std::string file;  // with the executable: where in `function` the frame is
  int64_t line = 0;
  // With the executable: the calls inlined into `function` that the frame's
  // PC is in, innermost first (they have no frame of their own).
  std::vector<SourceLine> inlined;
  uint64_t pc = 0;
  uint64_t depth = 0;
  uint64_t frame_size = 0;
  uint64_t retained = 0;  // bytes only this frame keeps alive
};
struct GoroutineInfo {
  uint32_t record = 0;  // index into HeapModel::goroutines
  uint64_t id = 0;
  uint64_t status = 0;
  std::string status_name;  // "waiting", "runnable", "syscall"
  std::string wait_reason;
  uint64_t wait_since = 0;
  bool is_system = false;
  // Blocked forever: nothing that can run reaches what it waits on
  // (analysis/goroutine_leaks.h).
  bool leaked = false;
  // Blocked for good by the program's types, but not called leaked: why
  // (GoroutineLeaks::not_leaked_because). Empty for the others.
  std::string not_leaked_because;
  // The innermost frame outside runtime and sync (blockingFunction).
  std::string blocked_in;
  uint64_t retained = 0;  // bytes only this goroutine's stack keeps alive
  uint64_t g_addr = 0;
  uint64_t created_pc = 0;  // of the go statement that started it (0: none)
  // With the executable: the function with the go statement, at its line.
  std::optional<SourceLine> created_by;
  std::vector<FrameInfo> frames;  // innermost first
};
std::vector<GoroutineInfo> goroutines(const Snapshot& s);
std::vector<GoroutineInfo> goroutines(const Snapshot& s, const GoroutineLeaks& leaks);

}  // namespace goheap::analysis
