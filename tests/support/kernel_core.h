// Running a test program until it dies with a core file: what the tests of
// real cores (tests/core/kernel_core_test.cpp, goroutines_test.cpp) share.
// The program runs in a temporary directory with the core size limit raised,
// GOTRACEBACK=crash and its stdout and stderr in DIR/output.txt.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace goheap::testing {

// A temporary directory, removed with everything in it.
struct TempDir {
  std::string path;  // empty when it could not be made
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// The whole of a text file; "" when unreadable.
std::string readText(const std::string& path);

// Why the kernel would not write a core named core* into the working
// directory, and why this run could not change that (a read-only /proc/sys,
// not root, or run without ctest's machine_conditions_setup), or "".
std::string corePatternProblem();

// Runs ARGV in DIR with the core limit raised and GOTRACEBACK=crash, its
// output in DIR/output.txt; "" when it died of a signal and dumped core,
// else why not (the words "RLIMIT_CORE" or "wrote no core" when the
// machine, not the program, is to blame).
std::string runToCrash(const std::vector<std::string>& argv, const std::string& dir);

// The file in DIR whose name starts with PREFIX (and ends with SUFFIX), or "".
std::string findFile(const std::string& dir, const std::string& prefix,
                     const std::string& suffix = "");

// A run of a test program that dies with a kernel core in a fresh
// temporary directory. `skip` says why the machine cannot (the program is
// not built, cores go elsewhere or are limited), `failure` why the program
// did not die as it should; else `core` is the core's path.
struct KernelCoreRun {
  TempDir dir;
  std::string report;  // DIR/report.json, the program's only argument
  std::string core, skip, failure;
};

// Runs EXE REPORT [EXTRA...] to a kernel core into `run`, which the caller
// keeps (its directory goes with it).
void runForKernelCore(const std::string& exe, KernelCoreRun& run,
                      const std::vector<std::string>& extra_args = {});

// The same for a program whose arguments are not REPORT [EXTRA...]: EXE
// runs with ARGS, in which "{dir}" stands for the run's directory
// (run.report is left empty).
void runForKernelCoreArgs(const std::string& exe, KernelCoreRun& run,
                          const std::vector<std::string>& args);

// The same for an arm64 EXE under qemu-aarch64, whose guest core qemu
// writes (qemu_<prog>_<time>_<pid>.core); skipped without qemu.
void runForQemuArm64Core(const std::string& exe, KernelCoreRun& run,
                         const std::vector<std::string>& extra_args = {});

// The first of NAMES found on PATH, or "".
std::string onPath(std::initializer_list<std::string> names);

}  // namespace goheap::testing
