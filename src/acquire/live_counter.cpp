#include "acquire/live_counter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "acquire/memory_plan.h"
#include "acquire/proc_status.h"
#include "core/memstats.h"

namespace goheap::acquire {

Expected<uint64_t> liveLoadBias(pid_t pid, const bin::Binary& exe) {
  const bin::Container& c = exe.container();
  if (!c.position_independent) return uint64_t{0};
  uint64_t first_vaddr = std::numeric_limits<uint64_t>::max();
  for (const bin::Segment& s : c.segments) first_vaddr = std::min(first_vaddr, s.vaddr);
  if (first_vaddr == std::numeric_limits<uint64_t>::max()) {
    return Error(exe.path() + " has no loadable segment");
  }
  struct stat exe_stat {};
  if (::stat(("/proc/" + std::to_string(pid) + "/exe").c_str(), &exe_stat) != 0) {
    return Error::notFound("no process with PID " + std::to_string(pid));
  }
  GOHEAP_TRY(std::string maps_text, readProcFile(pid, "maps"));
  GOHEAP_TRY(std::vector<Mapping> maps, parseMaps(maps_text));
  for (const Mapping& m : maps) {
    if (m.offset == 0 && m.inode == exe_stat.st_ino)
      return m.start - (first_vaddr & ~uint64_t{0xfff});
  }
  return Error("process " + std::to_string(pid) + " has no mapping of its executable's first page");
}

Expected<LiveRuntimeCounter> LiveRuntimeCounter::open(pid_t pid, const bin::Binary& exe,
                                                      std::string_view global,
                                                      std::string_view path) {
  const bin::DebugInfo* dwarf = exe.debugInfo();
  if (dwarf == nullptr) {
    return Error("the executable has no DWARF (" + exe.debugInfoProblem() + "), so " +
                 std::string(global) + " cannot be found");
  }
  GOHEAP_TRY(core::RuntimeField field, core::runtimeField(*dwarf, global, path));
  GOHEAP_TRY(uint64_t bias, liveLoadBias(pid, exe));
  const std::string mem = "/proc/" + std::to_string(pid) + "/mem";
  const int fd = ::open(mem.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::io("cannot open " + mem + ": " + std::strerror(errno));
  LiveRuntimeCounter counter(fd, field.address + bias, field.width,
                             std::string(global) + "." + std::string(path));
  counter.big_endian_ = exe.container().big_endian;
  return counter;
}

LiveRuntimeCounter::LiveRuntimeCounter(LiveRuntimeCounter&& other) noexcept
    : mem_fd_(std::exchange(other.mem_fd_, -1)),
      address_(other.address_),
      width_(other.width_),
      big_endian_(other.big_endian_),
      name_(std::move(other.name_)) {}

LiveRuntimeCounter& LiveRuntimeCounter::operator=(LiveRuntimeCounter&& other) noexcept {
  if (this != &other) {
    if (mem_fd_ >= 0) ::close(mem_fd_);
    mem_fd_ = std::exchange(other.mem_fd_, -1);
    address_ = other.address_;
    width_ = other.width_;
    big_endian_ = other.big_endian_;
    name_ = std::move(other.name_);
  }
  return *this;
}

LiveRuntimeCounter::~LiveRuntimeCounter() {
  if (mem_fd_ >= 0) ::close(mem_fd_);
}

Expected<uint64_t> LiveRuntimeCounter::read() const {
  uint8_t bytes[8] = {};
  const ssize_t n = ::pread(mem_fd_, bytes, width_, static_cast<off_t>(address_));
  if (n != static_cast<ssize_t>(width_)) {
    return Error::io("cannot read " + name_ + " from the process: " +
                     (n < 0 ? std::string(std::strerror(errno)) : std::string("short read")));
  }
  uint64_t value = 0;
  for (uint32_t i = 0; i < width_; i++) {
    const uint32_t shift = big_endian_ ? 8 * (width_ - 1 - i) : 8 * i;
    value |= uint64_t{bytes[i]} << shift;
  }
  return value;
}

}  // namespace goheap::acquire
