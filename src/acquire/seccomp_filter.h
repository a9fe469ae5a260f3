// Whether a process's seccomp filters let snap fork it. snap makes one of the
// process's threads call clone(2) (and later wait4(2) to reap the copy), and
// the copy call close_range(2) (process_copy.h); under a seccomp filter each
// of those could be refused with an error (harmless: snap copies while the
// process is stopped instead), or could kill the process or send it SIGSYS.
// Docker's and containerd's default profile (Kubernetes' RuntimeDefault)
// puts every container under a filter that answers refused calls with an
// error, so a process there may be forked; one that kills may not.
//
// The filters are classic BPF programs the kernel runs on each system call
// (a struct seccomp_data: number, architecture, instruction pointer,
// arguments). With CAP_SYS_ADMIN a tracer may read them
// (PTRACE_SECCOMP_GET_FILTER); runSeccompFilter runs one the way the kernel
// does, so that snap can ask each filter about the exact calls it will make.
#pragma once

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/error.h"

namespace goheap::acquire {

using SeccompProgram = std::vector<sock_filter>;

// The value the kernel's seccomp returns for `program` run on `call`: an
// action (SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno, ...). An Error for
// a program the kernel would not have accepted (a backward or out-of-range
// jump, a load outside seccomp_data, an instruction seccomp does not
// allow), naming the instruction.
Expected<uint32_t> runSeccompFilter(const SeccompProgram& program, const seccomp_data& call);

// What the kernel does when a thread has all of `filters` (every filter
// runs; the most restrictive action wins, SECCOMP_RET_KILL_PROCESS first).
// SECCOMP_RET_ALLOW with no filter.
Expected<uint32_t> seccompVerdict(const std::vector<SeccompProgram>& filters,
                                  const seccomp_data& call);

// "kills the process", "returns EPERM", "is allowed", ... for messages.
std::string describeSeccompAction(uint32_t action);

// The filters of thread `tid`, which the caller traces and holds stopped,
// oldest first (PTRACE_SECCOMP_GET_FILTER; needs CAP_SYS_ADMIN). An Error
// says why they cannot be read.
Expected<std::vector<SeccompProgram>> readSeccompFilters(pid_t tid);

// Why forking under `filters` is unsafe, or "" when every call snap makes
// is allowed (clone with no flags, close_range of every descriptor in the
// copy, wait4 of the copy; at instruction `syscall_at`, amd64). A call
// refused with an error is safe: snap then falls back, or the copy keeps
// descriptors it would have closed.
std::string forkUnderSeccompProblem(const std::vector<SeccompProgram>& filters,
                                    uint64_t syscall_at);

}  // namespace goheap::acquire
