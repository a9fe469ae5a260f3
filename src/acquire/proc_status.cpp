#include "acquire/proc_status.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

namespace goheap::acquire {

namespace {

std::string procPath(pid_t pid, const std::string& name) {
  return "/proc/" + std::to_string(pid) + "/" + name;
}

Error procError(pid_t pid, const std::string& path, int err) {
  if (err == ENOENT || err == ESRCH) {
    return Error::notFound("no process with PID " + std::to_string(pid));
  }
  return Error::io("cannot read " + path + ": " + std::strerror(err));
}

uint64_t parseUnsigned(std::string_view text, int base) {
  uint64_t v = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      break;
    }
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

namespace {

// A small file (/proc, /sys) whole, or the errno that stopped its read.
int readAll(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return err;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return 0;
}

}  // namespace

Expected<std::string> readProcFile(pid_t pid, const std::string& name) {
  const std::string path = procPath(pid, name);
  std::string out;
  if (const int err = readAll(path, out); err != 0) return procError(pid, path, err);
  return out;
}

std::string readFileOrEmpty(const std::string& path) {
  std::string out;
  return readAll(path, out) == 0 ? out : std::string();
}

uint64_t kibibyteField(std::string_view text, std::string_view key) {
  uint64_t total = 0;
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    std::string_view value = text.substr(at + key.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    total += parseUnsigned(value, 10) * 1024;
  }
  return total;
}

namespace {

ProcStatus parseProcStatus(std::string_view rest_of_file) {
  ProcStatus st;
  while (!rest_of_file.empty()) {
    const size_t eol = rest_of_file.find('\n');
    const std::string_view line = rest_of_file.substr(0, eol);
    rest_of_file.remove_prefix(eol == std::string_view::npos ? rest_of_file.size() : eol + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    if (key == "Name") {
      st.name = std::string(value);
    } else if (key == "State") {
      st.state = value.empty() ? '?' : value.front();
    } else if (key == "TracerPid") {
      st.tracer_pid = static_cast<pid_t>(parseUnsigned(value, 10));
    } else if (key == "Uid") {
      st.real_uid = static_cast<uid_t>(parseUnsigned(value, 10));
      const size_t gap = value.find_first_of(" \t");
      if (gap != std::string_view::npos) {
        std::string_view rest = value.substr(gap);
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
          rest.remove_prefix(1);
        st.effective_uid = static_cast<uid_t>(parseUnsigned(rest, 10));
      }
    } else if (key == "Threads") {
      st.threads = parseUnsigned(value, 10);
    } else if (key == "SigPnd") {
      st.thread_pending = parseUnsigned(value, 16);
    } else if (key == "ShdPnd") {
      st.shared_pending = parseUnsigned(value, 16);
    } else if (key == "Seccomp") {
      st.seccomp = static_cast<int>(parseUnsigned(value, 10));
    } else if (key == "RssAnon") {
      st.rss_anon_bytes = parseUnsigned(value, 10) * 1024;  // "  1234 kB"
    } else if (key == "NSpid") {
      const size_t last = value.find_last_of(" \t");
      st.innermost_pid = static_cast<pid_t>(
          parseUnsigned(last == std::string_view::npos ? value : value.substr(last + 1), 10));
    } else if (key == "CapEff") {
      st.effective_capabilities = parseUnsigned(value, 16);
    }
  }
  return st;
}

}  // namespace

Expected<ProcStatus> readProcStatus(pid_t pid, pid_t tid) {
  GOHEAP_TRY(std::string text,
             readProcFile(pid, tid == 0 ? std::string("status")
                                        : "task/" + std::to_string(tid) + "/status"));
  return parseProcStatus(text);
}

Expected<ProcStatus> readOwnProcStatus() {
  std::string text;
  if (const int err = readAll("/proc/self/status", text); err != 0) {
    return Error::io("cannot read /proc/self/status: " + std::string(std::strerror(err)));
  }
  return parseProcStatus(text);
}

bool rereadCgroupMemory(CgroupMemory& m) {
  // v1's "unlimited" is PAGE_COUNTER_MAX pages, just under 2^63 bytes.
  constexpr uint64_t kV1Unlimited = uint64_t{1} << 62;
  const bool v2 = m.version == 2;
  const std::string limit =
      readFileOrEmpty(m.dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
  const std::string usage =
      readFileOrEmpty(m.dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  if (limit.empty() || usage.empty()) return false;
  m.usage_bytes = std::strtoull(usage.c_str(), nullptr, 10);
  m.limit_bytes.reset();
  if (!limit.starts_with("max")) {
    const uint64_t max = std::strtoull(limit.c_str(), nullptr, 10);
    if (max < kV1Unlimited) m.limit_bytes = max;
  }
  return true;
}

uint64_t cgroupRoom(const CgroupMemory& m) {
  if (!m.limit_bytes) return std::numeric_limits<uint64_t>::max();
  return *m.limit_bytes > m.usage_bytes ? *m.limit_bytes - m.usage_bytes : 0;
}

std::optional<CgroupMemory> readCgroupMemory(pid_t pid, std::string_view root) {
  const std::string cgroups = readFileOrEmpty("/proc/" + std::to_string(pid) + "/cgroup");
  std::string_view rest = cgroups;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    CgroupMemory m;
    if (line.starts_with("0::")) {
      m.version = 2;
      m.dir = std::string(root) + std::string(line.substr(3));
    } else if (const size_t at = line.find(":memory:"); at != std::string_view::npos) {
      m.version = 1;
      m.dir = std::string(root) + "/memory" + std::string(line.substr(at + 8));
    } else {
      continue;
    }
    if (rereadCgroupMemory(m)) return m;
  }
  return std::nullopt;
}

uint64_t memAvailableBytes() {
  return kibibyteField(readFileOrEmpty("/proc/meminfo"), "MemAvailable:");
}

Expected<std::string> readExeLink(pid_t pid) {
  const std::string path = procPath(pid, "exe");
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  if (n < 0) return procError(pid, path, errno);
  target.resize(static_cast<size_t>(n));
  return target;
}

}  // namespace goheap::acquire
