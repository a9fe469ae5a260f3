// runSeccompFilter against the kernel: each filter is installed in a child
// process, which then makes the call, and what the kernel did (the call
// ran, failed with an errno, or the child died of SIGSYS) must be what the
// interpreter says it does.
#include "acquire/seccomp_filter.h"

#include "acquire/this_machine.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace goheap::acquire {
namespace {

constexpr uint32_t kArch = kAuditArch;

constexpr uint32_t kNr = offsetof(seccomp_data, nr);
constexpr uint32_t kArchAt = offsetof(seccomp_data, arch);
constexpr uint32_t arg(int i) {
  return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * i);  // the low word
}

sock_filter stmt(uint16_t code, uint32_t k) {
  return BPF_STMT(code, k);
}
sock_filter jump(uint16_t code, long k, uint8_t jt, uint8_t jf) {
  return BPF_JUMP(code, static_cast<uint32_t>(k), jt, jf);
}
sock_filter ret(uint32_t action) {
  return stmt(BPF_RET | BPF_K, action);
}

// What the kernel did with a call: "allowed", "errno N" or "killed".
std::string outcomeOf(uint32_t action) {
  switch (action & SECCOMP_RET_ACTION_FULL) {
    case SECCOMP_RET_ALLOW:
    case SECCOMP_RET_LOG:
      return "allowed";
    case SECCOMP_RET_ERRNO:
      return "errno " + std::to_string(action & SECCOMP_RET_DATA);
    case SECCOMP_RET_TRACE:
      return "errno " + std::to_string(ENOSYS);  // no tracer
    default:
      return "killed";
  }
}

struct Call {
  long nr;
  std::array<uint64_t, 6> args;
};

// `program` for the probe calls alone: the child's own calls around them
// (write, exit_group) are allowed, whatever their arguments.
SeccompProgram probesOnly(const SeccompProgram& program) {
  SeccompProgram wrapped = {
      stmt(BPF_LD | BPF_W | BPF_ABS, kNr), jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 2, 0),
      jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 1, 0), ret(SECCOMP_RET_ALLOW)};
  wrapped.insert(wrapped.end(), program.begin(), program.end());
  return wrapped;
}

std::vector<SeccompProgram> probesOnly(const std::vector<SeccompProgram>& filters) {
  std::vector<SeccompProgram> out;
  for (const SeccompProgram& f : filters) out.push_back(probesOnly(f));
  return out;
}

// Installs `filters` in a child, which makes `call`: the kernel's outcome,
// or "refused" when the kernel would not install a filter.
std::string kernelOutcome(const std::vector<SeccompProgram>& filters, const Call& call) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "no pipe";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    // SIGSYS (a kill or a trap) would write a core into the test's folder.
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::string answer;
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) answer = "no_new_privs failed";
    for (const SeccompProgram& f : filters) {
      if (!answer.empty()) break;
      sock_fprog prog{static_cast<unsigned short>(f.size()), const_cast<sock_filter*>(f.data())};
      if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) answer = "refused";
    }
    if (answer.empty()) {
      errno = 0;
      const long r = ::syscall(call.nr, call.args[0], call.args[1], call.args[2], call.args[3],
                               call.args[4], call.args[5]);
      answer = r == -1 ? "errno " + std::to_string(errno) : "allowed";
    }
    (void)!::write(pipe_fds[1], answer.data(), answer.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string answer;
  char buffer[64];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) return "killed";
  return answer;
}

std::string interpreterOutcome(const std::vector<SeccompProgram>& filters, const Call& call) {
  for (const SeccompProgram& f : filters) {
    seccomp_data probe{};
    if (!runSeccompFilter(f, probe)) return "refused";
  }
  seccomp_data data{};
  data.nr = static_cast<int>(call.nr);
  data.arch = kArch;
  for (size_t i = 0; i < 6; i++) data.args[i] = call.args[i];
  Expected<uint32_t> verdict = seccompVerdict(filters, data);
  if (!verdict) return "error: " + verdict.error().message();
  return outcomeOf(*verdict);
}

// getppid and gettid ignore their arguments, but the filter sees them.
const std::vector<Call> kCalls = {
    {SYS_getppid, {0, 0, 0, 0, 0, 0}},    {SYS_getppid, {7, 0, 0, 0, 0, 0}},
    {SYS_getppid, {0, 0x10, 0, 0, 0, 0}}, {SYS_getppid, {0, 0, 5, 0, 0, 0}},
    {SYS_getppid, {0, 0, 0, 40, 0, 0}},   {SYS_getppid, {0x5000d, 0, 0, 0, 0, 0}},
    {SYS_gettid, {0, 0, 0, 0, 0, 0}},     {SYS_gettid, {7, 0x10, 5, 40, 0, 0}},
    {SYS_getppid, {0, 0, 0, 0, 0, 9}},    {SYS_gettid, {0, 0, 0, 0, 0, 9}},
};

