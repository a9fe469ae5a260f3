#include "acquire/seccomp_filter.h"

#include <linux/audit.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "acquire/this_machine.h"

namespace goheap::acquire {

namespace {

// glibc's <sys/ptrace.h> may predate it.
constexpr int kPtraceSeccompGetFilter = 0x420c;

// The kernel runs at most this many instructions per program (BPF_MAXINSNS).
constexpr size_t kMaxInstructions = 4096;

// The 32-bit word of `call` at byte `offset`, as BPF_LD|BPF_W|BPF_ABS
// loads it (in the machine's byte order, as the kernel does).
uint32_t wordAt(const seccomp_data& call, uint32_t offset) {
  uint32_t word = 0;
  std::memcpy(&word, reinterpret_cast<const char*>(&call) + offset, sizeof word);
  return word;
}

Error badInstruction(size_t pc, const sock_filter& insn, std::string_view why) {
  char code[8];
  std::snprintf(code, sizeof code, "0x%04x", insn.code);
  return Error("seccomp filter instruction " + std::to_string(pc) + " (code " + code +
               "): " + std::string(why));
}

// An action's kind, without its data (the errno of SECCOMP_RET_ERRNO).
uint32_t actionOf(uint32_t value) {
  return value & SECCOMP_RET_ACTION_FULL;
}

// The kernel orders actions as signed numbers, lowest first:
// KILL_PROCESS (0x80000000) wins over KILL_THREAD (0), then TRAP, ERRNO,
// USER_NOTIF, TRACE, LOG and ALLOW.
bool moreRestrictive(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(actionOf(a)) < static_cast<int32_t>(actionOf(b));
}

bool allowedOrLogged(uint32_t action) {
  return actionOf(action) == SECCOMP_RET_ALLOW || actionOf(action) == SECCOMP_RET_LOG;
}

// Refused with an error, the call not made: SECCOMP_RET_ERRNO, and
// SECCOMP_RET_TRACE, which fails with ENOSYS when the tracer (snap, while
// it makes the call) did not ask for seccomp events.
bool refusedWithAnError(uint32_t action) {
  return actionOf(action) == SECCOMP_RET_ERRNO || actionOf(action) == SECCOMP_RET_TRACE;
}

}  // namespace

namespace {

// The instructions seccomp accepts (the kernel's seccomp_check_filter):
// classic BPF without packet loads, BPF_MOD or the extensions.
bool allowedInSeccomp(uint16_t code) {
  switch (code) {
    case BPF_LD | BPF_W | BPF_ABS:
    case BPF_LD | BPF_W | BPF_LEN:
    case BPF_LDX | BPF_W | BPF_LEN:
    case BPF_RET | BPF_K:
    case BPF_RET | BPF_A:
    case BPF_ALU | BPF_NEG:
    case BPF_LD | BPF_IMM:
    case BPF_LDX | BPF_IMM:
    case BPF_MISC | BPF_TAX:
    case BPF_MISC | BPF_TXA:
    case BPF_LD | BPF_MEM:
    case BPF_LDX | BPF_MEM:
    case BPF_ST:
    case BPF_STX:
    case BPF_JMP | BPF_JA:
      return true;
    default:
      break;
  }
  const uint16_t op = BPF_OP(code);
  if (BPF_CLASS(code) == BPF_ALU && (code & ~(BPF_OP(0xff) | BPF_SRC(0xff) | 0x07)) == 0) {
    return op == BPF_ADD || op == BPF_SUB || op == BPF_MUL || op == BPF_DIV || op == BPF_AND ||
           op == BPF_OR || op == BPF_XOR || op == BPF_LSH || op == BPF_RSH;
  }
  if (BPF_CLASS(code) == BPF_JMP && (code & ~(BPF_OP(0xff) | BPF_SRC(0xff) | 0x07)) == 0) {
    return op == BPF_JEQ || op == BPF_JGE || op == BPF_JGT || op == BPF_JSET;
  }
  return false;
}

// Refuses what the kernel refuses when a filter is installed
// (bpf_check_classic and check_load_and_stores): an instruction seccomp
// does not allow, a jump out of the program, a load outside seccomp_data,
// a division by a constant 0, scratch memory out of range or read before
// every path to it wrote it, a last instruction that is not a return.
Status checkSeccompFilter(const SeccompProgram& program) {
  const size_t n = program.size();
  if (n == 0 || n > kMaxInstructions) {
    return Error("a seccomp filter of " + std::to_string(n) + " instructions");
  }
  constexpr uint16_t kAllSlots = (1u << BPF_MEMWORDS) - 1;
  std::vector<uint16_t> valid_at(n, kAllSlots);
  uint16_t valid = 0;
  for (size_t pc = 0; pc < n; pc++) {
    const sock_filter& insn = program[pc];
    const uint32_t k = insn.k;
    if (!allowedInSeccomp(insn.code)) {
      return badInstruction(pc, insn, "an instruction seccomp does not allow");
    }
    valid &= valid_at[pc];
    const size_t left = n - pc - 1;  // instructions after this one
    switch (insn.code) {
      case BPF_LD | BPF_W | BPF_ABS:
        if (k % 4 != 0 || k >= sizeof(seccomp_data)) {
          return badInstruction(pc, insn, "loads outside seccomp_data");
        }
        break;
      case BPF_LD | BPF_MEM:
      case BPF_LDX | BPF_MEM:
      case BPF_ST:
      case BPF_STX:
        if (k >= BPF_MEMWORDS) return badInstruction(pc, insn, "scratch memory index too large");
        if (insn.code == BPF_ST || insn.code == BPF_STX) {
          valid = static_cast<uint16_t>(valid | (1u << k));
        } else if ((valid & (1u << k)) == 0) {
          return badInstruction(pc, insn, "reads scratch memory not written on every path");
        }
        break;
      case BPF_ALU | BPF_DIV | BPF_K:
        if (k == 0) return badInstruction(pc, insn, "divides by 0");
        break;
      case BPF_ALU | BPF_LSH | BPF_K:
      case BPF_ALU | BPF_RSH | BPF_K:
        if (k >= 32) return badInstruction(pc, insn, "shifts by 32 or more");
        break;
      case BPF_JMP | BPF_JA:
        if (k >= left) return badInstruction(pc, insn, "jumps out of the program");
        valid_at[pc + 1 + k] &= valid;
        valid = kAllSlots;
        break;
      default:
        if (BPF_CLASS(insn.code) == BPF_JMP) {
          if (insn.jt >= left || insn.jf >= left) {
            return badInstruction(pc, insn, "jumps out of the program");
          }
          valid_at[pc + 1 + insn.jt] &= valid;
          valid_at[pc + 1 + insn.jf] &= valid;
          valid = kAllSlots;
        }
        break;
    }
  }
  if (BPF_CLASS(program.back().code) != BPF_RET) {
    return Error("a seccomp filter whose last instruction is not a return");
  }
  return Status::success();
}

}  // namespace

Expected<uint32_t> runSeccompFilter(const SeccompProgram& program, const seccomp_data& call) {
  if (Status s = checkSeccompFilter(program); !s) return s.error();
  uint32_t a = 0, x = 0;
  std::array<uint32_t, BPF_MEMWORDS> mem{};
  // Checked above: every jump lands inside, every path ends in a return.
  for (size_t pc = 0;; pc++) {
    const sock_filter& insn = program[pc];
    const uint32_t k = insn.k;
    switch (insn.code) {
      case BPF_LD | BPF_W | BPF_ABS:
        a = wordAt(call, k);
        continue;
      case BPF_LD | BPF_W | BPF_LEN:
        a = sizeof(seccomp_data);
        continue;
      case BPF_LDX | BPF_W | BPF_LEN:
        x = sizeof(seccomp_data);
        continue;
      case BPF_LD | BPF_IMM:
        a = k;
        continue;
      case BPF_LDX | BPF_IMM:
        x = k;
        continue;
      case BPF_LD | BPF_MEM:
        a = mem[k];
        continue;
      case BPF_LDX | BPF_MEM:
        x = mem[k];
        continue;
      case BPF_ST:
        mem[k] = a;
        continue;
      case BPF_STX:
        mem[k] = x;
        continue;
      case BPF_MISC | BPF_TAX:
        x = a;
        continue;
      case BPF_MISC | BPF_TXA:
        a = x;
        continue;
      case BPF_RET | BPF_K:
        return k;
      case BPF_RET | BPF_A:
        return a;
      case BPF_JMP | BPF_JA:
        pc += k;
        continue;
      case BPF_ALU | BPF_NEG:
        a = 0U - a;
        continue;
      default:
        break;
    }
    const uint32_t operand = BPF_SRC(insn.code) == BPF_X ? x : k;
    if (BPF_CLASS(insn.code) == BPF_JMP) {
      bool taken = false;
      switch (BPF_OP(insn.code)) {
        case BPF_JEQ:
          taken = a == operand;
          break;
        case BPF_JGT:
          taken = a > operand;
          break;
        case BPF_JGE:
          taken = a >= operand;
          break;
        default:
          taken = (a & operand) != 0;
          break;  // BPF_JSET
      }
      pc += taken ? insn.jt : insn.jf;
      continue;
    }
    switch (BPF_OP(insn.code)) {  // BPF_ALU
      case BPF_ADD:
        a += operand;
        break;
      case BPF_SUB:
        a -= operand;
        break;
      case BPF_MUL:
        a *= operand;
        break;
      case BPF_OR:
        a |= operand;
        break;
      case BPF_AND:
        a &= operand;
        break;
      case BPF_XOR:
        a ^= operand;
        break;
      // A constant shift of 32 or more is refused; X is taken modulo 32,
      // as the kernel's interpreter and JITs do.
      case BPF_LSH:
        a <<= operand & 31;
        break;
      case BPF_RSH:
        a >>= operand & 31;
        break;
      default:  // BPF_DIV; by X = 0 the program ends with 0, SECCOMP_RET_KILL_THREAD
        if (operand == 0) return 0U;
        a /= operand;
        break;
    }
  }
}

Expected<uint32_t> seccompVerdict(const std::vector<SeccompProgram>& filters,
                                  const seccomp_data& call) {
  // The kernel runs the newest filter first, and of equally restrictive
  // actions keeps the first it met (an ERRNO's errno is the newest one's).
  uint32_t verdict = SECCOMP_RET_ALLOW;
  for (auto filter = filters.rbegin(); filter != filters.rend(); ++filter) {
    GOHEAP_TRY(uint32_t action, runSeccompFilter(*filter, call));
    if (moreRestrictive(action, verdict)) verdict = action;
  }
  return verdict;
}

std::string describeSeccompAction(uint32_t action) {
  switch (actionOf(action)) {
    case SECCOMP_RET_KILL_PROCESS:
      return "kills the process";
    case SECCOMP_RET_KILL_THREAD:
      return "kills the thread";
    case SECCOMP_RET_TRAP:
      return "sends SIGSYS";
    case SECCOMP_RET_ERRNO: {
      const int err = static_cast<int>(action & SECCOMP_RET_DATA);
      const char* name = strerrorname_np(err);
      return std::string("refuses it with ") + (name != nullptr ? name : std::to_string(err));
    }
    case SECCOMP_RET_USER_NOTIF:
      return "hands it to a supervisor process";
    case SECCOMP_RET_TRACE:
      return "hands it to a tracer";
    case SECCOMP_RET_LOG:
      return "logs and allows it";
    case SECCOMP_RET_ALLOW:
      return "allows it";
    default:
      return "answers with an unknown action";
  }
}

Expected<std::vector<SeccompProgram>> readSeccompFilters(pid_t tid) {
  // Index 0 is the oldest filter (the kernel counts back from the newest).
  std::vector<SeccompProgram> oldest_first;
  for (unsigned long index = 0;; index++) {
    const long count = ::ptrace(static_cast<__ptrace_request>(kPtraceSeccompGetFilter), tid,
                                reinterpret_cast<void*>(index), nullptr);
    if (count < 0) {
      if (errno == ENOENT && index > 0) break;  // past the newest filter
      const int err = errno;
      std::string why = std::strerror(err);
      if (err == EACCES || err == EPERM) why += ": reading them needs CAP_SYS_ADMIN";
      if (err == EINVAL || err == EIO) why += ": the kernel does not offer it";
      if (err == ENOENT) why = "the thread has no filter";
      return Error::io("cannot read the seccomp filters of thread " + std::to_string(tid) + " (" +
                       why + ")");
    }
    SeccompProgram program(static_cast<size_t>(count));
    if (::ptrace(static_cast<__ptrace_request>(kPtraceSeccompGetFilter), tid,
                 reinterpret_cast<void*>(index), program.data()) != count) {
      return Error::io("cannot read seccomp filter " + std::to_string(index) + " of thread " +
                       std::to_string(tid) + ": " + std::strerror(errno));
    }
    oldest_first.push_back(std::move(program));
  }
  return oldest_first;
}

std::string forkUnderSeccompProblem(const std::vector<SeccompProgram>& filters,
                                    uint64_t syscall_at) {
  struct Call {
    const char* name;
    long number;
    std::array<uint64_t, 6> args;
    bool error_is_safe;  // refused with an error, nothing is harmed
  };
  // As process_copy.cpp makes them. wait4's pid is the copy's, unknown
  // yet: filters do not tell pids apart in practice, and any will do.
  const Call calls[] = {
      {"clone", SYS_clone, {0, 0, 0, 0, 0, 0}, false},
      {"close_range", SYS_close_range, {0, ~0U, 0, 0, 0, 0}, true},
      {"wait4", SYS_wait4, {1, 0, WNOHANG | __WALL, 0, 0, 0}, false},
  };
  for (const Call& c : calls) {
    seccomp_data data{};
    data.nr = static_cast<int>(c.number);
    data.arch = kAuditArch;
    data.instruction_pointer = syscall_at + 2;  // after the syscall instruction
    for (size_t i = 0; i < 6; i++) data.args[i] = c.args[i];
    Expected<uint32_t> verdict = seccompVerdict(filters, data);
    if (!verdict) return "its seccomp filter cannot be evaluated: " + verdict.error().message();
    if (allowedOrLogged(*verdict) || (c.error_is_safe && refusedWithAnError(*verdict))) continue;
    return std::string("its seccomp filter ") + describeSeccompAction(*verdict) + " for " + c.name +
           "(2), which the fork needs";
  }
  return "";
}

}  // namespace goheap::acquire
