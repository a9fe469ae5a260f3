// Linux core notes. Facts from the kernel's and glibc's headers
// (linux/elfcore.h, sys/procfs.h, sys/user.h, asm/ptrace.h of each machine).
#include "core/notes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "util/format.h"

namespace goheap::core {

namespace {

constexpr uint32_t kNtPrstatus = 1;
constexpr uint32_t kNtPrpsinfo = 3;
constexpr uint32_t kNtAuxv = 6;
constexpr uint32_t kNtFile = 0x46494c45;  // "FILE"

constexpr uint16_t kEm386 = 3;
constexpr uint16_t kEmS390 = 22;
constexpr uint16_t kEmArm = 40;
constexpr uint16_t kEmX8664 = 62;
constexpr uint16_t kEmAarch64 = 183;

// elf_prstatus: pr_cursig (a short) right after the 12-byte elf_siginfo, and
// after it two unsigned longs (pending, held signals) before pr_pid, four
// pids and four timevals (two longs each) before pr_reg.
constexpr uint64_t kPrCursig = 12;
constexpr uint64_t kPrPid64 = 32, kPrPid32 = 24;
constexpr uint64_t kPrReg64 = 112, kPrReg32 = 72;
// elf_prpsinfo ends with pr_fname[16] and pr_psargs[80], in both widths.
constexpr uint64_t kPsFnameFromEnd = 96;
constexpr uint64_t kPsFnameSize = 16;
constexpr uint64_t kPsArgsSize = 80;

constexpr std::array<std::string_view, 27> kAmd64Regs{
    "r15",    "r14", "r13", "r12",     "rbp",     "rbx", "r11",      "r10", "r9",
    "r8",     "rax", "rcx", "rdx",     "rsi",     "rdi", "orig_rax", "rip", "cs",
    "eflags", "rsp", "ss",  "fs_base", "gs_base", "ds",  "es",       "fs",  "gs"};
constexpr std::array<std::string_view, 34> kArm64Regs{
    "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",    "x10", "x11",
    "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",   "x22", "x23",
    "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",  "pc",  "pstate"};
// s390_regs: the PSW (mask, address) and the 16 general registers; the
// access registers and orig_gpr2 that follow are not read.
constexpr std::array<std::string_view, 18> kS390xRegs{
    "pswmask", "pswaddr", "r0", "r1",  "r2",  "r3",  "r4",  "r5",  "r6",
    "r7",      "r8",      "r9", "r10", "r11", "r12", "r13", "r14", "r15"};
constexpr std::array<std::string_view, 18> kArmRegs{"r0",  "r1",  "r2",  "r3",  "r4",   "r5",
                                                    "r6",  "r7",  "r8",  "r9",  "r10",  "r11",
                                                    "r12", "r13", "r14", "r15", "cpsr", "orig_r0"};
constexpr std::array<std::string_view, 17> k386Regs{
    "ebx", "ecx", "edx",      "esi", "edi", "ebp",    "eax", "ds", "es",
    "fs",  "gs",  "orig_eax", "eip", "cs",  "eflags", "esp", "ss"};

constexpr int kNone = -1;
struct RegLayout {
  uint16_t machine;
  bool is64;
  std::span<const std::string_view> names;
  int pc, sp, fp, lr;
};
const RegLayout kLayouts[] = {
    {kEmX8664, true, kAmd64Regs, 16, 19, 4, kNone}, {kEmAarch64, true, kArm64Regs, 32, 31, 29, 30},
    {kEmS390, true, kS390xRegs, 1, 17, kNone, 16},  {kEmArm, false, kArmRegs, 15, 13, 11, 14},
    {kEm386, false, k386Regs, 12, 15, 5, kNone},
};

const RegLayout* layoutOf(uint16_t machine, bool is64) {
  for (const RegLayout& l : kLayouts) {
    if (l.machine == machine && l.is64 == is64) return &l;
  }
  return nullptr;
}

uint64_t alignUp(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

Status readPrstatus(const bin::ByteView& f, uint64_t at, uint64_t size, uint16_t machine, bool is64,
                    CoreNotes& out) {
  const uint32_t w = is64 ? 8 : 4;
  const uint64_t pid_at = is64 ? kPrPid64 : kPrPid32;
  const uint64_t reg_at = is64 ? kPrReg64 : kPrReg32;
  const RegLayout* layout = layoutOf(machine, is64);
  const uint64_t need = layout ? reg_at + layout->names.size() * w : pid_at + 4;
  if (size < need) {
    return Error::atOffset(at, "NT_PRSTATUS",
                           "descriptor of " + std::to_string(size) + " bytes, shorter than the " +
                               std::to_string(need) + " its fields need");
  }
  Thread t;
  t.signal = f.u16(at + kPrCursig);
  t.tid = f.u32(at + pid_at);
  if (layout != nullptr) {
    t.has_registers = true;
    t.registers.reserve(layout->names.size());
    for (size_t i = 0; i < layout->names.size(); ++i) {
      t.registers.push_back(f.word(at + reg_at + i * w, w));
    }
    auto reg = [&](int i) { return i == kNone ? 0 : t.registers[static_cast<size_t>(i)]; };
    t.pc = reg(layout->pc);
    t.sp = reg(layout->sp);
    t.fp = reg(layout->fp);
    t.lr = reg(layout->lr);
  }
  out.threads.push_back(std::move(t));
  return {};
}

Status readPrpsinfo(const bin::ByteView& f, uint64_t at, uint64_t size, CoreNotes& out) {
  if (size < kPsFnameFromEnd) {
    return Error::atOffset(
        at, "NT_PRPSINFO",
        "descriptor of " + std::to_string(size) + " bytes, too short for pr_fname and pr_psargs");
  }
  const uint64_t fname = at + size - kPsFnameFromEnd;
  out.process = ProcessInfo{f.paddedName(fname, kPsFnameSize),
                            f.paddedName(fname + kPsFnameSize, kPsArgsSize)};
  return {};
}

Status readAuxv(const bin::ByteView& f, uint64_t at, uint64_t size, bool is64, CoreNotes& out) {
  const uint32_t w = is64 ? 8 : 4;
  for (uint64_t p = at; p + 2 * w <= at + size; p += 2 * w) {
    const AuxEntry e{f.word(p, w), f.word(p + w, w)};
    if (e.type == 0) break;  // AT_NULL
    out.auxv.push_back(e);
  }
  return {};
}

// count, page size, count x (start, end, page offset), then count paths.
Status readFile(const bin::ByteView& f, uint64_t at, uint64_t size, bool is64, CoreNotes& out) {
  const uint32_t w = is64 ? 8 : 4;
  if (size < 2 * w) {
    return Error::atOffset(at, "NT_FILE", "descriptor too short for its count and page size");
  }
  const uint64_t count = f.word(at, w);
  const uint64_t page = f.word(at + w, w);
  const uint64_t table = at + 2 * w;
  if (count > (size - 2 * w) / (3 * w)) {
    return Error::atOffset(
        at, "NT_FILE",
        std::to_string(count) + " mappings do not fit its " + std::to_string(size) + " bytes");
  }
  const bin::ByteView desc = f.sub(at, size);
  uint64_t name = 2 * w + count * 3 * w;  // relative to the descriptor
  out.file_page_size = page;
  out.files.reserve(out.files.size() + count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t e = table + i * 3 * w;
    FileMapping m;
    m.start = f.word(e, w);
    m.end = f.word(e + w, w);
    const uint64_t pgoff = f.word(e + 2 * w, w);
    if (m.end < m.start) {
      return Error::atOffset(
          e, "NT_FILE",
          "mapping ends (" + formatHex(m.end) + ") before it starts (" + formatHex(m.start) + ")");
    }
    if (page != 0 && pgoff > UINT64_MAX / page) {
      return Error::atOffset(e + 2 * w, "NT_FILE",
                             "page offset " + formatHex(pgoff) + " overflows");
    }
    m.file_offset = pgoff * page;
    if (name >= size || std::memchr(desc.bytes().data() + name, 0, size - name) == nullptr) {
      return Error::atOffset(
          at + std::min(name, size), "NT_FILE",
          "path " + std::to_string(i) + " of " + std::to_string(count) + " runs past the note");
    }
    m.path = desc.cstring(name);
    name += m.path.size() + 1;
    out.files.push_back(m);
  }
  return {};
}

}  // namespace

std::string_view auxName(uint64_t type) {
  switch (type) {
    case kAtPhdr:
      return "AT_PHDR";
    case 4:
      return "AT_PHENT";
    case kAtPhnum:
      return "AT_PHNUM";
    case kAtPagesz:
      return "AT_PAGESZ";
    case kAtBase:
      return "AT_BASE";
    case 8:
      return "AT_FLAGS";
    case kAtEntry:
      return "AT_ENTRY";
    case 11:
      return "AT_UID";
    case 12:
      return "AT_EUID";
    case 13:
      return "AT_GID";
    case 14:
      return "AT_EGID";
    case 15:
      return "AT_PLATFORM";
    case 16:
      return "AT_HWCAP";
    case 17:
      return "AT_CLKTCK";
    case 23:
      return "AT_SECURE";
    case kAtRandom:
      return "AT_RANDOM";
    case 26:
      return "AT_HWCAP2";
    case kAtExecfn:
      return "AT_EXECFN";
    case kAtSysinfoEhdr:
      return "AT_SYSINFO_EHDR";
    default:
      return "";
  }
}

std::span<const std::string_view> registerNames(uint16_t machine, bool is64) {
  const RegLayout* l = layoutOf(machine, is64);
  return l ? l->names : std::span<const std::string_view>{};
}

Status readNotes(const bin::ByteView& f, uint64_t offset, uint64_t size, uint64_t align,
                 uint16_t machine, bool is64, CoreNotes& out) {
  if (!f.has(offset, size)) {
    return Error::atOffset(offset, "PT_NOTE",
                           std::to_string(size) + " bytes of notes run past the end of the file (" +
                               std::to_string(f.size()) + " bytes)");
  }
  const uint64_t end = offset + size;
  uint64_t p = offset;
  while (p < end) {
    if (end - p < 12) {
      return Error::atOffset(p, "PT_NOTE", "note header cut short by the end of the segment");
    }
    const uint64_t namesz = f.u32(p);
    const uint64_t descsz = f.u32(p + 4);
    const uint32_t type = f.u32(p + 8);
    const uint64_t name_at = p + 12;
    const uint64_t desc_at = name_at + alignUp(namesz, align);
    if (alignUp(namesz, align) > end - name_at || descsz > end - desc_at) {
      return Error::atOffset(
          p, "PT_NOTE",
          "note of type " + formatHex(type) + " (name " + std::to_string(namesz) +
              " bytes, descriptor " + std::to_string(descsz) +
              " bytes) overruns its segment, which ends at byte " + std::to_string(end));
    }
    const std::string_view name = f.paddedName(name_at, namesz);
    Status s;
    if (name == "CORE") {
      switch (type) {
        case kNtPrstatus:
          s = readPrstatus(f, desc_at, descsz, machine, is64, out);
          break;
        case kNtPrpsinfo:
          s = readPrpsinfo(f, desc_at, descsz, out);
          break;
        case kNtAuxv:
          s = readAuxv(f, desc_at, descsz, is64, out);
          break;
        case kNtFile:
          s = readFile(f, desc_at, descsz, is64, out);
          break;
        default:
          break;
      }
    }
    if (name == kGoheapNoteOwner && type == kNtGoheapSnap) {
      out.snap = parseSnapNote(
          std::string_view(reinterpret_cast<const char*>(f.bytes().data() + desc_at), descsz));
    }
    if (name == kGoheapNoteOwner && type == kNtGoheapExecutable && descsz != 0) {
      out.carried_executable = CoreNotes::FileRange{desc_at, descsz};
    }
    if (!s) return s;
    p = desc_at + std::min(alignUp(descsz, align), end - desc_at);
  }
  return {};
}

}  // namespace goheap::core
