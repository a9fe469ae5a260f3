#include "core/runtime_table.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "util/go_version.h"

namespace goheap::core {
namespace {

// The committed tables: kRuntimeTables.
#include "core/runtime_tables.inc"

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

// An entry with its own strings, what both sources are printed from.
struct Entry {
  std::string go_version, goarch;
  std::vector<std::pair<std::string, uint64_t>> structs;
  struct Field {
    std::string owner, name;
    uint64_t offset, size, count, inner_count;
    std::string type;
  };
  std::vector<Field> fields;
  std::vector<std::string> wait_reasons;
};

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string releaseOf(std::string_view go_version);

std::string print(const Entry& e) {
  const std::string id = runtimeTableName(e.go_version, e.goarch);
  std::string out = "// " + e.go_version + " " + e.goarch + "\n";
  out += "constexpr TableStruct " + id + "_structs[] = {\n";
  for (const auto& [name, size] : e.structs) {
    out += "    {" + quoted(name) + ", " + std::to_string(size) + "},\n";
  }
  out += "};\nconstexpr TableField " + id + "_fields[] = {\n";
  for (const Entry::Field& f : e.fields) {
    out += "    {" + quoted(f.owner) + ", " + quoted(f.name) + ", " + std::to_string(f.offset) +
           ", " + std::to_string(f.size) + ", " + std::to_string(f.count) + ", " +
           std::to_string(f.inner_count) + ", " + quoted(f.type) + "},\n";
  }
  out += "};\nconstexpr std::string_view " + id + "_wait_reasons[] = {\n";
  for (const std::string& r : e.wait_reasons) out += "    " + quoted(r) + ",\n";
  return out + "};\n";
}

std::string releaseOf(std::string_view go_version) {
  const GoVersion v = parseGoVersion(go_version);
  return v.minor ? "go1." + std::to_string(*v.minor) : std::string(go_version);
}

// The array `t` (through typedefs), or null.
const bin::Type* arrayOf(const bin::DebugInfo& dwarf, bin::TypeId t) {
  const bin::TypeId r = t == bin::kNoType ? t : dwarf.resolve(t);
  return r != bin::kNoType && dwarf.type(r).tag == bin::DwarfTag::Array ? &dwarf.type(r) : nullptr;
}

// The table's view of field `f`: width (a pointer DIE without a byte size
// is a word), array lengths, and the table struct it is.
Entry::Field tableField(const bin::DebugInfo& dwarf, std::string_view owner, const bin::Field& f,
                        uint32_t ptr_size) {
  Entry::Field out{std::string(owner), std::string(f.name), f.offset, 0, 0, 0, ""};
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

const TableStruct* RuntimeTable::structNamed(std::string_view name) const {
  for (const TableStruct& s : structs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const TableField* RuntimeTable::field(std::string_view owner, std::string_view name) const {
  for (const TableField& f : fields) {
    if (f.owner == owner && f.name == name) return &f;
  }
  return nullptr;
}

std::string runtimeTableName(std::string_view go_version, std::string_view goarch) {
  // Appended, not "k" + ...: GCC 12 at -O3 warns (-Wrestrict) on that form.
  std::string id = "k";
  id.append(releaseOf(go_version)).append("_").append(goarch);
  std::replace(id.begin(), id.end(), '.', '_');
  return id;
}

std::span<const RuntimeTable> runtimeTables() {
  return kRuntimeTables;
}

const RuntimeTable* runtimeTableFor(std::string_view go_version, std::string_view goarch) {
  const std::string release = releaseOf(go_version);
  for (const RuntimeTable& t : kRuntimeTables) {
    if (t.go_version == release && t.goarch == goarch) return &t;
  }
  return nullptr;
}

Expected<std::string> runtimeTableSource(const bin::DebugInfo& dwarf, const bin::Container& exe,
                                         std::string_view go_version, std::string_view goarch) {
  Entry e{releaseOf(go_version), std::string(goarch), {}, {}, {}};
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
  auto reasons = waitReasons(dwarf, exe);
  if (!reasons) return reasons.error();
  e.wait_reasons = std::move(*reasons);
  return print(e);
}

std::string runtimeTableSource(const RuntimeTable& t) {
  Entry e{std::string(t.go_version), std::string(t.goarch), {}, {}, {}};
  for (const TableStruct& s : t.structs) e.structs.emplace_back(std::string(s.name), s.size);
  for (const TableField& f : t.fields) {
    e.fields.push_back({std::string(f.owner), std::string(f.name), f.offset, f.size, f.count,
                        f.inner_count, std::string(f.type)});
  }
  for (std::string_view r : t.wait_reasons) e.wait_reasons.emplace_back(r);
  return print(e);
}

}  // namespace goheap::core
