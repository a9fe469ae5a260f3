#include "acquire/snap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "acquire/core_writer.h"
#include "acquire/memory_plan.h"
#include "acquire/proc_status.h"
#include "acquire/process_copy.h"
#include "acquire/process_stopper.h"
#include "bin/binary.h"
#include "util/file_identity.h"
#include "util/format.h"

namespace goheap::acquire {

namespace {

using Clock = std::chrono::steady_clock;

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Opens /proc/PID/`name`; an Error explaining a refusal.
Expected<int> openProc(pid_t pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) return fd;
  if (errno == ENOENT || errno == ESRCH) {
    return Error::notFound("no process with PID " + std::to_string(pid));
  }
  if (errno == EACCES || errno == EPERM) return Error::io(explainNoPermission(pid));
  return Error::io("cannot open " + path + ": " + std::strerror(errno));
}

std::string withoutDeleted(std::string path) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (path.ends_with(kDeleted)) path.resize(path.size() - kDeleted.size());
  return path;
}

// The command line, its NULs turned to spaces.
std::string commandLine(pid_t pid) {
  Expected<std::string> raw = readProcFile(pid, "cmdline");
  if (!raw) return "";
  std::string s = raw.take();
  while (!s.empty() && s.back() == '\0') s.pop_back();
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

// Whether the file mapped by `m` starts with an ELF header, read through
// the process's memory (the file may be gone from disk).
bool startsWithElfHeader(int mem_fd, const Mapping& m) {
  char magic[4] = {};
  return ::pread(mem_fd, magic, 4, static_cast<off_t>(m.start)) == 4 && std::memcmp(magic,
                                                                                    "\x7f"
                                                                                    "ELF",
                                                                                    4) == 0;
}

// Whether `path` (as another process sees it) is, in goheap's mount
// namespace, the file `proc_link` (/proc/PID/exe) leads to: the same device
// and inode. A file a container sees at that path is not the host's.
bool reachesSameFile(const std::string& path, const std::string& proc_link) {
  Expected<FileIdentity> seen = identityOf(path);
  Expected<FileIdentity> real = identityOf(proc_link);
  return seen && real && seen->sameFileAs(*real);
}

// All of the file open as `fd`, into `bytes`.
Status readWhole(int fd, std::vector<uint8_t>& bytes) {
  bytes.clear();
  std::vector<uint8_t> buffer(1 << 20);
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::io(std::strerror(errno));
    if (n == 0) return Status::success();
    bytes.insert(bytes.end(), buffer.data(), buffer.data() + n);
    at += n;
  }
}

Status copyFile(int from_fd, const std::string& to) {
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (out < 0) return Error::io("cannot create " + to + ": " + std::strerror(errno));
  std::vector<char> buffer(1 << 20);
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(from_fd, buffer.data(), buffer.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(out);
      return Error::io("cannot read the executable: " + std::string(std::strerror(err)));
    }
    if (n == 0) break;
    if (::write(out, buffer.data(), static_cast<size_t>(n)) != n) {
      const int err = errno;
      ::close(out);
      return Error::io("cannot write " + to + ": " + std::strerror(err));
    }
    at += n;
  }
  if (::close(out) != 0) return Error::io("cannot write " + to + ": " + std::strerror(errno));
  return Status::success();
}

