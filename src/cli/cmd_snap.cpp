// goheap snap PID [-o FILE] [--no-exe-copy]: the heap of a running Go
// process, as an ELF core every goheap command reads (src/acquire/snap.h),
// with its executable beside it. The process is stopped while it forks (or,
// with --no-fork, while its memory is copied) and then runs on.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>

#include "acquire/snap.h"
#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "util/file_identity.h"
#include "util/format.h"
#include "util/output_file.h"

namespace goheap::cli {

namespace {

CommandSpec snapSpec() {
  CommandSpec spec(
      "snap",
      "Copies the memory of a running Go process into an ELF core file that every goheap "
      "command reads, without a restart and without a debugger. Every thread is stopped with "
      "ptrace for as long as it takes the process to fork itself (milliseconds: page tables, "
      "not pages); the process then runs on while goheap copies the memory it had touched (a "
      "fraction of what gcore writes) from the copy-on-write fork, which never runs and is "
      "then removed. No signal is sent or lost, and no child is left. Where a fork is unsafe "
      "(a seccomp filter that would kill the process for it, too little free memory for the "
      "copies its writes cause, not amd64), or with --no-fork, the threads stay stopped for "
      "the whole copy; snap says which it did. Needs "
      "the permission to trace the process: the same user (and kernel.yama.ptrace_scope 0) "
      "or root. The executable is copied beside the core (FILE without .core + .exe, read "
      "through /proc/PID/exe, so from a container too), so that the core reads after the "
      "process, its container or its machine is gone; --no-exe-copy leaves it out, and the "
      "core then names the executable's path and build ID only.");
  spec.positional("PID", "the process to snap").kind(ValueKind::Uint);
  spec.flag("output", "FILE",
            "where to write the core: a file (default NAME-PID-TIME.core in the current "
            "folder), or - for standard output, a pipe or a file, written front to back with "
            "the executable inside it (the report then goes to stderr)")
      .alias('o');
  spec.boolFlag("no-exe-copy",
                "do not copy the executable beside the core: smaller, but the core then reads "
                "only where the executable is at the path it ran from");
  spec.boolFlag("with-exe", "the default now (kept so that older command lines work)");
  spec.boolFlag("no-fork",
                "copy while the process is stopped, instead of from a fork of it: a longer "
                "pause, no extra memory");
  spec.boolFlag("fork-under-seccomp",
                "fork a process under a seccomp filter goheap cannot read (it lacks "
                "CAP_SYS_ADMIN), trusting it to refuse clone(2) with an error rather than kill, "
                "as Docker's and Kubernetes' default profile does; filters goheap can read are "
                "checked instead");
  spec.boolFlag("no-progress", "no progress line on stderr (it shows only on a terminal)");
  spec.example("goheap snap 4242",
               "writes server-4242-20261124-101500.core and says how long "
               "the process was paused");
  spec.example("goheap snap 4242 -o heap.core && goheap summary heap.core",
               "snap, then read the core (its executable, heap.exe, is found beside it)");
  spec.example("goheap snap $(pgrep -n myservice) -o s.core --no-exe-copy",
               "a core without the program's copy, read where the program is installed");
  spec.example("goheap summary --pid 4242", "snap to a temporary file, analyse, delete it");
  spec.example("kubectl exec POD -c DEBUGGER -- /goheap snap 1 -o - > app.core",
               "from a debug container sharing the pod's PID namespace, with nowhere to "
               "write: the core and its executable come out through the pipe");
  return spec;
}

std::string defaultOutput(const std::string& name, uint64_t pid) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  std::string base = name.empty() ? std::string("process") : name;
  for (char& c : base) {
    if (c == '/' || c == ' ') c = '_';
  }
  return base + "-" + std::to_string(pid) + "-" + stamp + ".core";
}

std::string exeCopyPath(const std::string& core_path) {
  std::string base = core_path;
  if (base.ends_with(".core")) base.resize(base.size() - 5);
  return base + ".exe";
}

// For tests of an interrupted or failed copy: GOHEAP_SNAP_COPY_DELAY_MS
// slows the copy down (a pause before each read while the process lives).
unsigned copyDelayFromEnvironment() {
  const char* v = std::getenv("GOHEAP_SNAP_COPY_DELAY_MS");
  return v == nullptr ? 0 : static_cast<unsigned>(std::strtoul(v, nullptr, 10));
}

}  // namespace

