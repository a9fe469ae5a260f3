#include "core/stack_scan.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "util/format.h"

namespace goheap::core {

namespace {

// internal/abi's PCDATA and FUNCDATA numbers (the same since Go 1.12).
constexpr uint32_t kPcdataStackMapIndex = 1;
constexpr uint32_t kFuncdataArgsPointerMaps = 0;
constexpr uint32_t kFuncdataLocalsPointerMaps = 1;
constexpr uint32_t kFuncdataStackObjects = 2;
// _func.args of the runtime's variadic assembly (abi.ArgsSizeUnknown).
constexpr int32_t kArgsSizeUnknown = INT32_MIN;
// Beyond these a list or table is garbage: no frame has more map bits, no
// function more stack objects, no goroutine more defers or panics.
constexpr int64_t kMaxMapBits = 1 << 24;
constexpr uint64_t kMaxStackObjects = 1 << 16;
constexpr uint32_t kMaxRecords = 100'000;
// stackObjectRecord: off, size, ptrBytes (ptrdata) int32, gcdataoff uint32.
constexpr uint64_t kStackObjectRecordSize = 16;

// Where the fields the scan reads are, from DWARF.
struct ScanLayout {
  uint64_t g_defer = 0, g_panic = 0;
  uint64_t defer_sp = 0, defer_pc = 0, defer_fn = 0, defer_link = 0;
  uint64_t panic_arg = 0, panic_link = 0;
  uint64_t module_rodata = 0, module_gofunc = 0;

  static Expected<ScanLayout> fromDwarf(const bin::DebugInfo& dwarf) {
    ScanLayout l;
    struct Want {
      uint64_t* into;
      std::string_view type, path;
    };
    for (const Want& w : std::initializer_list<Want>{
             {&l.g_defer, "runtime.g", "_defer"},
             {&l.g_panic, "runtime.g", "_panic"},
             {&l.defer_sp, "runtime._defer", "sp"},
             {&l.defer_pc, "runtime._defer", "pc"},
             {&l.defer_fn, "runtime._defer", "fn"},
             {&l.defer_link, "runtime._defer", "link"},
             {&l.panic_arg, "runtime._panic", "arg"},
             {&l.panic_link, "runtime._panic", "link"},
             {&l.module_rodata, "runtime.moduledata", "rodata"},
             {&l.module_gofunc, "runtime.moduledata", "gofunc"},
         }) {
      GOHEAP_TRY(*w.into, runtimeFieldOffset(dwarf, w.type, w.path));
    }
    return l;
  }
};

// A bit vector of a stack map; n < 0 when there is none (the dumper's
// "conservative" marker).
struct BitVector {
  int64_t n = -1;
  std::span<const uint8_t> bytes;
  bool bit(int64_t i) const { return (bytes[static_cast<size_t>(i / 8)] >> (i % 8) & 1) != 0; }
};

// A runtime.stackmap: int32 n (maps), int32 nbit (bits per map), then the
// maps' bytes. n < 0 in a locals map means "-n bytes of locals, no bits".
struct StackMap {
  int32_t n = 0, nbit = 0;
  uint64_t data = 0;
};

// Reads funcdata, stack maps and GC masks through the memory image (they
// are read-only data, which the image takes from the executable).
class MapReader {
 public:
  MapReader(const MemoryImage& mem, const bin::Pclntab& tab, uint64_t gofunc, uint64_t bias)
      : mem_(mem), tab_(tab), gofunc_(gofunc), bias_(bias) {}

  // The run-time address of funcdata slot `index` of `f`, if any.
  std::optional<uint64_t> funcdata(const bin::Func& f, uint32_t index) const {
    auto raw = tab_.funcdata(f, index);
    if (!raw) return std::nullopt;
    const bool from_gofunc =
        tab_.layout() == bin::PclntabLayout::Go118 || tab_.layout() == bin::PclntabLayout::Go120;
    return from_gofunc ? gofunc_ + *raw : *raw + bias_;
  }

  Expected<StackMap> stackMap(uint64_t addr) const {
    auto n = mem_.readUint(addr, 4);
    auto nbit = mem_.readUint(addr + 4, 4);
    if (!n || !nbit) return Error("stack map at " + formatHex(addr) + " is unreadable");
    StackMap m{static_cast<int32_t>(*n), static_cast<int32_t>(*nbit), addr + 8};
    if (m.nbit < 0 || m.nbit > kMaxMapBits) {
      return Error("stack map at " + formatHex(addr) + " has " + std::to_string(m.nbit) + " bits");
    }
    return m;
  }

