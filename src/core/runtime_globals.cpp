#include "core/runtime_globals.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>

#include "bin/global_stores.h"
#include "util/format.h"

namespace goheap::core {
namespace {

constexpr uint64_t kPageSize = 8192;  // runtime._PageSize on every platform read
// How many spans of allspans, and gs of allgs, a candidate is checked on.
constexpr uint64_t kChecked = 16;
constexpr uint64_t kMaxSlice = uint64_t{1} << 32;

// One link-time range of the process's memory, read word by word: whole
// when the core has it as one piece, else a word at a time (bss may span
// the end of the file-backed data mapping and the anonymous one after it).
class Region {
 public:
  Region(const MemoryImage& mem, uint64_t begin, uint64_t end)
      : mem_(mem), begin_(begin), end_(std::max(begin, end)) {
    if (auto b = mem.read(begin + mem.bias(), end_ - begin)) bytes_ = *b;
  }
  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  // The word at link-time address `at` (at least a word before end()); 0
  // when the core lacks it.
  uint64_t word(uint64_t at) const {
    if (bytes_.size() == end_ - begin_) return mem_.words().read(bytes_.data() + (at - begin_));
    auto w = mem_.readWord(at + mem_.bias());
    return w ? *w : 0;
  }

 private:
  const MemoryImage& mem_;
  uint64_t begin_, end_;
  std::span<const uint8_t> bytes_;
};

// A slice header {array, len, cap} that could be a live slice.
bool plausibleSlice(uint64_t array, uint64_t len, uint64_t cap, uint32_t ptr) {
  return array != 0 && array % ptr == 0 && len > 0 && len <= cap && cap <= kMaxSlice;
}

// Checks a candidate runtime.mheap_ at link-time `at`: each of the first
// spans of its allspans must be where the heap's arena index puts the span
// of its first page (in-use spans are; a freed one's may not be, so half).
class MheapCheck {
 public:
  MheapCheck(const MemoryImage& mem, const goruntime::RuntimeTable& t, std::string_view goarch)
      : mem_(mem), ptr_(mem.words().ptrSize()) {
    const goruntime::TableField* allspans = t.field("runtime.mheap", "allspans");
    const goruntime::TableField* arenas = t.field("runtime.mheap", "arenas");
    const goruntime::TableField* spans = t.field("runtime.heapArena", "spans");
    const goruntime::TableField* start = t.field("runtime.mspan", "startAddr");
    ok_ = allspans && arenas && spans && start && arenas->count && arenas->inner_count &&
          spans->count;
    if (!ok_) return;
    allspans_ = allspans->offset;
    arenas_ = arenas->offset;
    l1_ = arenas->count;
    l2_ = arenas->inner_count;
    spans_ = spans->offset;
    pages_ = spans->count;
    start_ = start->offset;
    // runtime.arenaBaseOffset (malloc.go): amd64 only, on the platforms read.
    base_ = goarch == "amd64" ? 0xffff800000000000ull : 0;
  }
  bool usable() const { return ok_; }
  uint64_t allspansOffset() const { return allspans_; }

  bool matches(uint64_t at, uint64_t array, uint64_t len) const {
    const uint64_t n = std::min(len, kChecked);
    uint64_t good = 0;
    for (uint64_t i = 0; i < n; ++i) {
      auto s = mem_.readWord(array + i * ptr_);
      if (!s) return false;
      if (spanIsIndexed(at, *s)) ++good;
    }
    return good > 0 && 2 * good >= n;
  }

 private:
  bool spanIsIndexed(uint64_t at, uint64_t s) const {
    auto start = mem_.readWord(s + start_);
    if (!start || *start == 0) return false;
    const uint64_t idx = (*start - base_) / (pages_ * kPageSize);
    if (idx / l2_ >= l1_) return false;
    auto l2 = mem_.readWord(at + mem_.bias() + arenas_ + idx / l2_ * ptr_);
    if (!l2 || *l2 == 0) return false;
    auto arena = mem_.readWord(*l2 + idx % l2_ * ptr_);
    if (!arena || *arena == 0) return false;
    auto entry = mem_.readWord(*arena + spans_ + *start / kPageSize % pages_ * ptr_);
    return entry && *entry == s;
  }