void expectSameAsTheKernel(const std::vector<SeccompProgram>& bodies, const char* what) {
  const std::vector<SeccompProgram> filters = probesOnly(bodies);
  for (const Call& call : kCalls) {
    const std::string kernel = kernelOutcome(filters, call);
    EXPECT_EQ(interpreterOutcome(filters, call), kernel)
        << what << ": syscall " << call.nr << " args " << call.args[0] << "," << call.args[1] << ","
        << call.args[2] << "," << call.args[3] << ",...," << call.args[5];
  }
}

const uint32_t kErrno = SECCOMP_RET_ERRNO;

TEST(SeccompFilter, TheKernelAgreesOnFiltersOfEveryKind) {
  const uint32_t allow = SECCOMP_RET_ALLOW;
  const std::vector<std::pair<const char*, SeccompProgram>> programs = {
      {"allow all", {ret(allow)}},
      {"errno for one call",
       {stmt(BPF_LD | BPF_W | BPF_ABS, kNr), jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        ret(kErrno | EPERM), ret(allow)}},
      {"the architecture, then an argument",
       {stmt(BPF_LD | BPF_W | BPF_ABS, kArchAt), jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
        ret(SECCOMP_RET_KILL_PROCESS), stmt(BPF_LD | BPF_W | BPF_ABS, arg(0)),
        jump(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1), ret(kErrno | EACCES), ret(allow)}},
      {"a bit test and a kill",
       {stmt(BPF_LD | BPF_W | BPF_ABS, arg(1)), jump(BPF_JMP | BPF_JSET | BPF_K, 0x10, 0, 1),
        ret(SECCOMP_RET_KILL_PROCESS), ret(allow)}},
      {"arithmetic on an argument",
       {stmt(BPF_LD | BPF_W | BPF_ABS, arg(2)), stmt(BPF_ALU | BPF_ADD | BPF_K, 3),
        stmt(BPF_ALU | BPF_MUL | BPF_K, 2), stmt(BPF_ALU | BPF_AND | BPF_K, 0xff),
        stmt(BPF_ALU | BPF_XOR | BPF_K, 1), stmt(BPF_ALU | BPF_LSH | BPF_K, 2),
        stmt(BPF_ALU | BPF_RSH | BPF_K, 1), stmt(BPF_ALU | BPF_SUB | BPF_K, 2),
        stmt(BPF_ALU | BPF_OR | BPF_K, 0x100), stmt(BPF_ALU | BPF_DIV | BPF_K, 2),
        jump(BPF_JMP | BPF_JEQ | BPF_K, 0x90, 0, 1), ret(kErrno | EIO), ret(allow)}},
      {"X, scratch memory and comparisons",
       {stmt(BPF_LD | BPF_W | BPF_ABS, arg(3)), stmt(BPF_ST, 3), stmt(BPF_LDX | BPF_IMM, 30),
        stmt(BPF_LD | BPF_MEM, 3), jump(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 4),
        stmt(BPF_MISC | BPF_TAX, 0), stmt(BPF_LD | BPF_IMM, 80), stmt(BPF_ALU | BPF_DIV | BPF_X, 0),
        jump(BPF_JMP | BPF_JGE | BPF_K, 2, 0, 1), ret(kErrno | E2BIG), stmt(BPF_LDX | BPF_MEM, 3),
        stmt(BPF_MISC | BPF_TXA, 0), stmt(BPF_ALU | BPF_NEG, 0), jump(BPF_JMP | BPF_JA, 0, 0, 0),
        ret(allow)}},
      {"the action from an argument",
       {stmt(BPF_LD | BPF_W | BPF_ABS, arg(0)), jump(BPF_JMP | BPF_JEQ | BPF_K, 0x5000d, 0, 1),
        stmt(BPF_RET | BPF_A, 0), ret(allow)}},
      {"division by X = 0 kills",
       {stmt(BPF_LD | BPF_W | BPF_ABS, arg(5)), jump(BPF_JMP | BPF_JEQ | BPF_K, 9, 0, 3),
        stmt(BPF_LDX | BPF_IMM, 0), stmt(BPF_ALU | BPF_DIV | BPF_X, 0), ret(kErrno | EPERM),
        ret(allow)}},
      {"a trap and a trace",
       {stmt(BPF_LD | BPF_W | BPF_ABS, kNr), jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 0, 1),
        ret(SECCOMP_RET_TRACE), stmt(BPF_LD | BPF_W | BPF_ABS, arg(3)),
        jump(BPF_JMP | BPF_JEQ | BPF_K, 40, 0, 1), ret(SECCOMP_RET_TRAP), ret(SECCOMP_RET_LOG)}},
  };
  for (const auto& [what, program] : programs) expectSameAsTheKernel({program}, what);
}

