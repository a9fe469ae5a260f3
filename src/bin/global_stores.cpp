#include "bin/global_stores.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "util/go_version.h"

namespace goheap::bin {

namespace {

// What a register or stack slot holds, as far as the pass follows it.
struct Tracked {
  enum Kind : uint8_t {
    Unknown,
    TypeAddress,    // a type descriptor's address (a = descriptor)
    GlobalAddress,  // a global's address (a = global)
    LoadedGlobal,   // the word loaded from a global (a = global)
    NewObject,      // runtime.newobject(a)
    NewArray,       // makeslice(a) or growslice(a): an array of a
    NewValue,       // makemap(a), makechan(a): a value of type a
    PendingMap,     // makemap_small(): a map whose type a later map call names (a = id)
    CallResult,     // what the function at entry a returned
  };
  Kind kind = Unknown;
  uint64_t a = 0;

  bool operator==(const Tracked&) const = default;
};

// The general-purpose registers, numbered as the instruction encoding does.
enum Register : int { kRax, kRcx, kRdx, kRbx, kRsp, kRbp, kRsi, kRdi, kR8, kR9, kR10, kR11 };
constexpr int kRegisters = 16;
// Go's integer argument (and result) registers, in order (ABIInternal).
constexpr std::array<int, 9> kArgumentRegisters = {kRax, kRbx, kRcx, kRdi, kRsi,
                                                   kR8,  kR9,  kR10, kR11};

// The general-purpose register a Capstone register is (part of); -1 for
// the others (RIP, flags, vector registers).
int registerIndex(unsigned reg) {
  // Each register's names, widest first, in the order of the indices above.
  static constexpr x86_reg kNames[kRegisters][5] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH},
      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH},
      {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH},
      {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},
      {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},
      {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
      {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B},
      {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B},
      {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B},
      {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B}};
  static const std::array<int8_t, X86_REG_ENDING> kIndex = [] {
    std::array<int8_t, X86_REG_ENDING> index{};
    index.fill(-1);
    for (int r = 0; r < kRegisters; r++) {
      for (const x86_reg name : kNames[r]) {
        if (name != X86_REG_INVALID) index[name] = static_cast<int8_t>(r);
      }
    }
    return index;
  }();
  return reg < kIndex.size() ? kIndex[reg] : -1;
}

// The 64-bit general-purpose register a whole-register operand names, or -1.
int wholeRegister(const cs_x86_op& op) {
  if (op.type != X86_OP_REG || op.size != 8) return -1;
  return registerIndex(op.reg);
}

// The registers and stack slots at one point of a function.
struct State {
  std::array<Tracked, kRegisters> regs{};
  std::map<int64_t, Tracked> stack;  // by offset from SP

  void clearRegisters() { regs.fill(Tracked{}); }
  // Keeps what `other` agrees on. A slice's data pointer that is a new
  // array on one path and a global's address on the other (runtime.zerobase,
  // which every empty slice points at) is the array's where it is not empty.
  void meet(const State& other) {
    for (int r = 0; r < kRegisters; r++) regs[r] = agreed(regs[r], other.regs[r]);
    for (auto it = stack.begin(); it != stack.end();) {
      auto o = other.stack.find(it->first);
      if (o == other.stack.end()) {
        it = stack.erase(it);
        continue;
      }
      it->second = agreed(it->second, o->second);
      it = it->second.kind != Tracked::Unknown ? std::next(it) : stack.erase(it);
    }
  }
  static Tracked agreed(const Tracked& a, const Tracked& b) {
    if (a == b) return a;
    if (a.kind == Tracked::NewArray && b.kind == Tracked::GlobalAddress) return a;
    if (b.kind == Tracked::NewArray && a.kind == Tracked::GlobalAddress) return b;
    return Tracked{};
  }
};

// How a runtime function the compiler calls treats its arguments.
enum class Callee : uint8_t {
  Other,
  NewObject,     // newobject(typ) *T
  NewSized,      // Go 1.27's size-specialized new(T): mallocgc*SC*(size, typ, needzero)
  MakeSlice,     // makeslice(et, len, cap): et in AX
  GrowSlice,     // growslice: et in AX (Go 1.19), in SI (Go 1.20+)
  MakeValue,     // makemap(t, ...), makechan(t, ...): a value of type t
  MakeMapSmall,  // makemap_small(): a map of a type a later map call names
  MapOperation,  // runtime.map*(t, m, ...): m is a map of type t
  WriteBarrier,  // gcWriteBarrier*: preserves every register but R11
  Duff,          // duffzero, duffcopy: clobber DI and SI only
};