// The note's list of mappings: `mappings` with their Rss from `smaps`
// (0 where smaps could not be read or lacks the mapping).
std::vector<core::SnapMapping> noteMappings(const std::vector<Mapping>& mappings,
                                            const Expected<std::string>& smaps) {
  std::vector<std::pair<uint64_t, uint64_t>> rss;
  if (smaps) rss = parseSmapsRss(*smaps);
  std::sort(rss.begin(), rss.end());
  std::vector<core::SnapMapping> out;
  out.reserve(mappings.size());
  for (const Mapping& m : mappings) {
    core::SnapMapping n;
    n.start = m.start;
    n.end = m.end;
    n.perms = {m.read ? 'r' : '-', m.write ? 'w' : '-', m.exec ? 'x' : '-', m.shared ? 's' : 'p'};
    n.offset = m.offset;
    n.path = m.path;
    auto it = std::lower_bound(rss.begin(), rss.end(), std::make_pair(m.start, uint64_t{0}));
    if (it != rss.end() && it->first == m.start) n.rss = std::min(it->second, m.end - m.start);
    if (n.start < n.end && (out.empty() || out.back().end <= n.start)) out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

std::string describePause(const SnapResult& r) {
  std::string text = "paused " + formatDuration(static_cast<double>(r.pause_ns) / 1e9);
  if (r.forked) {
    text += "; copied from a fork while it ran on (the fork took " +
            formatDuration(static_cast<double>(r.fork_ns) / 1e9) + "; copy-on-write cost " +
            formatBytes(r.copied_on_write_bytes) +
            ": pages the process wrote or freed while the fork was read)";
  } else if (!r.no_fork_reason.empty()) {
    text += "; copied while it was stopped, not from a fork: " + r.no_fork_reason;
  } else {
    text += "; copied while it was stopped";
  }
  if (r.exited_during_copy) {
    text += "; the process exited during the copy, and the core holds it as it was when snapped";
  }
  if (!r.copy_warning.empty()) text += "; warning: " + r.copy_warning;
  return text;
}

Expected<SnapResult> snapProcess(pid_t pid, std::FILE* out, const SnapOptions& options) {
  if (Status s = canWriteCores(); !s) return s.error();
  if (pid <= 0) return Error::notFound("no process with PID " + std::to_string(pid));
  if (pid == ::getpid()) return Error::needsInput("goheap cannot snap itself");
  GOHEAP_TRY(ProcStatus status, readProcStatus(pid));
  if (status.state == 'Z' || status.state == 'X') {
    return Error("process " + std::to_string(pid) +
                 " has exited (a zombie waiting for its parent)");
  }
  const std::string who = "process " + std::to_string(pid) + " (" + status.name + ")";

  // Before anything is stopped: is it a Go program, may we trace it?
  Expected<std::string> exe_link = readExeLink(pid);
  if (!exe_link) {
    if (exe_link.error().message().find("no process") != std::string::npos) return exe_link.error();
    return Error::io(explainNoPermission(pid));
  }
  SnapResult result;
  result.exe_path = withoutDeleted(*exe_link);
  result.name = status.name;
  const std::string exe_proc = "/proc/" + std::to_string(pid) + "/exe";
  Expected<bin::Binary> exe = bin::Binary::open(exe_proc);
  if (!exe) {
    return Error(who + " is not a Go program: " + result.exe_path + ": " + exe.error().message());
  }
  result.go_version = exe->goVersion();
  result.exe_path_reaches_it = reachesSameFile(result.exe_path, exe_proc);
  if (status.tracer_pid != 0) return Error::io(explainNoPermission(pid));

  GOHEAP_TRY(int mem, openProc(pid, "mem"));
  const Fd mem_fd(mem);
  GOHEAP_TRY(int pagemap, openProc(pid, "pagemap"));
  const Fd pagemap_fd(pagemap);
  const bool wants_exe = !options.exe_copy_path.empty() || options.carry_executable;
  Fd exe_fd(wants_exe ? ::open(exe_proc.c_str(), O_RDONLY | O_CLOEXEC) : -1);
  if (wants_exe && exe_fd.get() < 0) {
    return Error::io("cannot open the executable of " + who + ": " + std::strerror(errno));
  }
  // A streamed core carries the executable: read now, before the process
  // is stopped, so that it adds nothing to the pause.
  std::vector<uint8_t> carried_exe;
  if (options.carry_executable) {
    if (Status s = readWhole(exe_fd.get(), carried_exe); !s) {
      return Error::io("cannot read the executable of " + who + ": " + s.error().message());
    }
  }
  const uint64_t page_size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));

  Sink& sink = options.sink != nullptr ? *options.sink : nullSink();
  auto phase = [&](std::string_view name, uint64_t total) { sink.beginPhase(name, total); };
  auto end_phase = [&] { sink.endPhase(); };
  auto interrupted = [&] { return options.interrupted != nullptr && options.interrupted->load(); };

  // Whether the core can be begun again (CgroupGuard's drop): a file from
  // its first byte, not a pipe.
  struct stat out_stat {};
  const bool restartable = !options.stream && ::fstat(::fileno(out), &out_stat) == 0 &&
                           S_ISREG(out_stat.st_mode) && std::ftell(out) == 0;
  bool may_fork = options.fork;
  uint64_t earlier_pause_ns = 0;
  for (int round = 0;; round++) {
    ForkConditions fork_conditions = may_fork ? readForkConditions(pid) : ForkConditions{};
    fork_conditions.core_restartable = restartable;
    const Clock::time_point stop_start = Clock::now();
    ProcessStopper stopper(pid);
    phase("stop threads", 0);
    Status stopped = stopper.stopAll(options.interrupted);
    end_phase();
    if (!stopped) {
      if (interrupted()) return Error("interrupted; " + who + " runs on, no core written");
      return stopped.error();
    }
    auto pause_ends = [&] {
      stopper.resumeAll();
      result.pause_ns = earlier_pause_ns +
                        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                  Clock::now() - stop_start)
                                                  .count());
    };

    GOHEAP_TRY(std::string maps_text, readProcFile(pid, "maps"));
    GOHEAP_TRY(std::vector<Mapping> mappings, parseMaps(maps_text));
    // The registers are read; the memory comes from a fork when one can be
    // made, and the process goes on at once.
    const std::vector<StoppedThread> threads = stopper.threads();
    std::optional<ProcessCopy> copy;
    std::optional<CgroupGuard> guard;
    if (may_fork) {
      const uint64_t syscall_at = findSyscallInstruction(pid, maps_text);
      if (fork_conditions.seccomp == 2) {
        fork_conditions.seccomp_problem =
            seccompForkProblem(threads.front().tid, syscall_at, options.fork_under_seccomp,
                               fork_conditions.rss_anon_bytes);
      }
      result.no_fork_reason = forkRefusal(fork_conditions);
      if (result.no_fork_reason.empty()) {
        phase("fork", 0);
        Expected<ProcessCopy> made = ProcessCopy::make(pid, stopper.threads().front(), syscall_at);
        end_phase();
        if (made) {
          copy.emplace(made.take());
          result.forked = true;
          result.fork_ns = copy->forkNanoseconds();
          // Copy-on-write could outgrow the cgroup's room: watched (and the
          // fork dropped) before it does.
          if (fork_conditions.cgroup_room_bytes <
              forkWorstCaseBytes(fork_conditions.rss_anon_bytes)) {
            guard.emplace(pid, copy->pid(), kForkCgroupMargin);
          }
          pause_ends();
        } else {
          result.no_fork_reason = "the fork failed: " + made.error().message();
        }
      }
    }
    const pid_t source = copy ? copy->pid() : pid;
    Fd copy_mem_fd, copy_pagemap_fd;
    if (copy) {
      GOHEAP_TRY(int m, openProc(source, "mem"));
      copy_mem_fd.reset(m);
      GOHEAP_TRY(int p, openProc(source, "pagemap"));
      copy_pagemap_fd.reset(p);
    }
    const int source_mem = copy ? copy_mem_fd.get() : mem_fd.get();
    const int source_pagemap = copy ? copy_pagemap_fd.get() : pagemap_fd.get();
    // Whether the memory being read is gone, and the error saying so.
    auto source_gone = [&]() -> std::optional<Error> {
      if (copy) {
        if (copy->alive()) return std::nullopt;
        if (guard && guard->trippedAtRoom()) {
          return Error("the fork of " + who + " was dropped to keep its memory cgroup's room");
        }
        return Error("the fork of " + who +
                     " was killed during the copy (the OOM killer?); no core written; "
                     "--no-fork copies while the process is stopped");
      }
      if (!stopper.processGone()) return std::nullopt;
      return Error(who + " exited during the copy; no core written");
    };

    PlanInputs plan_inputs;
    plan_inputs.mappings = &mappings;
    plan_inputs.page_size = page_size;
    plan_inputs.touched = [&](uint64_t start, uint64_t end) {
      return touchedPages(source_pagemap, start, end, page_size);
    };
    plan_inputs.is_elf_header = [&](const Mapping& m) {
      return startsWithElfHeader(source_mem, m);
    };
    GOHEAP_TRY(MemoryPlan plan, planMemory(plan_inputs));

    CoreContents contents;
    contents.pid = pid;
    contents.threads = &threads;
    contents.mappings = &mappings;
    contents.plan = &plan;
    if (Expected<std::string> auxv = readProcFile(pid, "auxv")) contents.auxv = auxv.take();
    contents.name = status.name;
    contents.command_line = commandLine(pid);
    contents.state = status.state;
    contents.uid = status.real_uid;
    contents.page_size = page_size;
    contents.note.pid = static_cast<uint64_t>(pid);
    contents.note.exe_path = result.exe_path;
    contents.note.build_id = exe->buildId();
    contents.note.go_version = result.go_version;
    contents.note.untouched_is_zero = true;
    if (!options.exe_copy_path.empty()) {
      contents.note.exe_copy = std::filesystem::path(options.exe_copy_path).filename().string();
    }
    // Every mapping with its Rss, for `goheap memory`: from the process
    // itself, not its fork, whose Rss leaves out the shared file pages it has
    // not touched. With a fork the process runs on by now and is not held for
    // it; without one this is part of the pause (a few milliseconds).
    contents.note.mappings = noteMappings(mappings, readProcFile(pid, "smaps"));
    uint64_t copied_bytes = 0;
    contents.read_memory = [&](uint64_t addr, std::span<uint8_t> into) -> Status {
      if (interrupted()) return Error("interrupted; " + who + " runs on, no core written");
      if (options.copy_delay_ms != 0 && round == 0 && !stopper.processGone()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(options.copy_delay_ms));
      }
      copied_bytes += into.size();
      // process_vm_readv copies straight from the process's pages, several
      // times faster than /proc/PID/mem's page-at-a-time copy; the latter
      // reads what it refuses (a mapping without read permission to it).
      // Not from a fork: process_vm_readv pins the pages it reads, and the
      // kernel pins a page shared copy-on-write only after copying it, so
      // the read would duplicate the fork's memory page by page.
      iovec local{into.data(), into.size()};
      iovec remote{reinterpret_cast<void*>(addr), into.size()};
      if (!copy && ::process_vm_readv(source, &local, 1, &remote, 1, 0) ==
                       static_cast<ssize_t>(into.size())) {
        return Status::success();
      }
      size_t done = 0;
      while (done < into.size()) {
        const ssize_t n = ::pread(source_mem, into.data() + done, into.size() - done,
                                  static_cast<off_t>(addr + done));
        if (n < 0 && errno == EINTR) {
          if (interrupted()) return Error("interrupted; " + who + " runs on, no core written");
          continue;
        }
        if (n <= 0) {
          if (std::optional<Error> gone = source_gone()) return *gone;
          // Memory unmapped under us cannot happen while every thread is
          // stopped (or in a fork); a page that cannot be read (a device
          // mapping) reads as zero.
          std::memset(into.data() + done, 0, into.size() - done);
          break;
        }
        done += static_cast<size_t>(n);
      }
      if (std::optional<Error> gone = source_gone()) return *gone;
      return Status::success();
    };
    contents.sink = &sink;
    // Into memory while the process is stopped when half the available
    // memory holds the core, so that it waits for the copy only, not for
    // the disk. A fork is read straight into the file.
    FileOutput file(out);
    std::unique_ptr<MemoryOutput> memory;
    if (!copy && plan.copied_bytes + (64 << 20) < memAvailableBytes() / 2) {
      memory = std::make_unique<MemoryOutput>(plan.copied_bytes + (16 << 20));
    }
    phase("copy memory", plan.copied_bytes);
    // Kept for a second round only where there can be one.
    contents.executable = restartable ? carried_exe : std::move(carried_exe);
    CoreOutput& core_out =
        memory ? static_cast<CoreOutput&>(*memory) : static_cast<CoreOutput&>(file);
    Expected<uint64_t> written =
        options.stream ? writeCoreInOrder(contents, core_out) : writeCore(contents, core_out);
    end_phase();
    result.threads = threads.size();
    if (!copy) pause_ends();
    std::optional<uint64_t> dropped_at_room;
    if (guard) {
      guard->stop();
      dropped_at_room = guard->trippedAtRoom();
    }
    bool fork_lost = false;
    if (copy) {
      fork_lost = !copy->alive();
      result.copied_on_write_bytes = copy->copiedOnWriteBytes();
      result.exited_during_copy = stopper.processGone();
      if (Status s = copy->discard(); !s) result.copy_warning = s.error().message();
    }
    if (!written && fork_lost && !result.exited_during_copy && restartable) {
      // The fork is gone (dropped by the guard, or taken by the OOM killer,
      // which its score points at), the process lives and runs on: copy it
      // again, stopped, into a core begun anew. It was paused twice, and the
      // pause counts both.
      std::fflush(out);
      if (::ftruncate(::fileno(out), 0) != 0 || std::fseek(out, 0, SEEK_SET) != 0) {
        return Error::io(std::string("cannot begin the core again: ") + std::strerror(errno));
      }
      earlier_pause_ns = result.pause_ns;
      result.forked = false;
      result.fork_dropped = true;
      const std::string progress = " after " + formatBytes(copied_bytes) + " of " +
                                   formatBytes(plan.copied_bytes) + " had been copied";
      result.no_fork_reason =
          dropped_at_room ? "its fork was dropped" + progress + ", when its memory cgroup had " +
                                formatBytes(*dropped_at_room) + " left (goheap keeps " +
                                formatBytes(kForkCgroupMargin) +
                                "), so that copy-on-write could not run it out of memory"
                          : "its fork was killed" + progress + " (by the OOM killer?)";
      result.no_fork_reason += "; the pause counts the fork's too";
      sink.note(who + ": " + result.no_fork_reason + "; copying it again while it is stopped");
      may_fork = false;
      continue;
    }
    if (!written) return written.error();
    if (memory) {
      phase("write core", memory->size());
      Status s = memory->writeTo(out, sink);
      end_phase();
      if (!s) return s.error();
    }
    result.writable_bytes = plan.writable_bytes;
    result.segments = plan.segments.size();
    result.core_bytes = *written;
    break;
  }
  if (!options.exe_copy_path.empty()) {
    if (Status s = copyFile(exe_fd.get(), options.exe_copy_path); !s) return s.error();
    result.exe_copy_path = options.exe_copy_path;
  }
  return result;
}

}  // namespace goheap::acquire