  const MemoryImage& mem_;
  uint32_t ptr_;
  bool ok_ = false;
  uint64_t allspans_ = 0, arenas_ = 0, l1_ = 0, l2_ = 0, spans_ = 0, pages_ = 0, start_ = 0;
  uint64_t base_ = 0;
};

Expected<uint64_t> findMheap(const Region& bss, const MemoryImage& mem,
                             const goruntime::RuntimeTable& t, std::string_view goarch) {
  const MheapCheck check(mem, t, goarch);
  if (!check.usable()) return Error("the layout table lacks runtime.mheap's arena index");
  const uint32_t ptr = mem.words().ptrSize();
  const uint64_t off = check.allspansOffset();
  for (uint64_t at = bss.begin(); at + off + 3 * ptr <= bss.end(); at += ptr) {
    const uint64_t array = bss.word(at + off), len = bss.word(at + off + ptr),
                   cap = bss.word(at + off + 2 * ptr);
    if (plausibleSlice(array, len, cap, ptr) && check.matches(at, array, len)) return at;
  }
  return Error("no runtime.mheap_ in bss " + formatHexRange(bss.begin(), bss.end()));
}

Expected<uint64_t> findAllgs(const Region& bss, const MemoryImage& mem,
                             const goruntime::RuntimeTable& t) {
  const goruntime::TableField* goid = t.field("runtime.g", "goid");
  if (goid == nullptr) return Error("the layout table has no runtime.g.goid");
  const uint32_t ptr = mem.words().ptrSize();
  for (uint64_t at = bss.begin(); at + 3 * ptr <= bss.end(); at += ptr) {
    const uint64_t array = bss.word(at), len = bss.word(at + ptr), cap = bss.word(at + 2 * ptr);
    if (!plausibleSlice(array, len, cap, ptr)) continue;
    std::unordered_set<uint64_t> ids;
    bool good = true;
    for (uint64_t i = 0; good && i < std::min(len, kChecked); ++i) {
      auto g = mem.readWord(array + i * ptr);
      auto id = g ? mem.readWord(*g + goid->offset) : g;
      good = id && (i != 0 || *id == 1) && ids.insert(*id).second;
    }
    if (good) return at;
  }
  return Error("no runtime.allgs in bss " + formatHexRange(bss.begin(), bss.end()));
}

// Whether the string header at `at` holds `want`.
bool holdsString(const MemoryImage& mem, uint64_t at, std::string_view want) {
  const uint32_t ptr = mem.words().ptrSize();
  auto len = mem.readWord(at + ptr);
  if (!len || *len != want.size()) return false;
  if (want.empty()) return true;
  auto data = mem.readWord(at);
  auto bytes =
      data ? mem.read(*data, want.size()) : Expected<std::span<const uint8_t>>(data.error());
  return bytes && std::equal(want.begin(), want.end(), bytes->begin());
}

uint64_t findWaitReasons(const Region& data, const MemoryImage& mem,
                         const goruntime::RuntimeTable& t) {
  const uint32_t ptr = mem.words().ptrSize();
  const uint64_t n = t.wait_reasons.size();
  // The first reason, waitReasonZero, is empty: match from the second.
  if (n < 2) return 0;
  for (uint64_t at = data.begin(); at + n * 2 * ptr <= data.end(); at += ptr) {
    if (data.word(at + 3 * ptr) != t.wait_reasons[1].size()) continue;
    bool all = true;
    for (uint64_t i = 0; all && i < n; ++i) {
      all = holdsString(mem, at + i * 2 * ptr + mem.bias(), t.wait_reasons[i]);
    }
    if (all) return at;
  }
  return 0;
}

// runtime.itabTable, a pointer in data to the runtime's hash table of itabs
// (runtime.itabTableType: size, count, entries): a power-of-two size of at
// least itabInitSize (512), count non-nil entries, and each itab's hash the
// hash of its type, which runtime._type and abi.Type keep two words in.
uint64_t findItabTable(const Region& data, const MemoryImage& mem,
                       const goruntime::RuntimeTable& t) {
  const goruntime::TableField* size = t.field("runtime.itabTableType", "size");
  const goruntime::TableField* count = t.field("runtime.itabTableType", "count");
  const goruntime::TableField* entries = t.field("runtime.itabTableType", "entries");
  const bool abi = t.structNamed("internal/abi.ITab") != nullptr;
  const goruntime::TableField* type =
      t.field(abi ? "internal/abi.ITab" : "runtime.itab", abi ? "Type" : "_type");
  const goruntime::TableField* hash =
      t.field(abi ? "internal/abi.ITab" : "runtime.itab", abi ? "Hash" : "hash");
  if (!size || !count || !entries || !type || !hash) return 0;
  const uint32_t ptr = mem.words().ptrSize();
  for (uint64_t at = data.begin(); at + ptr <= data.end(); at += ptr) {
    const uint64_t table = data.word(at);
    if (table == 0 || table % ptr != 0) continue;
    auto n = mem.readWord(table + size->offset), used = mem.readWord(table + count->offset);
    if (!n || !used || *n < 512 || *n > (uint64_t{1} << 24) || (*n & (*n - 1)) != 0 || *used == 0 ||
        *used > *n) {
      continue;
    }
    auto slots = mem.read(table + entries->offset, *n * ptr);
    if (!slots) continue;
    // Each itab's hash is its type's, except that the itabs getitab makes
    // at run time (a type assertion to an interface) have hash 0.
    uint64_t non_nil = 0, checked = 0, hashed = 0;
    bool good = true;
    for (uint64_t i = 0; good && i < *n; ++i) {
      const uint64_t itab = mem.words().read(slots->data() + i * ptr);
      if (itab == 0) continue;
      non_nil++;
      if (checked++ >= kChecked) continue;
      auto typ = mem.readWord(itab + type->offset);
      auto h = mem.readUint(itab + hash->offset, 4);
      auto th = typ && *typ != 0 ? mem.readUint(*typ + 2 * ptr, 4) : Expected<uint64_t>(0);
      good = typ && *typ != 0 && h && th && (*h == *th || *h == 0);
      hashed += good && *h != 0 ? 1 : 0;
    }
    if (good && hashed > 0 && non_nil == *used) return at;
  }
  return 0;
}

// runtime.firstmoduledata: its minpc and maxpc (words 20 and 21 since Go
// 1.16) lie in the text, and its text, etext, noptrdata, ..., enoptrbss
// (words 22 to 31) are `m`'s, which bin/moduledata.h read from the file: ten
// addresses in a row that nothing else holds.
uint64_t findModuledata(const Region& r, const bin::ModuleLayout& m, uint32_t ptr) {
  constexpr uint64_t kMinpcWord = 20, kTextWord = 22;
  const uint64_t want[] = {m.text,  m.etext, m.noptrdata, m.enoptrdata, m.data,
                           m.edata, m.bss,   m.ebss,      m.noptrbss,   m.enoptrbss};
  for (uint64_t at = r.begin(); at + (kTextWord + 10) * ptr <= r.end(); at += ptr) {
    if (r.word(at + kTextWord * ptr) != m.text) continue;
    bool all = r.word(at) != 0 && r.word(at + kMinpcWord * ptr) >= m.text &&
               r.word(at + (kMinpcWord + 1) * ptr) <= m.etext;
    for (uint64_t i = 0; all && i < 10; ++i) all = r.word(at + (kTextWord + i) * ptr) == want[i];
    if (all) return at;
  }
  return 0;
}

// runtime.memstats at link time, through the stat pointers of mheap_'s
// span and mcache allocators (runtime_globals.h); 0 when they disagree.
uint64_t findMemstats(uint64_t mheap, const MemoryImage& mem, const goruntime::RuntimeTable& t) {
  const goruntime::TableField* spanalloc = t.field("runtime.mheap", "spanalloc");
  const goruntime::TableField* cachealloc = t.field("runtime.mheap", "cachealloc");
  const goruntime::TableField* stat = t.field("runtime.fixalloc", "stat");
  const goruntime::TableField* mspan_sys = t.field("runtime.mstats", "mspan_sys");
  const goruntime::TableField* mcache_sys = t.field("runtime.mstats", "mcache_sys");
  if (spanalloc == nullptr || cachealloc == nullptr || stat == nullptr || mspan_sys == nullptr ||
      mcache_sys == nullptr) {
    return 0;
  }
  const uint64_t at = mheap + mem.bias();
  auto spans = mem.readWord(at + spanalloc->offset + stat->offset);
  auto caches = mem.readWord(at + cachealloc->offset + stat->offset);
  if (!spans || !caches || *spans < mspan_sys->offset + mem.bias()) return 0;
  const uint64_t base = *spans - mspan_sys->offset;
  if (*caches != base + mcache_sys->offset) return 0;
  return base - mem.bias();
}

}  // namespace

Expected<RuntimeGlobals> findRuntimeGlobals(const bin::Binary& exe, const MemoryImage& mem,
                                            const goruntime::RuntimeTable& table) {
  const std::optional<bin::ModuleLayout>& m = exe.moduleLayout();
  if (!m || m->source != "moduledata") {
    return Error("the executable's data holds no runtime.firstmoduledata");
  }
  RuntimeGlobals g;
  const uint32_t ptr = mem.words().ptrSize();
  // In the writable data, which starts with it in Go 1.26+ (.go.module).
  for (const bin::Segment& seg : exe.container().segments) {
    if (seg.writable && g.firstmoduledata == 0) {
      g.firstmoduledata = findModuledata(Region(mem, seg.vaddr, seg.vaddr + seg.filesz), *m, ptr);
    }
  }
  if (g.firstmoduledata == 0) return Error("no runtime.firstmoduledata in the writable data");
  const Region bss(mem, m->bss, m->ebss);
  GOHEAP_TRY(g.mheap, findMheap(bss, mem, table, exe.container().arch));
  g.memstats = findMemstats(g.mheap, mem, table);
  {
    constexpr std::string_view kProfilers[] = {"runtime.iterate_memprof",
                                               "runtime.mProf_FlushLocked", "runtime.stkbucket"};
    g.mbuckets = bin::findGlobalNamedByAll(exe, kProfilers).value_or(0);
  }
  if (table.structNamed("runtime.gcControllerState") != nullptr) {
    g.gc_controller = bin::findReceiverGlobal(exe, "runtime.(*gcControllerState).").value_or(0);
  }
  GOHEAP_TRY(g.allgs, findAllgs(bss, mem, table));
  const Region data(mem, m->data, m->edata);
  g.wait_reasons = findWaitReasons(data, mem, table);
  g.itab_table = findItabTable(data, mem, table);
  return g;
}

}  // namespace goheap::core