Callee classify(std::string_view name) {
  static const std::unordered_map<std::string_view, Callee> kNamed = {
      {"runtime.newobject", Callee::NewObject},
      {"runtime.makeslice", Callee::MakeSlice},
      {"runtime.makeslice64", Callee::MakeSlice},
      {"runtime.growslice", Callee::GrowSlice},
      {"runtime.makemap", Callee::MakeValue},
      {"runtime.makemap64", Callee::MakeValue},
      {"runtime.makechan", Callee::MakeValue},
      {"runtime.makechan64", Callee::MakeValue},
      {"runtime.makemap_small", Callee::MakeMapSmall},
      {"runtime.duffzero", Callee::Duff},
      {"runtime.duffcopy", Callee::Duff},
  };
  if (auto it = kNamed.find(name); it != kNamed.end()) return it->second;
  // What new(T) of at most 80 bytes compiles to since Go 1.27
  // (cmd/compile's specializedMallocSym): one T, its type in BX.
  if (name.starts_with("runtime.mallocgcSmallScanNoHeaderSC") ||
      name.starts_with("runtime.mallocgcSmallNoScanSC") ||
      name.starts_with("runtime.mallocgcTiny")) {
    return Callee::NewSized;
  }
  if (name.starts_with("runtime.gcWriteBarrier")) return Callee::WriteBarrier;
  // mapaccess*, mapassign*, mapdelete*, mapiterinit, mapIterStart, mapclear.
  if (name.starts_with("runtime.map")) return Callee::MapOperation;
  return Callee::Other;
}

// The runtime's functions that allocate a string's bytes for the code that
// calls them: concatenation and conversions.
bool makesStringBytes(std::string_view name) {
  return name.starts_with("runtime.concatstring") || name == "runtime.slicebytetostring" ||
         name == "runtime.slicerunetostring" || name == "runtime.intstring" ||
         name == "runtime.rawstring" || name == "runtime.rawstringtmp" ||
         name == "runtime.gostring";
}

// "sync.Map" for a pointer method's name, "sync.(*Map).Load"; empty for
// other functions, closures inside methods and method values ("-fm"). A
// generic type's methods are named by their shapes
// ("internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load"):
// only the shape of `interface {}` is the type itself, so only such types
// are named ("internal/sync.HashTrieMap[interface {},interface {}]", which
// is what sync.Map is since Go 1.24).
std::string_view receiverTypeName(std::string_view name, std::string& out) {
  out.clear();
  const size_t open = name.find(".(*");
  if (open == std::string_view::npos) return {};
  const size_t close = name.find(").", open);
  if (close == std::string_view::npos) return {};
  std::string_view type = name.substr(open + 3, close - open - 3);
  const std::string_view method = name.substr(close + 2);
  if (type.empty() || method.empty() || method.find_first_of(".-") != std::string_view::npos) {
    return {};
  }
  const size_t bracket = type.find('[');
  if (type.substr(0, bracket).find('.') != std::string_view::npos) return {};
  out.assign(name.substr(0, open));
  out += '.';
  if (bracket == std::string_view::npos) {
    out += type;
    return out;
  }
  constexpr std::string_view kShape = "go.shape.";
  constexpr std::string_view kAnyShape = "go.shape.interface {}";
  out += type.substr(0, bracket);
  type.remove_prefix(bracket);
  while (!type.empty()) {
    if (type.starts_with(kAnyShape)) {
      out += "interface {}";
      type.remove_prefix(kAnyShape.size());
    } else if (type.starts_with(kShape)) {
      out.clear();
      return {};
    } else {
      out += type.front();
      type.remove_prefix(1);
    }
  }
  return out;
}

// Packages whose functions take a type and a pointer to a value of that type
// (typedmemmove, reflect's unsafe_New): a descriptor beside a loaded global
// there is not an interface's two words.
bool takesTypedPointers(std::string_view name) {
  return name.starts_with("runtime.") || name.starts_with("reflect.") ||
         name.starts_with("internal/") || name.starts_with("sync/atomic.");
}

struct CapstoneHandle {
  csh handle = 0;
  bool ok = false;
  CapstoneHandle() {
    ok = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK;
    if (ok) cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~CapstoneHandle() {
    if (ok) cs_close(&handle);
  }
  CapstoneHandle(const CapstoneHandle&) = delete;
  CapstoneHandle& operator=(const CapstoneHandle&) = delete;
};

// What the pass reads of one instruction.
struct Decoded {
  uint64_t address = 0;
  uint16_t size = 0;
  uint16_t id = 0;
  bool jump = false;
  uint8_t op_count = 0;
  std::array<cs_x86_op, 2> ops{};  // the first two operands
  uint16_t written = 0;            // the general-purpose registers written, by index
};

// Where backward jumps land (a loop's head, or its body when the compiler
// puts the condition below it), with the general-purpose registers the
// loop writes, by index (all of them when it calls a function).
struct Loop {
  uint64_t end = 0;  // the last backward jump to the head
  uint16_t written = 0;
};
using LoopHeads = std::unordered_map<uint64_t, Loop>;

struct InsnDeleter {
  void operator()(cs_insn* i) const { cs_free(i, 1); }
};

class CodeScanner {
 public:
  CodeScanner(const Binary& exe, const ModuleLayout& m, csh handle, GlobalStoreCounts& counts)
      : exe_(exe), m_(m), handle_(handle), counts_(counts) {
    go_ = parseGoVersion(exe.goVersion());
  }