  // runtime.stackmapdata: map `index` of `m`.
  Expected<BitVector> mapData(const StackMap& m, int64_t index) const {
    if (index < 0 || index >= m.n) {
      return Error("stack map index " + std::to_string(index) + " of " + std::to_string(m.n) +
                   " at " + formatHex(m.data - 8));
    }
    const uint64_t row = (static_cast<uint64_t>(m.nbit) + 7) / 8;
    GOHEAP_TRY(auto bytes, mem_.read(m.data + static_cast<uint64_t>(index) * row, row));
    return BitVector{m.nbit, bytes};
  }

 private:
  const MemoryImage& mem_;
  const bin::Pclntab& tab_;
  uint64_t gofunc_, bias_;
};

// What a frame leaves its caller to list: the outgoing arguments it was
// called with (heapdump.go's childInfo).
struct ChildArgs {
  BitVector args;       // n < 0: no map, all arglen bytes are listed
  uint64_t argoff = 0;  // from the caller's sp
  uint64_t arglen = 0;  // bytes
  std::string_view fn;  // for warnings
};

// Scans the physical frames of one goroutine.
class GoroutineScanner {
 public:
  GoroutineScanner(const MemoryImage& mem, const bin::Binary& exe, const MapReader& maps,
                   uint64_t rodata, uint64_t bias, bool uses_lr, StackScan& out, Sink& told)
      : mem_(mem),
        tab_(exe.pclntab()),
        maps_(maps),
        rodata_(rodata),
        bias_(bias),
        uses_lr_(uses_lr),
        ptr_(mem.words().ptrSize()),
        out_(out),
        told_(told) {}

  void scanFrames(const Goroutines& gs, uint32_t gi) {
    const Goroutine& g = gs.goroutines[gi];
    stack_hi_ = g.stack_hi;
    const std::span<const StackFrame> frames = gs.framesOf(g);
    ChildArgs child;
    std::string_view callee;
    uint32_t depth = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      // The physical frame is the last source frame with this (pc, sp).
      if (i + 1 < frames.size() && frames[i + 1].pc == frames[i].pc &&
          frames[i + 1].sp == frames[i].sp) {
        continue;
      }
      const StackFrame& sf = frames[i];
      const bin::Func* f = sf.where.func;
      if (f == nullptr) f = tab_.funcAt(sf.pc - bias_);
      if (f == nullptr) {
        told_.warning("goroutine " + std::to_string(g.goid) + ": no function at pc " +
                      formatHex(sf.pc));
        break;
      }
      // The frame after this one, for the caller's sp when pcsp fails.
      const uint64_t next_sp = i + 1 < frames.size() ? frames[i + 1].sp : 0;
      if (!scanFrame(gi, depth++, *f, sf.pc, sf.sp, next_sp, callee, child)) break;
      callee = f->name;
    }
  }

  void readDefersAndPanics(const Goroutine& g, uint32_t gi, const ScanLayout& l) {
    uint64_t d = 0;
    if (auto w = mem_.readWord(g.address + l.g_defer)) d = *w;
    for (uint32_t n = 0; d != 0 && n < kMaxRecords; ++n) {
      auto sp = mem_.readWord(d + l.defer_sp), pc = mem_.readWord(d + l.defer_pc);
      auto fn = mem_.readWord(d + l.defer_fn), link = mem_.readWord(d + l.defer_link);
      if (!sp || !pc || !fn || !link) {
        told_.warning("goroutine " + std::to_string(g.goid) + ": the _defer at " + formatHex(d) +
                      " is unreadable");
        d = 0;
        break;
      }
      StackDefer rec{gi, d, *sp, *pc, *fn, 0, *link};
      if (*fn != 0) {
        if (auto code = mem_.readWord(*fn)) rec.fn_pc = *code;
      }
      out_.defers.push_back(rec);
      d = *link;
    }
    if (d != 0) {
      told_.warning("goroutine " + std::to_string(g.goid) + ": its _defer list at " +
                    formatHex(g.address + l.g_defer) + " runs past " + std::to_string(kMaxRecords) +
                    " records (a loop?)");
    }
    uint64_t p = 0;
    if (auto w = mem_.readWord(g.address + l.g_panic)) p = *w;
    for (uint32_t n = 0; p != 0 && n < kMaxRecords; ++n) {
      auto type = mem_.readWord(p + l.panic_arg), data = mem_.readWord(p + l.panic_arg + ptr_);
      auto link = mem_.readWord(p + l.panic_link);
      if (!type || !data || !link) {
        told_.warning("goroutine " + std::to_string(g.goid) + ": the _panic at " + formatHex(p) +
                      " is unreadable");
        p = 0;
        break;
      }
      out_.panics.push_back({gi, p, *type, *data, *link});
      p = *link;
    }
    if (p != 0) {
      told_.warning("goroutine " + std::to_string(g.goid) + ": its _panic list at " +
                    formatHex(g.address + l.g_panic) + " runs past " + std::to_string(kMaxRecords) +
                    " records (a loop?)");
    }
  }

