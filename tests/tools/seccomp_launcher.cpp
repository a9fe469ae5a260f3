// goheap_seccomp_launcher MODE -- PROGRAM [ARGS...]: runs PROGRAM under a
// seccomp filter, as a container runtime does, for the snap tests. MODE:
//   errno-acct         acct(2), which no test program makes, fails with
//                      EPERM; everything else is allowed (the shape of
//                      Docker's default profile: refuse with an error)
//   kill-plain-clone   clone(2) with no flags, which only a fork by goheap
//                      makes (Go's threads pass CLONE_VM and more), kills
//                      the process
// The filter is installed with no_new_privs, so it binds PROGRAM and every
// thread it starts.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4 || std::string(argv[2]) != "--") {
    std::fprintf(stderr,
                 "usage: goheap_seccomp_launcher errno-acct|kill-plain-clone -- PROGRAM "
                 "[ARGS...]\n");
    return 2;
  }
  const std::string mode = argv[1];
  constexpr unsigned kNr = offsetof(seccomp_data, nr);
  constexpr unsigned kArg0 = offsetof(seccomp_data, args);
  std::vector<sock_filter> filter = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),
  };
  if (mode == "errno-acct") {
    filter.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_acct, 0, 1));
    filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  } else if (mode == "kill-plain-clone") {
    filter.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3));
    filter.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0));
    filter.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
    filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  } else {
    std::fprintf(stderr, "goheap_seccomp_launcher: unknown mode %s\n", mode.c_str());
    return 2;
  }
  filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    std::fprintf(stderr, "goheap_seccomp_launcher: %s\n", std::strerror(errno));
    return 1;
  }
  ::execv(argv[3], argv + 3);
  std::fprintf(stderr, "goheap_seccomp_launcher: cannot run %s: %s\n", argv[3],
               std::strerror(errno));
  return 127;
}