int runSnap(int argc, const char* const* argv) {
  const CommandSpec spec = snapSpec();
  return runParsed(spec, argc, argv, [&](const ParsedArgs& args) {
    const uint64_t pid_arg = args.getUint("PID");
    if (pid_arg == 0 || pid_arg > 0x3fffffff) {
      return fail(args.usageError("PID " + std::to_string(pid_arg) + " is not a process id"),
                  kExitUsage);
    }
    const pid_t pid = static_cast<pid_t>(pid_arg);
    std::string name;
    {
      if (std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/comm").c_str(), "r")) {
        char buffer[64] = {};
        if (std::fgets(buffer, sizeof buffer, f) != nullptr) name = buffer;
        std::fclose(f);
        while (!name.empty() && name.back() == '\n') name.pop_back();
      }
    }
    const std::string output =
        args.has("output") ? std::string(args.getString("output")) : defaultOutput(name, pid_arg);
    const bool with_exe = !args.getBool("no-exe-copy");
    if (!with_exe && args.getBool("with-exe")) {
      return fail(args.usageError("--with-exe and --no-exe-copy contradict each other (the copy "
                                  "is made by default)"),
                  kExitUsage);
    }
    if (args.getBool("with-exe")) {
      WarningsOnStderr().note(
          "--with-exe is the default now: the executable is copied unless --no-exe-copy");
    }
    // -o -: the core to standard output, front to back, the executable
    // inside it; everything else to stderr.
    const bool stream = output == "-";
    if (stream && ::isatty(STDOUT_FILENO) != 0) {
      return fail(args.usageError("standard output is a terminal: send the core to a file or a "
                                  "pipe, as in goheap snap PID -o - > x.core"),
                  kExitUsage);
    }
    const std::vector<InputFile> inputs = {
        {"the process's executable", "/proc/" + std::to_string(pid) + "/exe"}};
    std::optional<OutputFile> out;
    if (!stream) {
      Expected<OutputFile> created = OutputFile::create(output, inputs);
      if (!created) return fail(created.error());
      out.emplace(created.take());
    } else {
      // A reader that goes away is a write error to report, not a signal.
      ::signal(SIGPIPE, SIG_IGN);
    }
    const std::string exe_copy = with_exe && !stream ? exeCopyPath(output) : std::string();
    if (!exe_copy.empty()) {
      if (Status s = refuseInput(exe_copy, inputs); !s) return fail(s.error());
    }

    Progress progress(stderr, Progress::wanted(stderr, args.getBool("no-progress")));
    PhaseTimer timer;
    PhaseSink sink(progress, timer);
    acquire::SnapOptions options;
    options.exe_copy_path = exe_copy;
    options.interrupted = &g_interrupted;
    options.copy_delay_ms = copyDelayFromEnvironment();
    options.fork = !args.getBool("no-fork");
    options.fork_under_seccomp = args.getBool("fork-under-seccomp");
    options.stream = stream;
    options.carry_executable = stream && with_exe;
    options.sink = &sink;

    Expected<acquire::SnapResult> result = [&] {
      InterruptGuard guard;
      return acquire::snapProcess(pid, stream ? stdout : out->stream(), options);
    }();
    if (!result) return fail(result.error());
    if (out) {
      if (Status s = out->commit(); !s) return fail(s.error());
    } else if (std::fflush(stdout) != 0) {
      return fail(Error::io(std::string("cannot write the core to standard output: ") +
                            std::strerror(errno)));
    }

    const acquire::SnapResult& r = *result;
    std::string text = "snapped process " + std::to_string(pid) + " (" + r.name + ", " +
                       r.go_version + ", " + std::to_string(r.threads) +
                       " threads): " + acquire::describePause(r) + "\n";
    {
      text += "wrote " + (stream ? std::string("the core to standard output") : output) + ": " +
              formatBytes(r.core_bytes) +
              " (the process's writable "
              "memory: " +
              formatBytes(r.writable_bytes) + ")\n";
      if (!r.exe_copy_path.empty()) text += "copied the executable to " + r.exe_copy_path + "\n";
      if (stream) {
        if (options.carry_executable) text += "the executable travels inside the core\n";
        // Standard output holds the core alone.
        std::fputs(text.c_str(), stderr);
        return kExitOk;
      }
      text += "read it with: goheap summary " + output + "\n";
      print(text);
    }
    return kExitOk;
  });
}

}  // namespace goheap::cli
