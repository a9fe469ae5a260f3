// Writes an ELF core file of this machine's kind (amd64 or arm64 Linux),
// as the kernel lays one out: the ELF header, a PT_NOTE and one PT_LOAD per
// planned segment, the notes (each thread's NT_PRSTATUS, NT_PRPSINFO,
// NT_AUXV, NT_FILE, and goheap's own, core/snap_note.h), then the copied
// memory, page-aligned. Written front to back, so that it can go to a pipe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "acquire/memory_plan.h"
#include "acquire/process_stopper.h"
#include "core/snap_note.h"
#include "util/error.h"

namespace goheap::acquire {

struct CoreContents {
  pid_t pid = 0;
  const std::vector<StoppedThread>* threads = nullptr;
  const std::vector<Mapping>* mappings = nullptr;  // for NT_FILE
  const MemoryPlan* plan = nullptr;
  std::string auxv;          // /proc/PID/auxv, raw
  std::string name;          // the process's name (15 bytes at most)
  std::string command_line;  // its arguments, spaces between
  char state = 'R';
  uid_t uid = 0;
  uint64_t page_size = 4096;
  core::SnapNote note;
  // Fills `into` with the process's memory at `addr`.
  std::function<Status(uint64_t addr, std::span<uint8_t> into)> read_memory;
  // After each chunk: the bytes of memory written so far.
  std::function<void(uint64_t done)> progress;
};

// Whether goheap can write a core for this machine; an Error naming it if not.
Status canWriteCores();

// Writes the core to `out`; the bytes written, or the first Error (a read of
// the process's memory, a write).
Expected<uint64_t> writeCore(const CoreContents& contents, std::FILE* out);

}  // namespace goheap::acquire