TEST(SeccompFilter, TheMostRestrictiveOfSeveralFiltersWins) {
  const SeccompProgram allow = {ret(SECCOMP_RET_ALLOW)};
  const SeccompProgram errno_for_args = {stmt(BPF_LD | BPF_W | BPF_ABS, arg(0)),
                                         jump(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1),
                                         ret(kErrno | EPERM), ret(SECCOMP_RET_LOG)};
  const SeccompProgram errno_for_tid = {stmt(BPF_LD | BPF_W | BPF_ABS, kNr),
                                        jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 0, 1),
                                        ret(kErrno | ENOENT), ret(SECCOMP_RET_ALLOW)};
  const SeccompProgram kill_bit = {stmt(BPF_LD | BPF_W | BPF_ABS, arg(1)),
                                   jump(BPF_JMP | BPF_JSET | BPF_K, 0x10, 0, 1),
                                   ret(SECCOMP_RET_KILL_THREAD), ret(SECCOMP_RET_ALLOW)};
  expectSameAsTheKernel({allow, errno_for_args, errno_for_tid}, "three filters");
  expectSameAsTheKernel({errno_for_tid, kill_bit, errno_for_args}, "a kill among errnos");
}

TEST(SeccompFilter, ProgramsTheKernelRefusesAreErrors) {
  const std::vector<std::pair<const char*, SeccompProgram>> bad = {
      {"a jump past the end", {jump(BPF_JMP | BPF_JA, 5, 0, 0), ret(SECCOMP_RET_ALLOW)}},
      {"a conditional jump past the end",
       {stmt(BPF_LD | BPF_W | BPF_ABS, kNr), jump(BPF_JMP | BPF_JEQ | BPF_K, 1, 3, 0),
        ret(SECCOMP_RET_ALLOW)}},
      {"a load outside seccomp_data",
       {stmt(BPF_LD | BPF_W | BPF_ABS, sizeof(seccomp_data)), ret(SECCOMP_RET_ALLOW)}},
      {"an unaligned load", {stmt(BPF_LD | BPF_W | BPF_ABS, 2), ret(SECCOMP_RET_ALLOW)}},
      {"no return at the end", {stmt(BPF_LD | BPF_W | BPF_ABS, kNr)}},
      {"a division by a constant 0", {stmt(BPF_ALU | BPF_DIV | BPF_K, 0), ret(SECCOMP_RET_ALLOW)}},
      {"scratch memory out of range", {stmt(BPF_ST, 16), ret(SECCOMP_RET_ALLOW)}},
      {"scratch memory read before it is written",
       {stmt(BPF_LD | BPF_W | BPF_ABS, kNr), jump(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
        stmt(BPF_ST, 2), stmt(BPF_LD | BPF_MEM, 2), ret(SECCOMP_RET_ALLOW)}},
      {"a remainder, which seccomp does not allow",
       {stmt(BPF_ALU | BPF_MOD | BPF_K, 3), ret(SECCOMP_RET_ALLOW)}},
  };
  for (const auto& [what, program] : bad) {
    seccomp_data data{};
    EXPECT_FALSE(runSeccompFilter(probesOnly(program), data)) << what;
    EXPECT_EQ(kernelOutcome({probesOnly(program)}, kCalls.front()), "refused") << what;
  }
}

// Docker's default profile in miniature: the architecture checked, a list
// of allowed calls, clone allowed without namespace flags, every other call
// refused with EPERM.
SeccompProgram dockerLike(bool with_close_range) {
  SeccompProgram p = {stmt(BPF_LD | BPF_W | BPF_ABS, kArchAt),
                      jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0), ret(SECCOMP_RET_KILL_PROCESS),
                      stmt(BPF_LD | BPF_W | BPF_ABS, kNr)};
  std::vector<long> allowed = {SYS_read, SYS_write, SYS_wait4, SYS_getppid, SYS_gettid};
  if (with_close_range) allowed.push_back(SYS_close_range);
  for (long nr : allowed) {
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    p.push_back(ret(SECCOMP_RET_ALLOW));
  }
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, arg(0)));
  p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, 0x7e020000, 1, 0));  // CLONE_NEW*
  p.push_back(ret(SECCOMP_RET_ALLOW));
  p.push_back(ret(kErrno | EPERM));
  p.push_back(ret(kErrno | EPERM));
  return p;
}

