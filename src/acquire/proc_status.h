// What /proc says about a process: its name, who traces it, its pending
// signals, its owner, its executable. snap reads it before stopping a
// process, to refuse early with a reason, and after, to check it left the
// process as it found it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.h"

namespace goheap::acquire {

struct ProcStatus {
  std::string name;      // Name: (at most 15 bytes, from the executable's name)
  char state = '?';      // State: R, S, D, T, t, Z, X
  pid_t tracer_pid = 0;  // TracerPid: 0 when no debugger holds it
  uid_t real_uid = 0, effective_uid = 0;
  uint64_t threads = 0;
  // SigPnd and ShdPnd as the kernel prints them: the signals pending on the
  // thread, and on the whole process.
  uint64_t thread_pending = 0, shared_pending = 0;
  // Seccomp: 0 none, 1 strict, 2 a filter. A filter may forbid clone(2),
  // or kill the process for calling it.
  int seccomp = 0;
  uint64_t rss_anon_bytes = 0;  // RssAnon: its resident anonymous memory
  // CapEff: the capabilities it holds, one bit each (CAP_SYS_PTRACE is 19).
  uint64_t effective_capabilities = 0;
  // NSpid's last: its pid in its own PID namespace (a container's), where
  // the kernel gives it to that namespace's processes; 0 when not shown.
  pid_t innermost_pid = 0;
};

// /proc/PID/status (or /proc/PID/task/TID/status with `tid`). An Error saying
// there is no such process when it is gone.
Expected<ProcStatus> readProcStatus(pid_t pid, pid_t tid = 0);

// /proc/self/status: goheap's own, whichever PID namespace /proc shows.
Expected<ProcStatus> readOwnProcStatus();

// The file /proc/PID/`name` whole ("maps", "cmdline"). An Error with
// strerror(3) and the path.
Expected<std::string> readProcFile(pid_t pid, const std::string& name);

// A small file (/proc, /sys) whole; "" when it cannot be read.
std::string readFileOrEmpty(const std::string& path);

// The sum of the numbers after `key` at the start of a line of a
// "key: value kB" file (/proc/meminfo, smaps_rollup), in bytes; 0 when absent.
uint64_t kibibyteField(std::string_view text, std::string_view key);

// MemAvailable from /proc/meminfo, in bytes: what the kernel can hand out
// without swapping. 0 when unknown.
uint64_t memAvailableBytes();

// The memory cgroup of a process, as its controller counts it.
struct CgroupMemory {
  std::string dir;  // the cgroup's folder
  int version = 0;  // 2: memory.current and memory.max; 1: memory.usage_in_bytes and
                    // memory.limit_in_bytes
  uint64_t usage_bytes = 0;
  std::optional<uint64_t> limit_bytes;  // none: no limit (v2's "max", v1's page counter maximum)
};

// Where cgroup file systems are mounted: v2 here, v1's memory controller in
// its "memory" folder.
inline constexpr std::string_view kCgroupRoot = "/sys/fs/cgroup";

// The memory cgroup of `pid` (from /proc/PID/cgroup), read under `root`
// (kCgroupRoot; tests lay out a folder of their own); nothing when the
// process has none whose files can be read.
std::optional<CgroupMemory> readCgroupMemory(pid_t pid, std::string_view root = kCgroupRoot);

// Reads `m`'s usage and limit again, from its folder; false when they
// cannot be read (the cgroup is gone).
bool rereadCgroupMemory(CgroupMemory& m);

// The room left below the limit of `m`: the limit less the usage, 0 when
// over it; UINT64_MAX without a limit.
uint64_t cgroupRoom(const CgroupMemory& m);

// Where /proc/PID/exe points; " (deleted)" kept when the kernel adds it.
Expected<std::string> readExeLink(pid_t pid);

}  // namespace goheap::acquire
