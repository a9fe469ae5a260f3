#include "support/memory_cgroup.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/export_support.h"

namespace goheap::testing {

MemoryCgroup::MemoryCgroup(const std::string& name)
    : dir_("/sys/fs/cgroup/memory/goheap-" + name + "-" + std::to_string(::getpid())) {
  std::error_code ec;
  std::filesystem::create_directory(dir_, ec);
}

MemoryCgroup::~MemoryCgroup() {
  for (int i = 0; i < 50 && ::rmdir(dir_.c_str()) != 0 && errno != ENOENT; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool MemoryCgroup::usable() const {
  return std::filesystem::exists(dir_ + "/memory.limit_in_bytes");
}

void MemoryCgroup::add(pid_t pid) const {
  writeWholeFile(dir_ + "/cgroup.procs", std::to_string(pid));
}

void MemoryCgroup::setLimit(uint64_t bytes) const {
  writeWholeFile(dir_ + "/memory.limit_in_bytes", std::to_string(bytes));
}

void MemoryCgroup::leaveRoom(uint64_t room) const {
  setLimit(usage() + room);
}

uint64_t MemoryCgroup::usage() const {
  return std::stoull(readWholeFile(dir_ + "/memory.usage_in_bytes"));
}

uint64_t MemoryCgroup::limit() const {
  return std::stoull(readWholeFile(dir_ + "/memory.limit_in_bytes"));
}

}  // namespace goheap::testing