  // Scans `f`, adding what it stores into globals to `out`; `returned`
  // (when asked) gets what it returns in AX if every return agrees.
  void scan(const Func& f, std::vector<GlobalStore>& out, std::optional<Tracked>* returned);

  // The globals `f` names (loads, stores, addresses), by link-time address.
  void references(const Func& f, std::set<uint64_t>& out);

  // Calls whose result was stored into a global: (callee entry, global).
  std::vector<std::pair<uint64_t, uint64_t>> stored_results;
  // When set, every call to an allocator is recorded here (its return
  // address, the type it allocates, what it makes), whatever happens to
  // the result.
  std::vector<AllocationCall>* allocation_calls = nullptr;
  // When set, the stack slots known at each of these addresses (sorted,
  // link-time: return addresses of calls) are recorded in `slots_at`.
  std::span<const uint64_t> slot_pcs;
  std::vector<std::tuple<uint64_t, int64_t, Tracked>> slots_at;  // (pc, SP offset, value)
  // Calls to these entries record the global whose address is in AX, their
  // receiver, in `receivers`.
  std::unordered_set<uint64_t> receiver_callees;
  std::vector<uint64_t> receivers;

 private:
  bool isType(uint64_t a) const { return a >= m_.types && a < m_.etypes; }
  bool isGlobal(uint64_t a) const { return a >= m_.data && a < m_.ebss; }
  // Any global, with or without pointers.
  bool isAnyGlobal(uint64_t a) const {
    return (a >= m_.noptrdata && a < m_.enoptrdata) || isGlobal(a) ||
           (a >= m_.noptrbss && a < m_.enoptrbss);
  }
  Callee calleeAt(uint64_t entry, std::string_view* name);
  // Decodes `f` into code_ and the addresses backward jumps land on; false
  // when its code cannot be read.
  bool decode(const Func& f, LoopHeads& loop_heads);
  void store(uint64_t global, const Tracked& v, std::vector<GlobalStore>& out);
  void call(uint64_t target, uint64_t return_pc, State& s, std::vector<GlobalStore>& out);