  // Marks the stack objects of goroutine `g` (frames from `first_frame`,
  // defers from `first_defer`) that the collector would scan: those a live
  // word, a defer's fn or link, or the panic list points into, and those
  // they point into in turn (mgcmark.go scanstack's loop).
  void markReachableObjects(const Goroutine& g, uint32_t first_frame, uint32_t first_defer,
                            uint32_t first_panic) {
    const uint32_t first_object = first_frame < out_.frames.size()
                                      ? out_.frames[first_frame].first_object
                                      : static_cast<uint32_t>(out_.objects.size());
    std::span<StackObject> objs = std::span<StackObject>(out_.objects).subspan(first_object);
    if (objs.empty()) return;
    std::vector<uint32_t> order(objs.size());
    for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return objs[a].addr < objs[b].addr; });

    std::vector<uint64_t> work;
    const auto pushWord = [&](uint64_t at) {
      if (auto v = mem_.readWord(at); v && *v >= g.stack_lo && *v < g.stack_hi) work.push_back(*v);
    };
    for (size_t fi = first_frame; fi < out_.frames.size(); ++fi) {
      const StackScanFrame& f = out_.frames[fi];
      for (uint64_t off : out_.offsetsOf(f)) pushWord(f.sp + off);
    }
    for (size_t di = first_defer; di < out_.defers.size(); ++di) {
      work.push_back(out_.defers[di].fn_val);
      work.push_back(out_.defers[di].link);
    }
    if (first_panic < out_.panics.size()) work.push_back(out_.panics[first_panic].addr);

