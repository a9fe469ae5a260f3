// A cgroup v1 memory cgroup of a test's own (the test machines mount the
// memory controller as v1), for processes that must run near a memory
// limit: watch's --cgroup-above, and snap's CgroupGuard.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace goheap::testing {

class MemoryCgroup {
 public:
  // Makes /sys/fs/cgroup/memory/goheap-NAME-PID (as root), with no limit.
  explicit MemoryCgroup(const std::string& name);
  // Removes it, once the processes in it are gone (waits up to a second).
  ~MemoryCgroup();
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;

  // Whether the cgroup exists with its memory files; else why not, for a
  // test's assertion message.
  bool usable() const;
  static const char* whyNotUsable() {
    return "cannot make a memory cgroup in /sys/fs/cgroup/memory (as root, cgroup v1)";
  }
  const std::string& dir() const { return dir_; }
  // Moves `pid` in; its pages are charged here from now on.
  void add(pid_t pid) const;
  void setLimit(uint64_t bytes) const;
  // Sets the limit `room` above what the cgroup uses now.
  void leaveRoom(uint64_t room) const;
  uint64_t usage() const;
  uint64_t limit() const;

 private:
  std::string dir_;
};

}  // namespace goheap::testing
