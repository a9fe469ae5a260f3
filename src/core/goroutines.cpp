#include "core/goroutines.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_map>

#include "util/format.h"

namespace goheap::core {

namespace {

// The most goroutines and physical frames per goroutine believed: beyond,
// allglen or a stack is garbage (the runtime's own limit on a stack is 1 GB,
// but its traceback prints 100 frames).
constexpr uint64_t kMaxGoroutines = 10'000'000;
constexpr uint32_t kMaxFrames = 1024;

// The field named `path` ("sched.pc") of struct `t`, through nested
// structs; a sync/atomic wrapper (atomic.Uint32 since Go 1.20) is looked
// through to its `value`, so the offset is the integer's either way.
Expected<uint64_t> fieldOffset(const bin::DebugInfo& dwarf, bin::TypeId t, std::string_view path) {
  uint64_t offset = 0;
  std::string_view rest = path;
  while (true) {
    t = dwarf.resolve(t);
    if (t == bin::kNoType || dwarf.type(t).tag != bin::DwarfTag::Struct) {
      return Error("DWARF: " + std::string(path) + " is not in a struct");
    }
    const size_t dot = rest.find('.');
    const std::string_view name = rest.substr(0, dot);
    const bin::Field* found = nullptr;
    for (const bin::Field& f : dwarf.fields(dwarf.type(t))) {
      if (f.name == name) found = &f;
    }
    if (found == nullptr) {
      return Error("DWARF: " + std::string(dwarf.type(t).name) + " has no field " +
                   std::string(name));
    }
    offset += found->offset;
    t = found->type;
    if (dot == std::string_view::npos) break;
    rest = rest.substr(dot + 1);
  }
  const bin::TypeId r = dwarf.resolve(t);
  if (r != bin::kNoType && dwarf.type(r).tag == bin::DwarfTag::Struct) {
    for (const bin::Field& f : dwarf.fields(dwarf.type(r))) {
      if (f.name == "value") return offset + f.offset;
    }
  }
  return offset;
}

const bin::GlobalVariable* globalNamed(const bin::DebugInfo& dwarf, std::string_view name) {
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

// Names of functions an unwind ends at: a goroutine's first frame
// (goexit), and the bottoms of system stacks (traceback.go's funcID checks).
bool isStackBottom(std::string_view name) {
  return name == "runtime.goexit" || name == "runtime.mstart" || name == "runtime.mstart0" ||
         name == "runtime.rt0_go" || name == "runtime.mcall" || name == "runtime.morestack" ||
         name == "runtime.systemstack" || name == "runtime.asmcgocall";
}

// Unwinds one goroutine's stack with the pclntab. The caller's SP is the
// frame's SP plus the pcsp delta at its PC (traceback.go: fp = sp +
// funcspdelta); on amd64 the return address is the word below that, pushed
// by CALL, and the caller's SP is above it; on arm64 (a link register) the
// return address was saved at the frame's SP, except in a leaf that has not
// saved it (delta 0), where it is still in LR.
class StackUnwinder {
 public:
  StackUnwinder(const MemoryImage& mem, const bin::Binary& exe, uint64_t bias, bool uses_lr)
      : mem_(mem), exe_(exe), bias_(bias), uses_lr_(uses_lr) {}

  // Appends the frames from (pc, sp, lr) to `out`; returns why it stopped
  // short of a stack's bottom ("" when it reached one).
  std::string unwind(uint64_t pc, uint64_t sp, uint64_t lr, uint64_t lo, uint64_t hi,
                     std::vector<StackFrame>& out) const {
    for (uint32_t depth = 0; depth < kMaxFrames; ++depth) {
      const uint64_t link_pc = pc - bias_;
      const bin::Func* f = exe_.pclntab().funcAt(link_pc);
      if (f == nullptr && depth > 0) f = exe_.pclntab().funcAt(link_pc - 1);
      if (f == nullptr) return "no function holds pc " + formatHex(pc);
      auto where = exe_.symbolize(link_pc);
      if (where && !where->empty()) {
        for (const bin::SourceFrame& s : *where) out.push_back({pc, sp, s});
      } else {
        out.push_back({pc, sp, bin::SourceFrame{f->name, {}, 0, false, f}});
      }
      if (isStackBottom(f->name)) return "";
      auto delta = exe_.pclntab().spDelta(link_pc);
      if (!delta && depth > 0) delta = exe_.pclntab().spDelta(link_pc - 1);
      if (!delta) return "no frame size at pc " + formatHex(pc) + ": " + delta.error().message();
      if (*delta < 0) return "negative frame size at pc " + formatHex(pc);
      const uint64_t ptr = mem_.words().ptrSize();
      uint64_t caller_sp = sp + static_cast<uint64_t>(*delta);
      uint64_t ret = 0;
      if (uses_lr_) {
        if (*delta == 0 && depth == 0) {
          ret = lr;
        } else {
          auto w = mem_.readWord(sp);
          if (!w) return "return address unreadable: " + w.error().message();
          ret = *w;
        }
      } else {
        caller_sp += ptr;
        auto w = mem_.readWord(caller_sp - ptr);
        if (!w) return "return address unreadable: " + w.error().message();
        ret = *w;
      }
      if (ret == 0) return "return address 0 at sp " + formatHex(sp);
      // Each caller's frame is above its callee's, but for an arm64 leaf at
      // the top, which has no frame: a loop would repeat the same frame.
      if (caller_sp <= sp && !(uses_lr_ && *delta == 0 && depth == 0)) {
        return "sp did not grow at " + formatHex(sp);
      }
      if (caller_sp < lo || caller_sp > hi) {
        return "sp " + formatHex(caller_sp) + " left the stack [" + formatHex(lo) + ", " +
               formatHex(hi) + ")";
      }
      pc = ret;
      sp = caller_sp;
    }
    return "more than " + std::to_string(kMaxFrames) + " frames";
  }

 private:
  const MemoryImage& mem_;
  const bin::Binary& exe_;
  uint64_t bias_;
  bool uses_lr_;
};

// runtime.waitReasonStrings, read from the process (the array is data, its
// strings read-only data that the image takes from the executable).
std::vector<std::string> readWaitReasons(const MemoryImage& mem, const GoroutineLayout& l,
                                         uint64_t bias, Sink& told) {
  std::vector<std::string> names;
  const uint64_t ptr = mem.words().ptrSize();
  for (uint64_t i = 0; i < l.wait_reason_count && i < 256; ++i) {
    const uint64_t at = l.wait_reasons + bias + i * 2 * ptr;
    auto data = mem.readWord(at);
    auto len = mem.readWord(at + ptr);
    std::string name;
    if (data && len && *len <= 256) {
      if (auto bytes = mem.read(*data, *len)) name.assign(bytes->begin(), bytes->end());
    }
    if (name.empty() && !(len && *len == 0)) {
      told.warning("runtime.waitReasonStrings[" + std::to_string(i) + "] at " + formatHex(at) +
                   " is unreadable");
    }
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

Expected<uint64_t> runtimeFieldOffset(const bin::DebugInfo& dwarf, std::string_view type_name,
                                      std::string_view path) {
  const bin::TypeId t = dwarf.typeByName(type_name);
  if (t == bin::kNoType) return Error("DWARF: no type " + std::string(type_name));
  return fieldOffset(dwarf, t, path);
}

const bin::GlobalVariable* runtimeGlobal(const bin::DebugInfo& dwarf, std::string_view name) {
  return globalNamed(dwarf, name);
}

Expected<GoroutineLayout> GoroutineLayout::fromDwarf(const bin::DebugInfo& dwarf) {
  const bin::TypeId g = dwarf.typeByName("runtime.g");
  const bin::TypeId m = dwarf.typeByName("runtime.m");
  if (g == bin::kNoType || m == bin::kNoType) return Error("DWARF: no type runtime.g or runtime.m");
  GoroutineLayout l;
  l.g_size = dwarf.type(g).size;
  struct Want {
    uint64_t* into;
    bin::TypeId in;
    std::string_view path;
  };
  for (const Want& w : std::initializer_list<Want>{
           {&l.goid, g, "goid"},
           {&l.atomicstatus, g, "atomicstatus"},
           {&l.waitreason, g, "waitreason"},
           {&l.waitsince, g, "waitsince"},
           {&l.gopc, g, "gopc"},
           {&l.startpc, g, "startpc"},
           {&l.stack_lo, g, "stack.lo"},
           {&l.stack_hi, g, "stack.hi"},
           {&l.sched_sp, g, "sched.sp"},
           {&l.sched_pc, g, "sched.pc"},
           {&l.sched_lr, g, "sched.lr"},
           {&l.sched_bp, g, "sched.bp"},
           {&l.syscallsp, g, "syscallsp"},
           {&l.syscallpc, g, "syscallpc"},
           {&l.m, g, "m"},
           {&l.m_procid, m, "procid"},
       }) {
    GOHEAP_TRY(auto off, fieldOffset(dwarf, w.in, w.path));
    // Every field is read as up to 8 bytes from a copy of the g.
    if (w.in == g && off + 8 > l.g_size) {
      return Error("DWARF: runtime.g." + std::string(w.path) + " at " + std::to_string(off) +
                   " is past the end of its " + std::to_string(l.g_size) + " bytes");
    }
    *w.into = off;
  }
  const bin::GlobalVariable* allgs = globalNamed(dwarf, "runtime.allgs");
  if (allgs == nullptr) return Error("DWARF: no global runtime.allgs");
  l.allgs = allgs->address;
  if (const bin::GlobalVariable* n = globalNamed(dwarf, "runtime.allglen")) l.allglen = n->address;
  if (const bin::GlobalVariable* w = globalNamed(dwarf, "runtime.waitReasonStrings")) {
    const bin::TypeId t = dwarf.resolve(w->type);
    if (t != bin::kNoType && dwarf.type(t).tag == bin::DwarfTag::Array) {
      l.wait_reasons = w->address;
      l.wait_reason_count = dwarf.type(t).count;
    }
  }
  return l;
}

std::string Goroutines::statusText(const Goroutine& g) const {
  const uint32_t s = g.status & ~uint32_t{goruntime::kGscan};
  if ((s == goruntime::kGwaiting || s == goruntime::kGleaked) && g.wait_reason != 0) {
    if (g.wait_reason < wait_reason_names.size()) return wait_reason_names[g.wait_reason];
    return "wait reason " + std::to_string(g.wait_reason);
  }
  return std::string(goruntime::gStatusName(s));
}

std::string_view Goroutines::createdBy(const Goroutine& g, const bin::Binary& exe,
                                       uint64_t bias) const {
  // The main goroutine's gopc is in runtime.newproc (rt0_go started it);
  // the traceback does not name it, nor does this.
  if (g.gopc == 0 || g.goid == 1) return {};
  auto where = exe.pclntab().lookup(g.gopc - bias);
  if (!where || where->func == nullptr) return {};
  return where->func->name;
}

Expected<Goroutines> readGoroutines(const CoreFile& core, const MemoryImage& mem,
                                    const bin::Binary& exe, const bin::DebugInfo& dwarf,
                                    uint64_t bias, Sink& told) {
  GOHEAP_TRY(const GoroutineLayout l, GoroutineLayout::fromDwarf(dwarf));
  const uint64_t ptr = mem.words().ptrSize();
  Goroutines out;
  out.wait_reason_names = readWaitReasons(mem, l, bias, told);

  auto array = mem.readWord(l.allgs + bias);
  auto len = mem.readWord(l.allgs + bias + ptr);
  if (!array || !len) {
    return Error("runtime.allgs at " + formatHex(l.allgs + bias) +
                 " is unreadable: " + (array ? len.error() : array.error()).message());
  }
  uint64_t count = *len;
  if (l.allglen) {
    // The runtime's traceback reads allglen, which is published after the
    // slice grows: the smaller of the two is safe.
    if (auto n = mem.readWord(*l.allglen + bias)) count = std::min(count, *n);
  }
  if (count > kMaxGoroutines) {
    return Error("runtime.allgs at " + formatHex(l.allgs + bias) + " says " +
                 std::to_string(count) + " goroutines");
  }
  auto slots = mem.read(*array, count * ptr);
  if (!slots) return Error("runtime.allgs's array: " + slots.error().message());

  // The thread of each M that ran a goroutine: m.procid is its tid.
  std::unordered_map<uint64_t, const Thread*> by_tid;
  for (const Thread& t : core.threads()) by_tid[t.tid] = &t;
  const StackUnwinder unwinder(mem, exe, bias, core.arch() == "arm64");

  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t gp = mem.words().read(slots->data() + i * ptr);
    auto bytes = mem.read(gp, l.g_size);
    if (!bytes) {
      told.warning("allgs[" + std::to_string(i) + "]: the g at " + formatHex(gp) +
                   " is unreadable: " + bytes.error().message());
      continue;
    }
    const uint8_t* b = bytes->data();
    const WordReader& w = mem.words();
    const WordReader w32(4, w.bigEndian()), w64(8, w.bigEndian());
    Goroutine g;
    g.address = gp;
    g.status = static_cast<uint32_t>(w32.read(b + l.atomicstatus));
    const uint32_t s = g.status & ~uint32_t{goruntime::kGscan};
    if (s == goruntime::kGdead || s == goruntime::kGdeadextra)
      continue;  // as the traceback skips them
    g.goid = w64.read(b + l.goid);
    g.wait_reason = b[l.waitreason];
    g.wait_since = static_cast<int64_t>(w64.read(b + l.waitsince));
    g.gopc = w.read(b + l.gopc);
    g.startpc = w.read(b + l.startpc);
    g.stack_lo = w.read(b + l.stack_lo);
    g.stack_hi = w.read(b + l.stack_hi);
    g.sched_pc = w.read(b + l.sched_pc);
    g.sched_sp = w.read(b + l.sched_sp);
    g.sched_lr = w.read(b + l.sched_lr);
    g.sched_bp = w.read(b + l.sched_bp);
    const Thread* thread = nullptr;
    if (const uint64_t m = w.read(b + l.m); m != 0) {
      if (auto tid = mem.readUint(m + l.m_procid, 8)) {
        if (auto it = by_tid.find(*tid); it != by_tid.end()) {
          thread = it->second;
          g.thread = thread->tid;
        }
      }
    }

    // Where to start: a running goroutine's registers are its thread's, if
    // they are on its stack (not in a signal handler or on g0); one in a
    // system call saved its place in syscallsp/pc; else the saved sched.
    uint64_t pc = g.sched_pc, sp = g.sched_sp, lr = g.sched_lr;
    g.first_frame = static_cast<uint32_t>(out.frames.size());
    if (s == goruntime::kGrunning) {
      if (thread == nullptr || !thread->has_registers) {
        g.note = "running on a thread the core does not hold";
        out.goroutines.push_back(std::move(g));
        continue;
      }
      if (thread->sp < g.stack_lo || thread->sp >= g.stack_hi) {
        g.note = "running on thread " + std::to_string(thread->tid) +
                 ", whose registers are on another stack (signal handler or system stack)";
        out.goroutines.push_back(std::move(g));
        continue;
      }
      pc = thread->pc, sp = thread->sp, lr = thread->lr;
    } else if (const uint64_t ssp = w.read(b + l.syscallsp); ssp != 0) {
      pc = w.read(b + l.syscallpc), sp = ssp, lr = 0;
    }
    if (pc == 0) {
      g.note = "no saved pc";
    } else {
      g.note = unwinder.unwind(pc, sp, lr, g.stack_lo, g.stack_hi, out.frames);
    }
    g.frame_count = static_cast<uint32_t>(out.frames.size()) - g.first_frame;
    out.goroutines.push_back(std::move(g));
  }
  return out;
}

}  // namespace goheap::core