    while (!work.empty()) {
      const uint64_t p = work.back();
      work.pop_back();
      if (p < g.stack_lo || p >= g.stack_hi) continue;
      auto it = std::upper_bound(order.begin(), order.end(), p,
                                 [&](uint64_t v, uint32_t k) { return v < objs[k].addr; });
      if (it == order.begin()) continue;
      StackObject& o = objs[*(it - 1)];
      if (p >= o.addr + o.size || o.scanned) continue;
      o.scanned = true;
      for (uint32_t off : out_.offsetsOf(o)) pushWord(o.addr + off);
    }
  }

 private:
  // Lists one frame's pointer words as heapdump.go's dumpframe does and
  // hands its outgoing arguments to `child` for the caller; false when the
  // stack cannot be followed further.
  bool scanFrame(uint32_t gi, uint32_t depth, const bin::Func& f, uint64_t pc, uint64_t sp,
                 uint64_t next_sp, std::string_view callee, ChildArgs& child) {
    const uint64_t link_pc = pc - bias_;
    auto delta = tab_.spDelta(link_pc);
    if (!delta && link_pc > f.entry) delta = tab_.spDelta(link_pc - 1);
    uint64_t fp = 0;
    if (delta && *delta >= 0) {
      fp = sp + static_cast<uint64_t>(*delta) + (uses_lr_ ? 0 : ptr_);
    } else if (next_sp > sp) {
      fp = next_sp;
    } else {
      told_.warning("no frame size for " + std::string(f.name) + " at pc " + formatHex(pc));
      return false;
    }
    // stkframe's varp (below the return address and the saved frame
    // pointer) and argp (above the caller's saved LR).
    uint64_t varp = fp - (uses_lr_ ? 0 : ptr_);
    if (varp > sp) varp -= ptr_;
    const uint64_t argp = fp + (uses_lr_ ? ptr_ : 0);

    StackScanFrame fr;
    fr.goroutine = gi;
    fr.depth = depth;
    fr.sp = sp;
    fr.fp = fp;
    fr.entry = f.entry + bias_;
    fr.pc = pc;
    fr.continpc = pc;
    if (callee == "runtime.sigpanic") {
      const uint32_t dr = tab_.deferreturnField(f).value_or(0);
      fr.continpc = dr != 0 ? fr.entry + dr + 1 : 0;
    }
    fr.function = f.name;
    fr.first_offset = static_cast<uint32_t>(out_.offsets.size());
    fr.first_object = static_cast<uint32_t>(out_.objects.size());

    // The stack map index at the call (pc - 1), or the entry map.
    int64_t index = -1;
    if (link_pc != f.entry) {
      auto v = tab_.pcdata(f, kPcdataStackMapIndex, link_pc - 1);
      if (v) index = *v;
    }
    if (index == -1) index = 0;

    // The callee's outgoing arguments, then the locals.
    if (child.args.n >= 0) {
      for (int64_t i = 0; i < child.args.n; ++i) {
        if (child.args.bit(i))
          out_.offsets.push_back(child.argoff + static_cast<uint64_t>(i) * ptr_);
      }
    } else {
      for (uint64_t off = child.argoff; off < child.argoff + child.arglen; off += ptr_) {
        out_.offsets.push_back(off);
      }
    }
    std::optional<StackMap> locals;
    if (auto at = maps_.funcdata(f, kFuncdataLocalsPointerMaps)) {
      auto m = maps_.stackMap(*at);
      if (m) {
        locals = *m;
      } else {
        warn(f, pc, m.error().message());
      }
    }
    const uint64_t locals_end = varp - sp;
    if (!locals) {
      // Without a locals map every word of the frame is listed: only when
      // the core holds the frame, so that a damaged sp or frame size cannot
      // list more words than there is memory (a fuzzed core asked for 2 GiB).
      if (mem_.contains(sp, locals_end)) {
        for (uint64_t off = child.arglen; off < locals_end; off += ptr_) {
          out_.offsets.push_back(off);
        }
      } else {
        warn(f, pc,
             "its frame of " + std::to_string(locals_end) + " bytes at sp " + formatHex(sp) +
                 " is not in the core; its words are not scanned");
      }
    } else if (locals->n < 0) {
      const uint64_t size = static_cast<uint64_t>(-static_cast<int64_t>(locals->n));
      for (uint64_t off = locals_end - std::min(size, locals_end); off < locals_end; off += ptr_) {
        out_.offsets.push_back(off);
      }
    } else if (locals->n > 0) {
      auto bv = maps_.mapData(*locals, index);
      if (bv) {
        const uint64_t base = varp - static_cast<uint64_t>(bv->n) * ptr_ - sp;
        for (int64_t i = 0; i < bv->n; ++i) {
          if (bv->bit(i)) out_.offsets.push_back(base + static_cast<uint64_t>(i) * ptr_);
        }
      } else {
        warn(f, pc, bv.error().message());
      }
    }
    std::sort(out_.offsets.begin() + fr.first_offset, out_.offsets.end());
    out_.offsets.erase(std::unique(out_.offsets.begin() + fr.first_offset, out_.offsets.end()),
                       out_.offsets.end());
    fr.offset_count = static_cast<uint32_t>(out_.offsets.size()) - fr.first_offset;

    readStackObjects(f, pc, sp, varp, argp);
    fr.object_count = static_cast<uint32_t>(out_.objects.size()) - fr.first_object;
    for (uint32_t k = fr.first_object; k < out_.objects.size(); ++k) {
      out_.objects[k].frame = static_cast<uint32_t>(out_.frames.size());
    }
    out_.frames.push_back(fr);

    // What this frame's caller lists: this function's arguments.
    child.argoff = argp - fp;
    child.args = BitVector{};
    std::optional<StackMap> args_map;
    if (auto at = maps_.funcdata(f, kFuncdataArgsPointerMaps)) {
      auto m = maps_.stackMap(*at);
      if (m) {
        args_map = *m;
        auto bv = maps_.mapData(*m, index);
        if (bv) {
          child.args = *bv;
        } else {
          warn(f, pc, "arguments: " + bv.error().message());
          child.args.n = 0;
        }
      } else {
        warn(f, pc, m.error().message());
      }
    }
    const int32_t args = tab_.argsField(f).value_or(0);
    if (args == kArgsSizeUnknown) {
      // Variadic assembly: as many bytes as its argument map has words.
      child.arglen = args_map ? static_cast<uint64_t>(args_map->nbit) * ptr_ : 0;
    } else {
      child.arglen = args > 0 ? static_cast<uint64_t>(args) : 0;
    }
    return true;
  }

  // The frame's FUNCDATA_StackObjects: a word count, then the records; an
  // object below sp is not allocated yet (scanframeworker skips it).
  void readStackObjects(const bin::Func& f, uint64_t pc, uint64_t sp, uint64_t varp,
                        uint64_t argp) {
    auto at = maps_.funcdata(f, kFuncdataStackObjects);
    if (!at) return;
    auto count = mem_.readWord(*at);
    if (!count || *count > kMaxStackObjects) {
      warn(f, pc, "stack objects at " + formatHex(*at) + " are unreadable");
      return;
    }
    auto recs = mem_.read(*at + ptr_, *count * kStackObjectRecordSize);
    if (!recs) {
      warn(f, pc, "stack objects: " + recs.error().message());
      return;
    }
    const WordReader w32(4, mem_.words().bigEndian());
    for (uint64_t k = 0; k < *count; ++k) {
      const uint8_t* r = recs->data() + k * kStackObjectRecordSize;
      const auto off = static_cast<int32_t>(w32.read(r));
      const auto size = static_cast<int32_t>(w32.read(r + 4));
      const auto ptr_bytes = static_cast<int32_t>(w32.read(r + 8));
      const uint64_t gcdata = rodata_ + w32.read(r + 12);
      const uint64_t addr = (off < 0 ? varp : argp) + static_cast<uint64_t>(int64_t{off});
      if (addr < sp) continue;
      // Past the top of the goroutine's stack it is not one of its objects
      // (the runtime looks its stack objects up between stack.lo and
      // stack.hi): an outer frame unwound wrong, of a goroutine that ran on
      // after the process was stopped.
      if (addr + static_cast<uint64_t>(std::max(size, 0)) > stack_hi_) continue;
      StackObject o;
      o.addr = addr;
      o.size = size > 0 ? static_cast<uint32_t>(size) : 0;
      o.first_offset = static_cast<uint32_t>(out_.object_offsets.size());
      if (ptr_bytes < 0) {
        // Go 1.19: a GC program instead of a mask, for huge arrays only.
        warn(f, pc, "stack object at " + formatHex(addr) + " has a GC program");
      } else {
        o.ptr_bytes = static_cast<uint32_t>(ptr_bytes);
        const uint64_t words = o.ptr_bytes / ptr_;
        auto mask = mem_.read(gcdata, (words + 7) / 8);
        if (!mask) {
          warn(f, pc,
               "the GC mask of the stack object at " + formatHex(addr) + ": " +
                   mask.error().message());
        } else {
          for (uint64_t i = 0; i < words; ++i) {
            if (((*mask)[i / 8] >> (i % 8) & 1) != 0) {
              out_.object_offsets.push_back(static_cast<uint32_t>(i * ptr_));
            }
          }
        }
      }
      o.offset_count = static_cast<uint32_t>(out_.object_offsets.size()) - o.first_offset;
      out_.objects.push_back(o);
    }
  }

  void warn(const bin::Func& f, uint64_t pc, const std::string& why) {
    told_.warning(std::string(f.name) + " at pc " + formatHex(pc) + ": " + why);
  }

  const MemoryImage& mem_;
  const bin::Pclntab& tab_;
  const MapReader& maps_;
  uint64_t rodata_, bias_;
  bool uses_lr_;
  uint64_t stack_hi_ = 0;  // of the goroutine whose frames are scanned
  uint64_t ptr_;
  StackScan& out_;
  Sink& told_;
};

}  // namespace

