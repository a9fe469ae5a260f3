#include "support/kernel_core.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace goheap::testing {

namespace fs = std::filesystem;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "goheap-core-XXXXXX").string();
  if (mkdtemp(tmpl.data()) != nullptr) path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path.empty()) fs::remove_all(path, ec);
}

namespace {

// Why the test run did not set core_pattern itself: a read-only /proc/sys
// is the one condition no run on that machine can change
// (tests/skip-allowlist.txt names it).
std::string whyPatternNotSet() {
  if (access("/proc/sys/kernel/core_pattern", W_OK) != 0 && errno == EROFS) {
    return "/proc/sys is read-only here, so no test run can set it";
  }
  if (geteuid() != 0)
    return "only root may set it (ctest's machine_conditions_setup does, as root)";
  return "ctest's machine_conditions_setup sets it to core for a run (this run went without it)";
}

}  // namespace

std::string corePatternProblem() {
  std::string pattern = readText("/proc/sys/kernel/core_pattern");
  while (!pattern.empty() && (pattern.back() == '\n' || pattern.back() == ' ')) pattern.pop_back();
  if (pattern.empty()) return "cannot read /proc/sys/kernel/core_pattern";
  std::string what;
  if (pattern[0] == '|') {
    what = "core_pattern pipes cores to a program (" + pattern + ")";
  } else if (pattern.find('/') != std::string::npos) {
    what = "core_pattern writes cores elsewhere (" + pattern + ")";
  } else if (!pattern.starts_with("core")) {
    what = "core_pattern names cores other than core* (" + pattern + ")";
  } else {
    return "";
  }
  return what + ", and " + whyPatternNotSet();
}

std::string runToCrash(const std::vector<std::string>& argv, const std::string& dir) {
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(96);
    // Root may raise its hard limit too (CAP_SYS_RESOURCE); the limit is
    // this child's alone, so nothing needs putting back.
    const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_CORE, &unlimited) != 0) {
      rlimit lim{};
      if (getrlimit(RLIMIT_CORE, &lim) != 0) _exit(97);
      lim.rlim_cur = lim.rlim_max;
      if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < (1u << 30)) _exit(97);
      if (setrlimit(RLIMIT_CORE, &lim) != 0) _exit(97);
    }
    const int out = open("output.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    setenv("GOTRACEBACK", "crash", 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(98);
  }
  // A program that hangs instead of dying is killed after a minute: a
  // failure, not a test that never ends.
  int status = 0;
  for (int waited_ms = 0;; waited_ms += 50) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0) return "waitpid failed";
    if (waited_ms >= 60000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return "the program did not die within a minute: " +
             readText(dir + "/output.txt").substr(0, 500);
    }
    usleep(50 * 1000);
  }
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 97) {
      rlimit lim{};
      getrlimit(RLIMIT_CORE, &lim);
      return "cannot raise RLIMIT_CORE to write a core: the hard limit is " +
             std::to_string(lim.rlim_max) +
             " bytes, and only root with CAP_SYS_RESOURCE may raise it: raise it where the run "
             "starts (ulimit -Hc unlimited; docker run --ulimit core=-1)";
    }
    return "the program exited with status " + std::to_string(WEXITSTATUS(status)) +
           " instead of dying of SIGABRT: " + readText(dir + "/output.txt").substr(0, 500);
  }
  if (!WCOREDUMP(status)) {
    return "the program died of signal " + std::to_string(WTERMSIG(status)) +
           " but the kernel wrote no core";
  }
  return "";
}

std::string findFile(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.ends_with(suffix)) return e.path().string();
  }
  return "";
}

std::string onPath(std::initializer_list<std::string> names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::vector<std::string> list;
  for (std::string d; std::getline(dirs, d, ':');) list.push_back(d);
  for (const std::string& n : names) {
    for (const std::string& d : list) {
      if (access((d + "/" + n).c_str(), X_OK) == 0) return d + "/" + n;
    }
  }
  return "";
}

namespace {

// Runs EXE ARGS to a kernel core into `run`.
void runArgvForKernelCore(const std::string& exe, KernelCoreRun& run,
                          const std::vector<std::string>& args) {
  if (!fs::exists(exe)) {
    run.skip = exe + " is missing (tests/programs/make-dumps.sh builds it)";
    return;
  }
  if (const std::string p = corePatternProblem(); !p.empty()) {
    run.skip = "cannot have the kernel write a core: " + p;
    return;
  }
  if (run.dir.path.empty()) {
    run.failure = "cannot make a temporary directory";
    return;
  }
  std::vector<std::string> argv{exe};
  for (const std::string& a : args) {
    const size_t at = a.find("{dir}");
    argv.push_back(at == std::string::npos ? a : a.substr(0, at) + run.dir.path + a.substr(at + 5));
  }
  if (const std::string p = runToCrash(argv, run.dir.path); !p.empty()) {
    const bool machine =
        p.find("RLIMIT_CORE") != std::string::npos || p.find("wrote no core") != std::string::npos;
    (machine ? run.skip : run.failure) = p;
    return;
  }
  run.core = findFile(run.dir.path, "core");
  if (run.core.empty()) run.failure = "the kernel reported a core but none is in " + run.dir.path;
}

}  // namespace

void runForKernelCore(const std::string& exe, KernelCoreRun& run,
                      const std::vector<std::string>& extra_args) {
  std::vector<std::string> args{"{dir}/report.json"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  runArgvForKernelCore(exe, run, args);
  if (!run.dir.path.empty()) run.report = run.dir.path + "/report.json";
}

void runForKernelCoreArgs(const std::string& exe, KernelCoreRun& run,
                          const std::vector<std::string>& args) {
  runArgvForKernelCore(exe, run, args);
}

void runForQemuArm64Core(const std::string& exe, KernelCoreRun& run,
                         const std::vector<std::string>& extra_args) {
  if (!fs::exists(exe)) {
    run.skip = exe + " is missing (tests/programs/make-dumps.sh builds it)";
    return;
  }
  const std::string qemu = onPath({"qemu-aarch64-static", "qemu-aarch64"});
  if (qemu.empty()) {
    run.skip = "qemu-aarch64 is not installed (apt-get install qemu-user)";
    return;
  }
  if (run.dir.path.empty()) {
    run.failure = "cannot make a temporary directory";
    return;
  }
  run.report = run.dir.path + "/report.json";
  std::vector<std::string> argv{qemu, exe, run.report};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  if (const std::string p = runToCrash(argv, run.dir.path); !p.empty()) {
    if (p.find("RLIMIT_CORE") != std::string::npos) {
      run.skip = p;
      return;
    }
    // qemu dies of the guest's signal; whether the kernel dumps qemu too
    // does not matter here.
    if (p.find("wrote no core") == std::string::npos) {
      run.failure = p;
      return;
    }
  }
  run.core = findFile(run.dir.path, "qemu_", ".core");
  if (run.core.empty()) run.failure = "qemu wrote no core into " + run.dir.path;
}

}  // namespace goheap::testing
