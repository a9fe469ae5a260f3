// Writes an ELF core file of this machine's kind (amd64 or arm64 Linux),
// as the kernel lays one out: the ELF header, a PT_NOTE and one PT_LOAD per
// planned segment, the notes (each thread's NT_PRSTATUS, NT_PRPSINFO,
// NT_AUXV, NT_FILE, and goheap's own, core/snap_note.h), then the copied
// memory, page-aligned. writeCoreInOrder writes it front to back, so that it
// can go to a pipe.
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
#include "util/sink.h"

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
  // The process's executable, carried in the core as a note of its own
  // (core::kNtGoheapExecutable) when not empty: `snap -o -` streams it with
  // the core, having no folder to copy it into.
  std::vector<uint8_t> executable;
  // Fills `into` with the process's memory at `addr`.
  std::function<Status(uint64_t addr, std::span<uint8_t> into)> read_memory;
  // After each chunk, told the bytes of memory written so far
  // (Sink::progress, within the caller's phase); none for null.
  Sink* sink = nullptr;
};

// Where a core goes: written front to back, but for its ELF header, which
// is written last (the program headers' count is known only at the end).
class CoreOutput {
 public:
  virtual ~CoreOutput() = default;
  virtual Status append(const void* data, size_t n) = 0;
  // Replaces bytes already appended.
  virtual Status overwrite(uint64_t offset, const void* data, size_t n) = 0;
};

// A file (it must be seekable).
class FileOutput : public CoreOutput {
 public:
  explicit FileOutput(std::FILE* out) : out_(out) {}
  Status append(const void* data, size_t n) override;
  Status overwrite(uint64_t offset, const void* data, size_t n) override;

 private:
  std::FILE* out_;
};

// Memory, written to a file later: snap copies the process into memory
// while it is stopped and writes the file once it runs again, so that the
// pause is the copy's and not the disk's.
class MemoryOutput : public CoreOutput {
 public:
  explicit MemoryOutput(uint64_t expected_bytes) { bytes_.reserve(expected_bytes); }
  Status append(const void* data, size_t n) override;
  Status overwrite(uint64_t offset, const void* data, size_t n) override;
  // Writes everything to `out`, telling `sink` the bytes written.
  Status writeTo(std::FILE* out, Sink& sink);
  uint64_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// Whether goheap can write a core for this machine; an Error naming it if not.
Status canWriteCores();

// Writes the core to `out`; the bytes written, or the first Error (a read of
// the process's memory, a write). Pages of zeros are left out as they are
// found, so the headers are written last (`out` must take an overwrite).
Expected<uint64_t> writeCore(const CoreContents& contents, CoreOutput& out);

// The same core written strictly front to back, for a pipe (`snap -o -`):
// the headers come from the plan alone, before the memory, so every copied
// piece is written whole, zero pages included (a larger file, the same
// memory read back). Only `out.append` is called.
Expected<uint64_t> writeCoreInOrder(const CoreContents& contents, CoreOutput& out);

}  // namespace goheap::acquire