TEST(SeccompFilter, TheKernelAgreesOnADockerLikeProfile) {
  expectSameAsTheKernel({dockerLike(true)}, "docker-like");
  expectSameAsTheKernel({dockerLike(false)}, "docker-like without close_range");
}

TEST(SeccompFilter, AForkIsSafeUnderAProfileThatRefusesWithAnError) {
  EXPECT_EQ(forkUnderSeccompProblem({}, 0x401000), "");
  EXPECT_EQ(forkUnderSeccompProblem({{ret(SECCOMP_RET_ALLOW)}}, 0x401000), "");
  EXPECT_EQ(forkUnderSeccompProblem({dockerLike(true)}, 0x401000), "");
  // Without close_range the copy keeps its descriptors: still safe.
  EXPECT_EQ(forkUnderSeccompProblem({dockerLike(false)}, 0x401000), "");
}

TEST(SeccompFilter, AForkIsUnsafeWhereAFilterKillsOrRefusesTheReap) {
  const SeccompProgram kill_plain_clone = {
      stmt(BPF_LD | BPF_W | BPF_ABS, kNr),    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
      stmt(BPF_LD | BPF_W | BPF_ABS, arg(0)), jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
      ret(SECCOMP_RET_KILL_PROCESS),          ret(SECCOMP_RET_ALLOW)};
  const std::string killed = forkUnderSeccompProblem({kill_plain_clone}, 0x401000);
  EXPECT_NE(killed.find("kills the process for clone(2)"), std::string::npos) << killed;

  const SeccompProgram refuse_wait4 = {stmt(BPF_LD | BPF_W | BPF_ABS, kNr),
                                       jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_wait4, 0, 1),
                                       ret(kErrno | EPERM), ret(SECCOMP_RET_ALLOW)};
  const std::string reap = forkUnderSeccompProblem({refuse_wait4}, 0x401000);
  EXPECT_NE(reap.find("refuses it with EPERM for wait4(2)"), std::string::npos) << reap;

  const SeccompProgram trap_all = {ret(SECCOMP_RET_TRAP)};
  EXPECT_NE(forkUnderSeccompProblem({dockerLike(true), trap_all}, 0x401000).find("SIGSYS"),
            std::string::npos);
}

// The filters a stopped tracee has, read back through ptrace, are the ones
// it installed, oldest first.
TEST(SeccompFilter, ATracerReadsBackTheFiltersATraceeInstalled) {
  // For the probe calls alone: the child must go on making its own.
  const std::vector<SeccompProgram> installed =
      probesOnly(std::vector<SeccompProgram>{dockerLike(true), {ret(SECCOMP_RET_LOG)}});
  const pid_t child = ::fork();
  if (child == 0) {
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    for (const SeccompProgram& f : installed) {
      sock_fprog prog{static_cast<unsigned short>(f.size()), const_cast<sock_filter*>(f.data())};
      if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) ::_exit(3);
    }
    for (;;) ::pause();
  }
  ASSERT_GT(child, 0);
  ::usleep(100000);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, WNOHANG), 0)
      << "the child ended: " << (WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
  ASSERT_EQ(::ptrace(PTRACE_SEIZE, child, nullptr, nullptr), 0) << std::strerror(errno);
  ASSERT_EQ(::ptrace(PTRACE_INTERRUPT, child, nullptr, nullptr), 0) << std::strerror(errno);
  ASSERT_EQ(::waitpid(child, nullptr, __WALL), child);
  Expected<std::vector<SeccompProgram>> read = readSeccompFilters(child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, __WALL);
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->size(), installed.size());
  for (size_t i = 0; i < installed.size(); i++) {
    ASSERT_EQ((*read)[i].size(), installed[i].size()) << i;
    EXPECT_EQ(std::memcmp((*read)[i].data(), installed[i].data(),
                          installed[i].size() * sizeof(sock_filter)),
              0)
        << i;
  }
}

}  // namespace
}  // namespace goheap::acquire
