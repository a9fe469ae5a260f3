// Writes the seeds of core_model_fuzz: small amd64 cores of a Go program
// whose executable is given, each holding a miniature runtime at the
// addresses and with the struct layouts that executable's DWARF gives, so
// that mutations reach every reader of core::readCoreModel rather than stop
// at the first missing global. Real cores are megabytes and their addresses
// depend on the toolchain's build, so the seeds are made at fuzz time
// (fuzz/run.sh) from the executable the fuzzer uses.
//
// What a seed holds:
//  - runtime.mheap_ with allspans pointing at three in-use mspans: a small
//    span of 32-byte objects (allocBits, freeindex, heap bits at its end and
//    a finalizer special), a large object's span (largeType) and a span of
//    1 KiB objects with malloc headers; mheap_.arenas leading to a
//    heapArena whose spans[] points back at them; the spans' pages;
//  - a type descriptor with a GC mask for the large object and the headers;
//  - runtime.allgs with a waiting goroutine and a running one (its thread's
//    registers in NT_PRSTATUS, its m's procid the thread's id), each stack
//    holding a frame of main.main at a pc with a stack map and a return
//    into runtime.goexit;
//  - runtime.firstmoduledata (the executable's own, as linked) with small
//    data and bss ranges and their gcdatamask/gcbssmask bitvectors;
//  - runtime.itabTable with one itab.
// Seeds differ in the goroutines' states and in what the core leaves out.
//
// Usage: make_core_model_corpus EXE DIR
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/goroutines.h"
#include "core/runtime_layout.h"
#include "corpus_file.h"
#include "support/core_builder.h"

namespace {

using goheap::bin::DebugInfo;
using goheap::core::FieldSlot;
using goheap::testsupport::CoreBuilder;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "make_core_model_corpus: %s\n", why.c_str());
  std::exit(1);
}

// The process's memory as the seed will hold it: only the chunks written
// (or reserved) become PT_LOAD segments, so a heapArena of 64 KiB or an
// arena index of 32 MiB costs the few words the readers look at.
class SparseMemory {
 public:
  static constexpr uint64_t kChunk = 256;

  void reserve(uint64_t addr, uint64_t n) {
    for (uint64_t c = addr / kChunk; c <= (addr + n - 1) / kChunk; c++) chunk(c);
  }
  void put(uint64_t addr, uint64_t v, uint32_t width) {
    for (uint32_t i = 0; i < width; i++) {
      chunk((addr + i) / kChunk)[(addr + i) % kChunk] = static_cast<uint8_t>(v >> (8 * i));
    }
  }
  void word(uint64_t addr, uint64_t v) { put(addr, v, 8); }
  void field(uint64_t base, FieldSlot f, uint64_t v) { put(base + f.offset, v, f.size); }
  void bytes(uint64_t addr, std::span<const uint8_t> b) {
    for (size_t i = 0; i < b.size(); i++) put(addr + i, b[i], 1);
  }

  // Adjacent chunks as one segment each.
  void addSegments(CoreBuilder& b) const {
    std::vector<uint8_t> run;
    uint64_t run_start = 0, next = 0;
    for (const auto& [c, bytes] : chunks_) {
      if (!run.empty() && c != next) {
        b.segment(run_start * kChunk, run);
        run.clear();
      }
      if (run.empty()) run_start = c;
      run.insert(run.end(), bytes.begin(), bytes.end());
      next = c + 1;
    }
    if (!run.empty()) b.segment(run_start * kChunk, run);
  }

 private:
  std::vector<uint8_t>& chunk(uint64_t c) {
    auto [it, fresh] = chunks_.try_emplace(c);
    if (fresh) it->second.assign(kChunk, 0);
    return it->second;
  }
  std::map<uint64_t, std::vector<uint8_t>> chunks_;
};

// Lookups in the executable's DWARF that the seed cannot do without.
class Runtime {
 public:
  explicit Runtime(const DebugInfo& dwarf) : dwarf_(dwarf) {}
  uint64_t offset(std::string_view type, std::string_view path) const {
    auto off = goheap::core::runtimeFieldOffset(dwarf_, type, path);
    if (!off) die(off.error().message());
    return *off;
  }
  std::optional<uint64_t> global(std::string_view name) const {
    const goheap::bin::GlobalVariable* g = goheap::core::runtimeGlobal(dwarf_, name);
    if (g == nullptr) return std::nullopt;
    return g->address;
  }
  uint64_t mustGlobal(std::string_view name) const {
    auto g = global(name);
    if (!g) die("no global " + std::string(name));
    return *g;
  }
  uint64_t size(std::string_view type) const {
    const goheap::bin::TypeId t = dwarf_.typeByName(type);
    if (t == goheap::bin::kNoType) die("no type " + std::string(type));
    return dwarf_.type(t).size;
  }