  const Binary& exe_;
  const ModuleLayout& m_;
  csh handle_;
  GlobalStoreCounts& counts_;
  GoVersion go_;
  uint64_t next_pending_ = 1;
  std::vector<Decoded> code_;  // the function being scanned
  // PendingMap ids: the map type a map call named, and the globals stored from it.
  std::unordered_map<uint64_t, uint64_t> pending_type_;
  std::vector<std::pair<uint64_t, uint64_t>> pending_stores_;  // (id, global)
};

Callee CodeScanner::calleeAt(uint64_t entry, std::string_view* name) {
  const Func* f = exe_.pclntab().funcAt(entry);
  if (f == nullptr || f->entry != entry) return Callee::Other;
  *name = f->name;
  return classify(f->name);
}

void CodeScanner::store(uint64_t global, const Tracked& v, std::vector<GlobalStore>& out) {
  switch (v.kind) {
    case Tracked::NewObject:
      out.push_back({global, v.a, StoredValue::NewObject, {}});
      break;
    case Tracked::NewArray:
      out.push_back({global, v.a, StoredValue::NewArray, {}});
      break;
    case Tracked::NewValue:
      out.push_back({global, v.a, StoredValue::Value, {}});
      break;
    case Tracked::PendingMap:
      pending_stores_.emplace_back(v.a, global);
      break;
    case Tracked::CallResult:
      stored_results.emplace_back(v.a, global);
      break;
    default:
      break;
  }
}

void CodeScanner::call(uint64_t target, uint64_t return_pc, State& s,
                       std::vector<GlobalStore>& out) {
  std::string_view name;
  const Callee kind = calleeAt(target, &name);
  auto typeIn = [&](int reg) -> std::optional<uint64_t> {
    const Tracked& t = s.regs[reg];
    if (t.kind == Tracked::TypeAddress) return t.a;
    return std::nullopt;
  };
  if (s.regs[kRax].kind == Tracked::GlobalAddress) {
    if (receiver_callees.contains(target)) receivers.push_back(s.regs[kRax].a);
    std::string type;
    if (kind == Callee::Other && isGlobal(s.regs[kRax].a) &&
        !receiverTypeName(name, type).empty()) {
      out.push_back({s.regs[kRax].a, 0, StoredValue::Receiver, std::move(type)});
    }
  }
  if (kind == Callee::WriteBarrier) {
    s.regs[kR11] = Tracked{};
    return;
  }
  if (kind == Callee::Duff) {
    s.regs[kRdi] = s.regs[kRsi] = Tracked{};
    return;
  }
  // A map operation's (type, map), or an interface's (type, data) passed
  // to a function: the loaded global is a value of that type.
  if (kind == Callee::MapOperation || (kind == Callee::Other && !takesTypedPointers(name))) {
    const size_t pairs = kind == Callee::MapOperation ? 1 : kArgumentRegisters.size() - 1;
    for (size_t i = 0; i < pairs; i++) {
      const Tracked& type = s.regs[kArgumentRegisters[i]];
      const Tracked& value = s.regs[kArgumentRegisters[i + 1]];
      if (type.kind != Tracked::TypeAddress) continue;
      if (value.kind == Tracked::LoadedGlobal) {
        out.push_back({value.a, type.a, StoredValue::Value, {}});
      } else if (value.kind == Tracked::PendingMap && kind == Callee::MapOperation) {
        pending_type_.emplace(value.a, type.a);
      }
    }
  }
  Tracked result;
  std::optional<uint64_t> type;
  switch (kind) {
    case Callee::NewObject:
      if ((type = typeIn(kRax))) result = {Tracked::NewObject, *type};
      break;
    case Callee::NewSized:
      if ((type = typeIn(kRbx))) result = {Tracked::NewObject, *type};
      break;
    case Callee::MakeSlice:
      if ((type = typeIn(kRax))) result = {Tracked::NewArray, *type};
      break;
    case Callee::GrowSlice:
      if ((type = typeIn(go_.atLeast(20) ? kRsi : kRax))) result = {Tracked::NewArray, *type};
      break;
    case Callee::MakeValue:
      if ((type = typeIn(kRax))) result = {Tracked::NewValue, *type};
      break;
    case Callee::MakeMapSmall:
      result = {Tracked::PendingMap, next_pending_++};
      break;
    case Callee::Other:
      result = {Tracked::CallResult, target};
      break;
    default:
      break;
  }
  if (allocation_calls != nullptr) {
    std::optional<Allocated> made;
    if (result.kind == Tracked::NewObject) made = Allocated::Object;
    if (result.kind == Tracked::NewArray) made = Allocated::Array;
    if (result.kind == Tracked::NewValue) made = Allocated::Header;
    if (kind == Callee::Other && makesStringBytes(name)) made = Allocated::StringBytes;
    if (made) {
      const uint64_t made_type = *made == Allocated::StringBytes ? 0 : result.a;
      allocation_calls->push_back({return_pc, made_type, *made, name});
    }
  }
  s.clearRegisters();  // Go's ABI saves no register across a call
  s.regs[kRax] = result;
}

bool CodeScanner::decode(const Func& f, LoopHeads& loop_heads) {
  code_.clear();
  if (f.end <= f.entry || f.end - f.entry > (uint64_t{1} << 24)) return false;
  const std::optional<ByteView> code = exe_.container().readAt(f.entry, f.end - f.entry);
  if (!code) return false;
  std::unique_ptr<cs_insn, InsnDeleter> insn(cs_malloc(handle_));
  if (!insn) return false;
  counts_.functions++;
  const uint8_t* p = code->bytes().data();
  size_t left = code->size();
  uint64_t pc = f.entry;
  while (cs_disasm_iter(handle_, &p, &left, &pc, insn.get())) {
    const cs_x86& x = insn->detail->x86;
    Decoded d;
    d.address = insn->address;
    d.size = insn->size;
    d.id = static_cast<uint16_t>(insn->id);
    d.jump = cs_insn_group(handle_, insn.get(), CS_GRP_JUMP);
    d.op_count = x.op_count;
    for (size_t i = 0; i < d.ops.size() && i < x.op_count; i++) d.ops[i] = x.operands[i];
    cs_regs read, written;
    uint8_t nread = 0, nwritten = 0;
    if (cs_regs_access(handle_, insn.get(), read, &nread, written, &nwritten) == CS_ERR_OK) {
      for (uint8_t i = 0; i < nwritten; i++) {
        const int r = registerIndex(written[i]);
        if (r >= 0) d.written |= static_cast<uint16_t>(1u << r);
      }
    } else {
      d.written = 0xffff;
    }
    if (d.id == X86_INS_CALL) d.written = 0xffff;  // Go's ABI saves no register
    if (d.jump && x.op_count == 1 && x.operands[0].type == X86_OP_IMM &&
        static_cast<uint64_t>(x.operands[0].imm) <= d.address) {
      Loop& loop = loop_heads[static_cast<uint64_t>(x.operands[0].imm)];
      loop.end = std::max(loop.end, d.address);
    }
    code_.push_back(d);
  }
  for (auto& [head, loop] : loop_heads) {
    auto in = std::lower_bound(code_.begin(), code_.end(), head,
                               [](const Decoded& d, uint64_t a) { return d.address < a; });
    for (; in != code_.end() && in->address <= loop.end; ++in) loop.written |= in->written;
  }
  counts_.instructions += code_.size();
  return true;
}

void CodeScanner::references(const Func& f, std::set<uint64_t>& out) {
  LoopHeads loop_heads;
  if (!decode(f, loop_heads)) return;
  for (const Decoded& in : code_) {
    for (size_t i = 0; i < in.ops.size() && i < in.op_count; i++) {
      const cs_x86_op& op = in.ops[i];
      if (op.type != X86_OP_MEM || op.mem.base != X86_REG_RIP) continue;
      const uint64_t addr = in.address + in.size + static_cast<uint64_t>(op.mem.disp);
      if (isAnyGlobal(addr)) out.insert(addr);
    }
  }
}

void CodeScanner::scan(const Func& f, std::vector<GlobalStore>& out,
                       std::optional<Tracked>* returned) {
  // Decoded once (Capstone formats each instruction's text as it decodes,
  // most of the cost), with where jumps land from below: loops.
  LoopHeads loop_heads;
  if (!decode(f, loop_heads)) return;

  State s;
  // The last unconditional forward jump: where it went, and the state there.
  uint64_t jumped_to = 0;
  State jump_state;
  std::unordered_map<uint64_t, State> forward;  // states jumped to, by target
  bool falls_through = true;
  std::optional<Tracked> ret;
  bool ret_agrees = true;
  for (const Decoded& in : code_) {
    const uint64_t at = in.address;
    // A return address asked about: what the stack holds as the call
    // returns there (the call clobbered the registers, not the slots).
    if (!slot_pcs.empty() && std::binary_search(slot_pcs.begin(), slot_pcs.end(), at)) {
      for (const auto& [off, v] : s.stack) slots_at.emplace_back(at, off, v);
    }
    // Where jumps land, the states that reach it meet.
    if (auto it = forward.find(at); it != forward.end()) {
      if (falls_through) {
        s.meet(it->second);
      } else {
        s = std::move(it->second);
      }
      forward.erase(it);
      falls_through = true;
    }
    // A loop's head (or its body, which the compiler places before the
    // condition it jumps down to, entered by a jump to that condition):
    // the registers the loop writes change from one iteration to the next;
    // the others, and the stack slots of values made before the loop, do
    // not.
    if (auto loop = loop_heads.find(at); loop != loop_heads.end()) {
      if (!falls_through) {
        const bool entered = jumped_to > at && jumped_to <= loop->second.end;
        s = entered ? jump_state : State{};
      }
      for (int r = 0; r < kRegisters; r++) {
        if ((loop->second.written >> r & 1) != 0) s.regs[r] = Tracked{};
      }
    } else if (!falls_through) {
      s = State{};  // code no path seen so far reaches
    }

    const unsigned id = in.id;
    if (in.jump) {
      if (in.op_count == 1 && in.ops[0].type == X86_OP_IMM) {
        const auto to = static_cast<uint64_t>(in.ops[0].imm);
        if (to > at) {
          auto [it, fresh] = forward.try_emplace(to, s);
          if (!fresh) it->second.meet(s);
          if (id == X86_INS_JMP) {
            jumped_to = to;
            jump_state = s;
          }
        }
      }
      falls_through = id != X86_INS_JMP;
      continue;
    }
    if (id == X86_INS_RET) {
      if (!ret) {
        ret = s.regs[kRax];
      } else if (!(*ret == s.regs[kRax])) {
        ret_agrees = false;
      }
      falls_through = false;
      continue;
    }
    if (id == X86_INS_UD2 || id == X86_INS_INT3) {
      falls_through = false;
      continue;
    }
    // Padding (NOPs, and XCHG of a register with itself, which the
    // assembler also pads with) changes nothing: after a jump it stays
    // unreachable, so a jump target right after it takes the jump's state
    // alone.
    if (id == X86_INS_NOP ||
        (id == X86_INS_XCHG && in.op_count == 2 && in.ops[0].type == X86_OP_REG &&
         in.ops[1].type == X86_OP_REG && in.ops[0].reg == in.ops[1].reg)) {
      continue;
    }
    falls_through = true;
    if (id == X86_INS_CALL) {
      if (in.op_count == 1 && in.ops[0].type == X86_OP_IMM) {
        call(static_cast<uint64_t>(in.ops[0].imm), at + in.size, s, out);
      } else {
        s.clearRegisters();
      }
      continue;
    }

    // What the instruction computes, for the moves the pass follows.
    std::optional<std::pair<int, Tracked>> set;
    const uint64_t next = at + in.size;
    if (in.op_count == 2) {
      const cs_x86_op& dst = in.ops[0];
      const cs_x86_op& src = in.ops[1];
      const int d = wholeRegister(dst);
      const bool src_rip =
          src.type == X86_OP_MEM && src.mem.base == X86_REG_RIP && src.mem.index == X86_REG_INVALID;
      const bool src_stack =
          src.type == X86_OP_MEM && src.mem.base == X86_REG_RSP && src.mem.index == X86_REG_INVALID;
      const bool dst_rip =
          dst.type == X86_OP_MEM && dst.mem.base == X86_REG_RIP && dst.mem.index == X86_REG_INVALID;
      const bool dst_stack =
          dst.type == X86_OP_MEM && dst.mem.base == X86_REG_RSP && dst.mem.index == X86_REG_INVALID;
      if (id == X86_INS_LEA && d >= 0 && src_rip) {
        const uint64_t addr = next + static_cast<uint64_t>(src.mem.disp);
        if (isType(addr)) {
          set.emplace(d, Tracked{Tracked::TypeAddress, addr});
        } else if (isAnyGlobal(addr)) {
          set.emplace(d, Tracked{Tracked::GlobalAddress, addr});
        } else {
          set.emplace(d, Tracked{});
        }
      } else if (id == X86_INS_MOV && d >= 0) {
        if (src.type == X86_OP_REG) {
          const int r = wholeRegister(src);
          set.emplace(d, r >= 0 ? s.regs[r] : Tracked{});
        } else if (src_rip && src.size == 8) {
          const uint64_t addr = next + static_cast<uint64_t>(src.mem.disp);
          set.emplace(d, isGlobal(addr) ? Tracked{Tracked::LoadedGlobal, addr} : Tracked{});
        } else if (src_stack && src.size == 8) {
          auto it = s.stack.find(src.mem.disp);
          set.emplace(d, it != s.stack.end() ? it->second : Tracked{});
        }
      } else if (id == X86_INS_MOV && dst_rip && dst.size == 8) {
        const int r = wholeRegister(src);
        const uint64_t addr = next + static_cast<uint64_t>(dst.mem.disp);
        if (r >= 0 && isGlobal(addr)) store(addr, s.regs[r], out);
      }
      if (dst_stack && (dst.access & CS_AC_WRITE) != 0) {
        const int r = id == X86_INS_MOV && dst.size == 8 ? wholeRegister(src) : -1;
        if (r >= 0 && s.regs[r].kind != Tracked::Unknown) {
          s.stack[dst.mem.disp] = s.regs[r];
        } else {
          // A narrower or other write: whatever overlaps the slot is gone.
          for (int64_t off = dst.mem.disp - 7; off < dst.mem.disp + dst.size; off++) {
            s.stack.erase(off);
          }
        }
      }
    }
    // Every register written loses what it held.
    for (int r = 0; r < kRegisters; r++) {
      if ((in.written >> r & 1) == 0) continue;
      s.regs[r] = Tracked{};
      if (r == kRsp) s.stack.clear();  // the slots moved
    }
    if (set) s.regs[set->first] = set->second;
  }

  for (const auto& [id, global] : pending_stores_) {
    if (auto it = pending_type_.find(id); it != pending_type_.end()) {
      out.push_back({global, it->second, StoredValue::Value, {}});
    }
  }
  pending_stores_.clear();
  pending_type_.clear();
  if (returned != nullptr && ret && ret_agrees) *returned = ret;
}

// The functions whose code holds a RIP-relative reference to one of
// `globals`: every 4 bytes that, read as a displacement from the end of
// an instruction they end, land on one. A cheap superset of the functions
// that name them, so that only those are decoded.
std::vector<const Func*> functionsNaming(const Binary& exe, const ModuleLayout& m,
                                         std::span<const uint64_t> globals) {
  std::vector<const Func*> found;
  if (globals.empty() || m.etext <= m.text) return found;
  const uint64_t lo = globals.front(), hi = globals.back();
  const std::optional<ByteView> text = exe.container().readAt(m.text, m.etext - m.text);
  if (!text || text->size() < 4) return found;
  const uint8_t* bytes = text->bytes().data();
  const Func* last = nullptr;
  for (size_t i = 0; i + 4 <= text->size(); i++) {
    const auto disp =
        static_cast<int32_t>(uint32_t{bytes[i]} | uint32_t{bytes[i + 1]} << 8 |
                             uint32_t{bytes[i + 2]} << 16 | uint32_t{bytes[i + 3]} << 24);
    const uint64_t to = m.text + i + 4 + static_cast<uint64_t>(int64_t{disp});
    // The word itself, or a struct holding it whose address is loaded as
    // a method's receiver (LEAQ G(SB), AX: 48 8D 05 disp32).
    if (to + kReceiverReach <= lo || to > hi) continue;
    const auto near = std::lower_bound(globals.begin(), globals.end(), to);
    if (near == globals.end() || *near - to >= kReceiverReach) continue;
    const bool receiver =
        i >= 3 && bytes[i - 3] == 0x48 && bytes[i - 2] == 0x8D && bytes[i - 1] == 0x05;
    if (*near != to && !receiver) continue;
    const Func* f = exe.pclntab().funcAt(m.text + i);
    if (f == nullptr || f == last) continue;
    found.push_back(f);
    last = f;
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// The functions holding a direct call (E8 rel32) to one of `entries`.
std::vector<const Func*> functionsCalling(const Binary& exe, const ModuleLayout& m,
                                          const std::unordered_set<uint64_t>& entries) {
  std::vector<const Func*> found;
  const std::optional<ByteView> text =
      m.etext > m.text ? exe.container().readAt(m.text, m.etext - m.text) : std::nullopt;
  if (!text || text->size() < 5 || entries.empty()) return found;
  const uint8_t* bytes = text->bytes().data();
  for (size_t i = 0; i + 5 <= text->size(); i++) {
    if (bytes[i] != 0xE8) continue;
    const auto rel =
        static_cast<int32_t>(uint32_t{bytes[i + 1]} | uint32_t{bytes[i + 2]} << 8 |
                             uint32_t{bytes[i + 3]} << 16 | uint32_t{bytes[i + 4]} << 24);
    if (!entries.contains(m.text + i + 5 + static_cast<uint64_t>(int64_t{rel}))) continue;
    if (const Func* f = exe.pclntab().funcAt(m.text + i)) found.push_back(f);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// Calls use(scanner, layout) with a scanner of `exe`'s code where the scan
// can read it: amd64, with the module's layout (and type descriptors, when
// `needs_types`) and a disassembler; otherwise does nothing.
template <class Use>
void withCodeScanner(const Binary& exe, GlobalStoreCounts& counts, bool needs_types, Use&& use) {
  const std::optional<ModuleLayout>& m = exe.moduleLayout();
  if (exe.container().arch != "amd64" || !m || (needs_types && m->etypes <= m->types)) return;
  CapstoneHandle cs;
  if (!cs.ok) return;
  CodeScanner scanner(exe, *m, cs.handle, counts);
  use(scanner, *m);
}

// Fills each entry of `returns` (a function's entry address) with the one
// new value the function returns on every path, if it does (a constructor).
void scanReturnedValues(CodeScanner& scanner, const Binary& exe,
                        std::map<uint64_t, std::optional<Tracked>>& returns) {
  std::vector<GlobalStore> ignored;
  for (auto& [entry, returned] : returns) {
    const Func* f = exe.pclntab().funcAt(entry);
    if (f != nullptr && f->entry == entry) scanner.scan(*f, ignored, &returned);
  }
}

}  // namespace

std::optional<uint64_t> findReceiverGlobal(const Binary& exe, std::string_view method_prefix,
                                           GlobalStoreCounts* counts) {
  GlobalStoreCounts local;
  std::vector<uint64_t> seen;
  withCodeScanner(exe, counts != nullptr ? *counts : local, false,
                  [&](CodeScanner& scanner, const ModuleLayout& m) {
                    for (const Func& f : exe.pclntab().funcs()) {
                      if (f.name.starts_with(method_prefix)) {
                        scanner.receiver_callees.insert(f.entry);
                      }
                    }
                    std::vector<GlobalStore> ignored;
                    for (const Func* f : functionsCalling(exe, m, scanner.receiver_callees)) {
                      scanner.scan(*f, ignored, nullptr);
                    }
                    seen = std::move(scanner.receivers);
                  });
  if (seen.size() < 2 ||
      std::adjacent_find(seen.begin(), seen.end(), std::not_equal_to<>()) != seen.end()) {
    return std::nullopt;
  }
  return seen.front();
}

std::optional<uint64_t> findGlobalNamedByAll(const Binary& exe,
                                             std::span<const std::string_view> functions) {
  if (functions.empty()) return std::nullopt;
  GlobalStoreCounts counts;
  std::optional<std::set<uint64_t>> common;
  withCodeScanner(exe, counts, false, [&](CodeScanner& scanner, const ModuleLayout&) {
    for (const std::string_view name : functions) {
      const auto funcs = exe.pclntab().funcs();
      const auto f =
          std::find_if(funcs.begin(), funcs.end(), [&](const Func& fn) { return fn.name == name; });
      if (f == funcs.end()) {
        common.reset();
        return;
      }
      std::set<uint64_t> named;
      scanner.references(*f, named);
      if (common) {
        std::erase_if(*common, [&](uint64_t g) { return !named.contains(g); });
      } else {
        common = std::move(named);
      }
    }
  });
  if (!common || common->size() != 1) return std::nullopt;
  return *common->begin();
}

std::vector<AllocationCall> findAllocationCalls(const Binary& exe, const Func& f) {
  std::vector<AllocationCall> calls;
  GlobalStoreCounts counts;
  withCodeScanner(exe, counts, true, [&](CodeScanner& scanner, const ModuleLayout&) {
    scanner.allocation_calls = &calls;
    std::vector<GlobalStore> ignored;
    scanner.scan(f, ignored, nullptr);
  });
  return calls;
}

std::vector<StackSlotValue> findStackSlotValues(const Binary& exe, const Func& f,
                                                std::span<const uint64_t> return_pcs) {
  std::vector<StackSlotValue> out;
  if (return_pcs.empty()) return out;
  GlobalStoreCounts counts;
  withCodeScanner(exe, counts, true, [&](CodeScanner& scanner, const ModuleLayout&) {
    scanner.slot_pcs = return_pcs;
    std::vector<GlobalStore> ignored;
    scanner.scan(f, ignored, nullptr);
    // A slot holding what a call returned: what the callee returns, when it
    // returns one new value on every path.
    std::map<uint64_t, std::optional<Tracked>> returns;
    for (const auto& [pc, off, v] : scanner.slots_at) {
      if (v.kind == Tracked::CallResult) returns.try_emplace(v.a);
    }
    scanner.slot_pcs = {};
    scanReturnedValues(scanner, exe, returns);
    for (auto [pc, off, v] : scanner.slots_at) {
      if (v.kind == Tracked::CallResult) {
        const std::optional<Tracked>& r = returns[v.a];
        if (!r) continue;
        v = *r;
      }
      if (v.kind == Tracked::NewObject) out.push_back({pc, off, v.a, Allocated::Object});
      if (v.kind == Tracked::NewArray) out.push_back({pc, off, v.a, Allocated::Array});
      if (v.kind == Tracked::NewValue) out.push_back({pc, off, v.a, Allocated::Header});
    }
  });
  return out;
}

std::vector<GlobalStore> findGlobalStores(const Binary& exe, std::span<const uint64_t> globals,
                                          GlobalStoreCounts* counts) {
  std::vector<GlobalStore> out;
  if (globals.empty()) return out;
  GlobalStoreCounts local;
  withCodeScanner(exe, counts != nullptr ? *counts : local, true,
                  [&](CodeScanner& scanner, const ModuleLayout& m) {
                    for (const Func* f : functionsNaming(exe, m, globals)) {
                      scanner.scan(*f, out, nullptr);
                    }
                    // A global stored from a call: what the callee returns, if it
                    // returns one new value on every path (a constructor:
                    // `var enc = NewEncoding(...)`).
                    std::map<uint64_t, std::optional<Tracked>> returns;
                    for (const auto& [callee, global] : scanner.stored_results) {
                      returns.try_emplace(callee);
                    }
                    scanReturnedValues(scanner, exe, returns);
                    for (const auto& [callee, global] : scanner.stored_results) {
                      const std::optional<Tracked>& r = returns[callee];
                      if (!r) continue;
                      const StoredValue what =
                          r->kind == Tracked::NewObject  ? StoredValue::NewObject
                          : r->kind == Tracked::NewArray ? StoredValue::NewArray
                                                         : StoredValue::Value;
                      if (r->kind == Tracked::NewObject || r->kind == Tracked::NewArray ||
                          r->kind == Tracked::NewValue) {
                        out.push_back({global, r->a, what, {}});
                      }
                    }
                  });

  std::erase_if(out, [&](const GlobalStore& g) {
    if (g.what != StoredValue::Receiver) {
      return !std::binary_search(globals.begin(), globals.end(), g.global);
    }
    const auto near = std::lower_bound(globals.begin(), globals.end(), g.global);
    return near == globals.end() || *near - g.global >= kReceiverReach;
  });
  std::sort(out.begin(), out.end(), [](const GlobalStore& a, const GlobalStore& b) {
    return std::tie(a.global, a.type, a.what, a.type_name) <
           std::tie(b.global, b.type, b.what, b.type_name);
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace goheap::bin
