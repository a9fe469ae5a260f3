#include "core/runtime_table_source.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace goheap::core {
namespace {

using goruntime::RuntimeTableEntry;

// What the readers ask for, struct by struct: runtime_layout.cpp (mheap,
// mspan, heapArena, abi.Type, spanInlineMarkBits), goroutines.cpp (g, stack,
// gobuf, m), roots.cpp (moduledata, bitvector, special, specialfinalizer,
// specialCleanup, cleanupFn, specialprofile, bucket, memRecord,
// memRecordCycle; mspan.specials), memstats.cpp (mstats and the
// fixallocs of mheap), and for the readers to come _defer, _panic and itab. A name a release lacks
// is left out of its entry.
struct Wanted {
  std::string_view owner;
  std::initializer_list<std::string_view> fields;
};
const std::initializer_list<Wanted> kWanted = {
    {"runtime.mheap", {"allspans", "arenas", "spanalloc", "cachealloc", "pages"}},
    // The page allocator's summaries and chunk bitmaps (core/process_memory.h).
    {"runtime.pageAlloc", {"summary", "chunks"}},
    {"runtime.pallocData", {}},
    {"runtime.mspan",
     {"startAddr", "npages", "freeindex", "nelems", "allocBits", "elemsize", "state", "spanclass",
      "largeType", "specials"}},
    {"runtime.heapArena", {"spans", "bitmap", "noMorePtrs"}},
    {"internal/abi.Type", {"Size_", "PtrBytes", "TFlag", "Kind_", "GCData"}},
    {"runtime.spanInlineMarkBits", {}},
    {"runtime.g",
     {"goid", "atomicstatus", "waitreason", "waitsince", "gopc", "startpc", "stack", "sched",
      "syscallsp", "syscallpc", "m", "_defer", "_panic", "waiting"}},
    // What a blocked goroutine waits on (analysis/goroutine_leaks.h): the
    // sudogs of g.waiting, linked by waitlink, each with its goroutine (g),
    // its channel (c) or its sync primitive's address (elem).
    {"runtime.sudog", {"g", "elem", "c", "waitlink"}},
    {"runtime.stack", {"lo", "hi"}},
    {"runtime.gobuf", {"sp", "pc", "lr", "bp"}},
    {"runtime.m", {"procid"}},
    {"runtime.moduledata",
     {"data", "edata", "bss", "ebss", "gcdatamask", "gcbssmask", "next", "rodata", "gofunc"}},
    {"runtime.bitvector", {"n", "bytedata"}},
    {"runtime.special", {"next", "offset", "kind"}},
    {"runtime.specialfinalizer", {"fn", "ot"}},
    {"runtime.specialCleanup", {"fn", "cleanup"}},
    {"runtime.cleanupFn", {"fn"}},
    {"runtime.specialprofile", {"b"}},
    {"runtime.bucket", {"allnext", "size", "nstk"}},
    {"runtime.memRecord", {"active"}},
    {"runtime.memRecordCycle", {"allocs", "frees"}},
    {"runtime._defer", {"heap", "sp", "pc", "fn", "link"}},
    {"runtime._panic", {"arg", "link"}},
    // runtime.itab until Go 1.21; an alias of internal/abi.ITab since.
    {"runtime.itab", {"inter", "_type", "hash", "fun"}},
    {"internal/abi.ITab", {"Inter", "Type", "Hash", "Fun"}},
    {"runtime.itabTableType", {"size", "count", "entries"}},
    // memstats (core/memstats.cpp), found through mheap_'s fixallocs, whose
    // stat points into it (runtime_globals.h).
    {"runtime.fixalloc", {"inuse", "stat"}},
    {"runtime.mstats",
     {"numgc", "pause_total_ns", "last_gc_unix", "pause_ns", "heapStats", "stacks_sys", "mspan_sys",
      "mcache_sys", "buckhash_sys", "gcMiscSys", "other_sys"}},
    {"runtime.consistentHeapStats", {"stats"}},
    {"runtime.heapStatsDelta", {"inStacks", "inWorkBufs", "inPtrScalarBits"}},
    // gcController, found in the code (runtime_globals.h).
    {"runtime.gcControllerState",
     {"heapInUse", "heapFree", "heapReleased", "gcPercentHeapGoal", "sweepDistMinTrigger",
      "triggered", "memoryLimit"}},
};

bool isWantedStruct(std::string_view name) {
  return std::any_of(kWanted.begin(), kWanted.end(),
                     [&](const Wanted& w) { return w.owner == name; });
}

// The array `t` (through typedefs), or null.
const bin::Type* arrayOf(const bin::DebugInfo& dwarf, bin::TypeId t) {
  const bin::TypeId r = t == bin::kNoType ? t : dwarf.resolve(t);
  return r != bin::kNoType && dwarf.type(r).tag == bin::DwarfTag::Array ? &dwarf.type(r) : nullptr;
}

// The table's view of field `f`: width (a pointer DIE without a byte size
// is a word), array lengths, and the table struct it is.
RuntimeTableEntry::Field tableField(const bin::DebugInfo& dwarf, std::string_view owner,
                                    const bin::Field& f, uint32_t ptr_size) {
  RuntimeTableEntry::Field out{std::string(owner), std::string(f.name), f.offset, 0, 0, 0, ""};
  const bin::TypeId t = f.type == bin::kNoType ? f.type : dwarf.resolve(f.type);
  if (t == bin::kNoType) return out;
  const bin::Type& type = dwarf.type(t);
  out.size = type.size == 0 && type.tag == bin::DwarfTag::Pointer ? ptr_size : type.size;
  if (type.tag == bin::DwarfTag::Struct && isWantedStruct(type.name)) out.type = type.name;
  if (type.tag == bin::DwarfTag::Array) {
    out.count = type.count;
    const bin::TypeId p = type.elem == bin::kNoType ? type.elem : dwarf.resolve(type.elem);
    // An array of a table struct (consistentHeapStats.stats).
    if (p != bin::kNoType && dwarf.type(p).tag == bin::DwarfTag::Struct &&
        isWantedStruct(dwarf.type(p).name)) {
      out.type = dwarf.type(p).name;
    }
    if (p != bin::kNoType && dwarf.type(p).tag == bin::DwarfTag::Pointer) {
      if (const bin::Type* inner = arrayOf(dwarf, dwarf.type(p).elem))
        out.inner_count = inner->count;
    }
  }
  return out;
}

// runtime.waitReasonStrings' values, read from the executable's data.
Expected<std::vector<std::string>> waitReasons(const bin::DebugInfo& dwarf,
                                               const bin::Container& exe) {
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name != "runtime.waitReasonStrings") continue;
    const bin::Type* a = arrayOf(dwarf, g.type);
    if (a == nullptr) return Error("runtime.waitReasonStrings is not an array");
    const uint32_t w = exe.ptr_size;
    std::vector<std::string> out;
    for (uint64_t i = 0; i < a->count; ++i) {
      const uint64_t at = g.address + i * 2 * w;
      auto header = exe.readAt(at, 2 * w);
      if (!header)
        return Error("runtime.waitReasonStrings[" + std::to_string(i) + "] at " +
                     std::to_string(at) + " is not in the file");
      const uint64_t ptr = header->word(0, w), len = header->word(w, w);
      auto text = len == 0 ? std::optional<bin::ByteView>(bin::ByteView()) : exe.readAt(ptr, len);
      if (!text)
        return Error("runtime.waitReasonStrings[" + std::to_string(i) + "]'s bytes at " +
                     std::to_string(ptr) + " are not in the file");
      out.emplace_back(reinterpret_cast<const char*>(text->bytes().data()), text->size());
    }
    return out;
  }
  return Error("the executable's DWARF has no global runtime.waitReasonStrings");
}

}  // namespace

Expected<std::string> runtimeTableSource(const bin::DebugInfo& dwarf, const bin::Container& exe,
                                         std::string_view go_version, std::string_view goarch) {
  RuntimeTableEntry e{goruntime::releaseName(go_version), std::string(goarch), {}, {}, {}};
  for (const Wanted& w : kWanted) {
    const bin::TypeId id = dwarf.typeByName(w.owner);
    const bin::TypeId t = id == bin::kNoType ? id : dwarf.resolve(id);
    if (t == bin::kNoType || dwarf.type(t).tag != bin::DwarfTag::Struct) continue;
    const bin::Type& owner = dwarf.type(t);
    e.structs.emplace_back(std::string(w.owner), owner.size);
    for (std::string_view name : w.fields) {
      for (const bin::Field& f : dwarf.fields(owner)) {
        if (f.name == name) e.fields.push_back(tableField(dwarf, w.owner, f, exe.ptr_size));
      }
    }
  }
  if (e.structs.empty() || e.structs.front().first != "runtime.mheap") {
    return Error("the executable's DWARF has no struct runtime.mheap");
  }
  GOHEAP_TRY(e.wait_reasons, waitReasons(dwarf, exe));
  return goruntime::runtimeTableSource(e);
}

}  // namespace goheap::core