 private:
  const DebugInfo& dwarf_;
};

struct Variant {
  const char* name;
  bool running;     // the second goroutine runs on the core's thread, else it is in a syscall
  bool with_masks;  // heap bits, arenas and the type descriptor, else left out
};

// Where things go. The heap lies in the first amd64 arena, the runtime's
// off-heap structures in a scratch range no Go executable maps.
constexpr uint64_t kHeap = 0xc000000000;
constexpr uint64_t kPage = 8192;
constexpr uint64_t kScratch = 0x7f0000000000;
constexpr uint64_t kArenaIndex = 0x7e0000000000;
constexpr uint64_t kStacks = 0xc000100000;
constexpr uint64_t kStackSize = 0x800;
constexpr uint32_t kTid = 4242;

std::vector<uint8_t> buildSeed(const goheap::bin::Binary& exe, const DebugInfo& dwarf,
                               const Variant& v) {
  const Runtime rt(dwarf);
  auto layout = goheap::core::readRuntimeLayout(dwarf, 8);
  if (!layout) die(layout.error().message());
  auto bits = goheap::core::readHeapBitsLayout(dwarf, 8, exe.container().arch);
  if (!bits) die(bits.error().message());
  const goheap::core::RuntimeLayout& l = *layout;
  const goheap::core::HeapBitsLayout& hb = *bits;
  SparseMemory m;

  // Three spans: A of 32-byte objects, B one large object, C of 1 KiB
  // objects with headers.
  const uint64_t span_stride = (l.mspan_size + 63) / 64 * 64;
  const uint64_t span_a = kScratch, span_b = span_a + span_stride, span_c = span_b + span_stride;
  const uint64_t allspans = kScratch + 0x1000, alloc_a = allspans + 0x100, alloc_c = alloc_a + 0x40,
                 type_t = kScratch + 0x1200, mask_t = kScratch + 0x1300,
                 special = kScratch + 0x1400, funcval = kScratch + 0x1480;
  const uint64_t page_a = kHeap, page_b = kHeap + kPage, page_c = kHeap + 2 * kPage;
  const uint64_t heap_bits_bytes = kPage / 8 / 8;  // a bit per word, at the span's end
  const uint64_t nelems_a = (kPage - heap_bits_bytes) / 32;
  m.reserve(page_a, 3 * kPage);

  const uint64_t mheap = l.mheap_addr;
  m.word(mheap + l.mheap_allspans, allspans);
  m.word(mheap + l.mheap_allspans + 8, 3);
  m.word(mheap + l.mheap_allspans + 16, 3);
  m.word(allspans, span_a);
  m.word(allspans + 8, span_b);
  m.word(allspans + 16, span_c);
  struct SpanSpec {
    uint64_t at, start, elemsize, nelems, freeindex, alloc_bits, spanclass, large_type;
  };
  for (const SpanSpec& s : {
           SpanSpec{span_a, page_a, 32, nelems_a, 2, alloc_a, 4 << 1, 0},
           SpanSpec{span_b, page_b, kPage, 1, 1, 0, 0, type_t},
           SpanSpec{span_c, page_c, 1024, 8, 1, alloc_c, 44 << 1, 0},
       }) {
    m.reserve(s.at, l.mspan_size);
    m.field(s.at, l.span_start_addr, s.start);
    m.field(s.at, l.span_npages, 1);
    m.field(s.at, l.span_elemsize, s.elemsize);
    m.field(s.at, l.span_nelems, s.nelems);
    m.field(s.at, l.span_freeindex, s.freeindex);
    m.field(s.at, l.span_alloc_bits, s.alloc_bits);
    m.field(s.at, l.span_state, l.span_in_use);
    m.field(s.at, hb.span_spanclass, s.spanclass);
    m.field(s.at, hb.span_large_type, s.large_type);
  }
  m.put(alloc_a, 0xb5, 1);  // slots 0, 2, 4, 5, 7 survived (0 and 1 are below freeindex)
  m.put(alloc_c, 0x05, 1);  // slots 0 and 2

  // Objects of A: a pointer in words 0 and 2 of each, to the next and to B.
  for (uint64_t i = 0; i < 8; i++) {
    m.word(page_a + i * 32, page_a + (i + 1) * 32);
    m.word(page_a + i * 32 + 16, page_b);
  }
  // B: pointers to A's objects in the first two words of each 24-byte element.
  for (uint64_t e = 0; e < 4; e++) {
    m.word(page_b + e * 24, page_a + e * 32);
    m.word(page_b + e * 24 + 8, page_c);
  }
  // C's slots: a malloc header (the type) then the elements.
  for (uint64_t slot : {0, 2}) {
    m.word(page_c + slot * 1024, type_t);
    m.word(page_c + slot * 1024 + 8, page_a);
  }
  if (v.with_masks) {
    // Heap bits of A: words 0 and 2 of each slot.
    // (bits 4i and 4i+2 for slot i: 0x55 a byte over slots 0 to 7).
    for (uint64_t j = 0; j < 4; j++) m.put(page_a + kPage - heap_bits_bytes + j, 0x55, 1);
    // The type: 24 bytes, the first 16 pointers.
    m.reserve(type_t, hb.type_struct_size);
    m.field(type_t, hb.type_size, 24);
    m.field(type_t, hb.type_ptr_bytes, 16);
    m.field(type_t, hb.type_kind, 25);  // abi.Struct
    m.field(type_t, hb.type_gcdata, mask_t);
    m.put(mask_t, 0x03, 1);
    // The arena index: mheap_.arenas[l1] -> [l2]*heapArena -> spans[page].
    const uint64_t ri = (kHeap - hb.arena_base_offset) / hb.arena_bytes;
    const uint64_t heap_arena = kScratch + 0x2000;
    m.word(mheap + hb.mheap_arenas + ri / hb.arena_l2 * 8, kArenaIndex);
    m.word(kArenaIndex + ri % hb.arena_l2 * 8, heap_arena);
    const uint64_t first_page = kHeap / kPage % (hb.arena_bytes / kPage);
    m.word(heap_arena + hb.arena_spans + first_page * 8, span_a);
    m.word(heap_arena + hb.arena_spans + (first_page + 1) * 8, span_b);
    m.word(heap_arena + hb.arena_spans + (first_page + 2) * 8, span_c);
  }

  // A finalizer on A's slot 1, its function main.main.
  const goheap::bin::Pclntab& pcln = exe.pclntab();
  const goheap::bin::Func* main_fn = nullptr;
  const goheap::bin::Func* goexit = nullptr;
  for (const goheap::bin::Func& f : pcln.funcs()) {
    if (f.name == "main.main") main_fn = &f;
    if (f.name == "runtime.goexit") goexit = &f;
  }
  if (main_fn == nullptr || goexit == nullptr) die("no main.main or runtime.goexit");
  m.word(span_a + rt.offset("runtime.mspan", "specials"), special);
  m.word(special + rt.offset("runtime.special", "next"), 0);
  m.put(special + rt.offset("runtime.special", "offset"), 32, 2);
  m.put(special + rt.offset("runtime.special", "kind"), 1, 1);  // Go 1.24's finalizer
  m.word(special + rt.offset("runtime.specialfinalizer", "fn"), funcval);
  m.word(funcval, main_fn->entry);

  // A pc of main.main inside its frame with a stack map (PCDATA 1).
  uint64_t pc = 0;
  int64_t frame = 0;
  for (uint64_t p = main_fn->entry; p < main_fn->end && pc == 0; p++) {
    auto d = pcln.spDelta(p);
    auto idx = pcln.pcdata(*main_fn, 1, p);  // _PCDATA_StackMapIndex
    if (d && idx && *d > 0 && *idx >= 0) pc = p, frame = *d;
  }
  if (pc == 0 || static_cast<uint64_t>(frame) + 64 > kStackSize) die("no pc in main.main");

  // Goroutines: g1 waiting, g2 running on the thread (or in a syscall).
  const uint64_t g_size = rt.size("runtime.g");
  const uint64_t allgs_array = kScratch + 0x3000, g1 = kScratch + 0x3100,
                 g2 = g1 + (g_size + 63) / 64 * 64, mstruct = kScratch + 0x4000;
  m.word(rt.mustGlobal("runtime.allgs"), allgs_array);
  m.word(rt.mustGlobal("runtime.allgs") + 8, 2);
  m.word(rt.mustGlobal("runtime.allgs") + 16, 2);
  if (auto n = rt.global("runtime.allglen")) m.word(*n, 2);
  m.word(allgs_array, g1);
  m.word(allgs_array + 8, g2);
  std::vector<uint64_t> regs(27);
  for (uint64_t k = 0; k < 2; k++) {
    const uint64_t g = k == 0 ? g1 : g2;
    const uint64_t lo = kStacks + k * kStackSize, hi = lo + kStackSize;
    const uint64_t sp = hi - static_cast<uint64_t>(frame) - 16;
    m.reserve(g, g_size);
    m.reserve(lo, kStackSize);
    m.put(g + rt.offset("runtime.g", "atomicstatus"), k == 0 || !v.running ? 4 : 2, 4);
    m.put(g + rt.offset("runtime.g", "waitreason"), 2, 1);
    m.word(g + rt.offset("runtime.g", "goid"), k + 1);
    m.word(g + rt.offset("runtime.g", "startpc"), main_fn->entry);
    m.word(g + rt.offset("runtime.g", "gopc"), goexit->entry);
    m.word(g + rt.offset("runtime.g", "stack.lo"), lo);
    m.word(g + rt.offset("runtime.g", "stack.hi"), hi);
    m.word(g + rt.offset("runtime.g", "sched.pc"), pc);
    m.word(g + rt.offset("runtime.g", "sched.sp"), sp);
    // The frame's words point into the heap; its return address is goexit's.
    for (uint64_t w = 0; w < static_cast<uint64_t>(frame); w += 8) m.word(sp + w, page_a + w);
    m.word(sp + static_cast<uint64_t>(frame), goexit->entry + 1);
    if (k == 1 && v.running) {
      m.word(g + rt.offset("runtime.g", "m"), mstruct);
      m.word(mstruct + rt.offset("runtime.m", "procid"), kTid);
      regs[16] = pc;  // rip
      regs[19] = sp;  // rsp
    } else if (k == 1) {
      m.word(g + rt.offset("runtime.g", "syscallsp"), sp);
      m.word(g + rt.offset("runtime.g", "syscallpc"), pc);
    }
  }

  // The first module, as linked, with small data and bss ranges of our own.
  const uint64_t md = rt.mustGlobal("runtime.firstmoduledata");
  const uint64_t md_size = rt.size("runtime.moduledata");
  auto linked = exe.container().readAt(md, md_size);
  if (!linked) die("runtime.firstmoduledata is not in the executable's file");
  m.bytes(md, linked->bytes());
  const uint64_t data = kScratch + 0x5000, bss = data + 0x100, masks = data + 0x200;
  m.word(md + rt.offset("runtime.moduledata", "data"), data);
  m.word(md + rt.offset("runtime.moduledata", "edata"), data + 0x100);
  m.word(md + rt.offset("runtime.moduledata", "bss"), bss);
  m.word(md + rt.offset("runtime.moduledata", "ebss"), bss + 0x100);
  m.word(md + rt.offset("runtime.moduledata", "next"), 0);
  for (const char* name : {"gcdatamask", "gcbssmask"}) {
    const uint64_t bv = md + rt.offset("runtime.moduledata", name);
    const uint64_t at = masks + (name[2] == 'd' ? 0 : 8);
    m.put(bv + rt.offset("runtime.bitvector", "n"), 32, 4);
    m.word(bv + rt.offset("runtime.bitvector", "bytedata"), at);
    m.put(at, 0x11, 1);
    m.put(at + 1, 0x82, 1);
  }
  for (uint64_t w = 0; w < 0x200; w += 8) m.word(data + w, page_a + w % 0x100);

  // The itab table: four slots, one itab whose type is the type above.
  if (auto table = rt.global("runtime.itabTable")) {
    const uint64_t t = kScratch + 0x6000, itab = t + 0x100;
    m.word(*table, t);
    m.word(t + rt.offset("runtime.itabTableType", "size"), 4);
    m.word(t + rt.offset("runtime.itabTableType", "entries"), itab);
    m.word(itab + rt.offset("internal/abi.ITab", "Type"), type_t);
  }

  CoreBuilder b(true, false, 62);
  m.addSegments(b);
  b.thread(kTid, 6, regs)
      .process("coreprog", "coreprog")
      .aux(6, 4096)
      .aux(9, exe.container().entry);
  return b.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s EXE DIR\n", argv[0]);
    return 2;
  }
  auto exe = goheap::bin::Binary::open(argv[1]);
  if (!exe) die(exe.error().message());
  auto dwarf = DebugInfo::read(exe->container());
  if (!dwarf) die(dwarf.error().message());
  for (const Variant& v : {Variant{"running", true, true}, Variant{"syscall", false, true},
                           Variant{"no_masks", true, false}}) {
    if (!goheap::fuzz::writeCorpusFile(std::string(argv[2]) + "/" + v.name,
                                       buildSeed(*exe, *dwarf, v))) {
      die(std::string("cannot write ") + argv[2] + "/" + v.name);
    }
  }
  return 0;
}