Expected<StackScan> scanStacks(const Goroutines& gs, const MemoryImage& mem, const bin::Binary& exe,
                               const bin::DebugInfo& dwarf, uint64_t bias, Sink& told) {
  GOHEAP_TRY(auto layout, ScanLayout::fromDwarf(dwarf));
  const bin::GlobalVariable* first = runtimeGlobal(dwarf, "runtime.firstmoduledata");
  if (first == nullptr) return Error("DWARF: no global runtime.firstmoduledata");
  const uint64_t md = first->address + bias;
  auto rodata = mem.readWord(md + layout.module_rodata);
  auto gofunc = mem.readWord(md + layout.module_gofunc);
  if (!rodata || !gofunc) {
    return Error("runtime.firstmoduledata at " + formatHex(md) + " is unreadable");
  }
  StackScan out;
  const MapReader maps(mem, exe.pclntab(), *gofunc, bias);
  GoroutineScanner scanner(mem, exe, maps, *rodata, bias, exe.container().arch == "arm64", out,
                           told);
  for (uint32_t gi = 0; gi < gs.goroutines.size(); ++gi) {
    const auto first_frame = static_cast<uint32_t>(out.frames.size());
    const auto first_defer = static_cast<uint32_t>(out.defers.size());
    const auto first_panic = static_cast<uint32_t>(out.panics.size());
    scanner.scanFrames(gs, gi);
    scanner.readDefersAndPanics(gs.goroutines[gi], gi, layout);
    scanner.markReachableObjects(gs.goroutines[gi], first_frame, first_defer, first_panic);
  }
  return out;
}

}  // namespace goheap::core
