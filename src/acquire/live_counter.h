// A counter of the Go runtime read from a running process, without
// stopping it: goheap watch's --growth reads the Go heap between snaps
// (gcController.heapInUse, as core::readMemStats reads it from a core),
// through /proc/PID/mem at the field's address the executable's DWARF
// gives plus the process's load bias. The runtime updates such a counter
// with single aligned stores, so one read sees a value it held.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "bin/binary.h"
#include "util/error.h"

namespace goheap::acquire {

class LiveRuntimeCounter {
 public:
  // Field `path` of runtime global `global` in process `pid`, which runs
  // `exe`: an Error saying why it cannot be read (no DWARF, no such field,
  // the process gone).
  static Expected<LiveRuntimeCounter> open(pid_t pid, const bin::Binary& exe,
                                           std::string_view global, std::string_view path);
  LiveRuntimeCounter(LiveRuntimeCounter&& other) noexcept;
  LiveRuntimeCounter& operator=(LiveRuntimeCounter&& other) noexcept;
  LiveRuntimeCounter(const LiveRuntimeCounter&) = delete;
  LiveRuntimeCounter& operator=(const LiveRuntimeCounter&) = delete;
  ~LiveRuntimeCounter();

  // Its value now; an Error when the process is gone or the read fails.
  Expected<uint64_t> read() const;
  const std::string& name() const { return name_; }  // "runtime.gcController.heapInUse"

 private:
  LiveRuntimeCounter(int mem_fd, uint64_t address, uint32_t width, std::string name)
      : mem_fd_(mem_fd), address_(address), width_(width), name_(std::move(name)) {}

  int mem_fd_ = -1;  // /proc/PID/mem
  uint64_t address_ = 0;
  uint32_t width_ = 0;
  bool big_endian_ = false;
  std::string name_;
};

// Where `exe` is loaded in process `pid`: 0 for a fixed-address executable,
// else the start of the process's mapping of the executable's first page
// minus its first segment's link-time address (/proc/PID/maps).
Expected<uint64_t> liveLoadBias(pid_t pid, const bin::Binary& exe);

}  // namespace goheap::acquire
