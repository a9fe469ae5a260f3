#include "core/process_memory.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "util/format.h"

namespace goheap::core {
namespace {

using model::MemoryCategory;
using model::ProcessMapping;

constexpr uint64_t kPersistentChunkBytes = 256 << 10;  // runtime.persistentChunkSize
constexpr uint64_t kMaxPersistentChunks = 1 << 20;     // a bound for a damaged list
constexpr uint64_t kIsMmapped = 2;                     // glibc's chunk size bit
constexpr uint64_t kMaxGuardBytes = 64 << 10;
constexpr uint64_t kMinThreadStack = 64 << 10;
constexpr uint64_t kMaxLibraryBss = 1 << 20;

size_t index(MemoryCategory c) {
  return static_cast<size_t>(c);
}

bool accessible(const ProcessMapping& m) {
  return m.perms.size() >= 3 && (m.perms[0] == 'r' || m.perms[1] == 'w' || m.perms[2] == 'x');
}
bool writable(const ProcessMapping& m) {
  return m.perms.size() >= 2 && m.perms[1] == 'w';
}
// Anonymous memory: no file, or a name the kernel or the process gave it
// (Go 1.25's "[anon: Go: heap]"); the kernel's own ([heap], [stack]) aside.
bool anonymous(const ProcessMapping& m) {
  return m.path.empty() || m.path.starts_with("[anon");
}
bool fileBacked(const ProcessMapping& m) {
  return !m.path.empty() && m.path.front() == '/';
}

// Claims bytes of the mappings for categories, each byte once: the first
// claim of a byte wins, as the precedence of the categories says.
class Claims {
 public:
  explicit Claims(std::vector<ProcessMapping>& maps) : maps_(maps) {
    for (size_t i = 0; i < maps.size(); ++i) free_.emplace(maps[i].start, Free{maps[i].end, i});
  }

  // Claims the unclaimed bytes of [start, end) for `c`: in mappings with
  // some access only, unless `any`. Returns how many were claimed.
  uint64_t claim(uint64_t start, uint64_t end, MemoryCategory c, bool any = false) {
    if (start >= end) return 0;
    uint64_t got = 0;
    auto it = free_.upper_bound(start);
    if (it != free_.begin()) --it;
    while (it != free_.end() && it->first < end) {
      const uint64_t s = it->first, e = it->second.end;
      const size_t r = it->second.mapping;
      if (e <= start || (!any && !accessible(maps_[r]))) {
        ++it;
        continue;
      }
      const uint64_t cs = std::max(s, start), ce = std::min(e, end);
      maps_[r].bytes[index(c)] += ce - cs;
      got += ce - cs;
      it = free_.erase(it);
      if (s < cs) free_.emplace(s, Free{cs, r});
      if (ce < e) {
        free_.emplace(ce, Free{e, r});
        break;
      }
    }
    return got;
  }
  uint64_t claimMapping(size_t r, MemoryCategory c) {
    return claim(maps_[r].start, maps_[r].end, c, true);
  }
  uint64_t unclaimed(size_t r) const {
    uint64_t n = maps_[r].size();
    for (uint64_t b : maps_[r].bytes) n -= std::min(n, b);
    return n;
  }
  // The unclaimed ranges of mapping r, by address.
  std::vector<std::pair<uint64_t, uint64_t>> unclaimedIn(size_t r) const {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (auto it = free_.lower_bound(maps_[r].start); it != free_.end() && it->first < maps_[r].end;
         ++it) {
      if (it->second.mapping == r) out.emplace_back(it->first, it->second.end);
    }
    return out;
  }
  // The mapping holding `addr`, or none.
  std::optional<size_t> mappingAt(uint64_t addr) const {
    auto it = std::upper_bound(maps_.begin(), maps_.end(), addr,
                               [](uint64_t a, const ProcessMapping& m) { return a < m.start; });
    if (it == maps_.begin()) return std::nullopt;
    --it;
    if (addr >= it->end) return std::nullopt;
    return static_cast<size_t>(it - maps_.begin());
  }

 private:
  struct Free {
    uint64_t end;
    size_t mapping;
  };
  std::vector<ProcessMapping>& maps_;
  std::map<uint64_t, Free> free_;
};

std::string permsOf(const CoreSegment& s) {
  return {s.readable() ? 'r' : '-', s.writable() ? 'w' : '-', s.executable() ? 'x' : '-', '?'};
}

// Whether gdb wrote the core: gdb gives its cores section headers, the
// kernel none.
bool writtenByGdb(const CoreFile& core) {
  const std::span<const uint8_t> b = core.file().bytes();
  const size_t at = core.is64() ? 0x28 : 0x20, n = core.is64() ? 8 : 4;
  if (b.size() < at + n) return false;
  uint64_t shoff = 0;
  for (size_t i = 0; i < n; ++i) {
    shoff = shoff << 8 | b[at + (core.bigEndian() ? i : n - 1 - i)];
  }
  return shoff != 0;
}

// The mappings the core gives and where its total comes from.
void readMappings(const CoreFile& core, model::ProcessMemory& out) {
  if (core.snapNote() && !core.snapNote()->mappings.empty()) {
    const SnapNote& note = *core.snapNote();
    out.source = "snap";
    out.total_is = "every mapping of /proc/PID/maps when it was snapped, with its Rss";
    uint64_t resident = 0;
    for (const SnapMapping& m : note.mappings) {
      out.mappings.push_back(
          {.start = m.start, .end = m.end, .perms = m.perms, .path = m.path, .resident = m.rss});
      resident += m.rss;
    }
    out.resident = resident;
    if (note.skipped_mapping_lines > 0) {
      out.notes.push_back(std::to_string(note.skipped_mapping_lines) +
                          " mapping lines of the snap's note did not parse and were skipped");
    }
    return;
  }
  const bool gdb = writtenByGdb(core);
  bool has_inaccessible = false;
  for (const CoreSegment& s : core.segments()) has_inaccessible |= (s.flags & 7) == 0;
  if (core.snapNote()) {
    out.source = "snap";
    out.total_is = "the mappings the snap's core holds (a snap of an older goheap: no Rss)";
  } else if (gdb) {
    out.source = "gcore";
    out.total_is =
        "the mappings gdb's gcore wrote: it leaves out those /proc/PID/coredump_filter "
        "excludes (shared file mappings, by default) and read-only file mappings such as the "
        "executable's code";
  } else if (has_inaccessible) {
    out.source = "kernel core";
    out.total_is = "every mapping the kernel's core lists: all of the process's";
  } else {
    out.source = "core";
    out.total_is = "the mappings the core holds";
  }
  out.notes.push_back(
      "residency is unknown in a core: only goheap snap records each mapping's Rss");
  uint64_t gdb_reserved = 0;
  for (const CoreSegment& s : core.segments()) {
    ProcessMapping p{.start = s.vaddr, .end = s.end(), .perms = permsOf(s)};
    for (const FileMapping& f : core.files()) {
      if (f.start <= s.vaddr && s.vaddr < f.end) p.path = std::string(f.path);
    }
    // gdb writes a mapping without access as a readable one of zeros; the
    // process has no anonymous read-only memory of its own (the vdso's
    // pages aside, which are small and claimed before this counts).
    if (gdb && p.path.empty() && p.perms == "r--?") {
      p.perms = "---?";
      ++gdb_reserved;
    }
    if (!out.mappings.empty() && out.mappings.back().end > p.start) continue;  // overlaps
    out.mappings.push_back(std::move(p));
  }
  if (gdb_reserved > 0) {
    out.notes.push_back("gdb's gcore writes mappings without access as readable zeros: its " +
                        std::to_string(gdb_reserved) +
                        " anonymous read-only mappings are taken for reservations");
  }
}

// The word at `p` of `bytes`, which hold at least p + ptr of them.
uint64_t wordAt(const WordReader& words, std::span<const uint8_t> bytes, uint64_t p) {
  return words.read(bytes.data() + p);
}

// glibc chunks that tile `bytes` from its start, as the main arena's brk
// heap is (the top chunk reaching its end, within a page): their count, or
// none when they do not.
std::optional<uint64_t> brkChunks(const WordReader& words, std::span<const uint8_t> bytes) {
  const uint64_t ptr = words.ptrSize(), align = 2 * ptr;
  uint64_t at = 0, n = 0;
  while (at + 2 * ptr <= bytes.size()) {
    const uint64_t size = wordAt(words, bytes, at + ptr) & ~uint64_t{7};
    if (size < align || size % align != 0 || size > bytes.size() - at) return std::nullopt;
    at += size;
    ++n;
    if (bytes.size() - at < 4096) return n;
  }
  return std::nullopt;
}

// The chunks glibc mapped one by one (IS_MMAPPED), one after another from
// the start of `bytes`: their bytes and count.
std::pair<uint64_t, uint64_t> mmappedChunks(const WordReader& words,
                                            std::span<const uint8_t> bytes) {
  const uint64_t ptr = words.ptrSize();
  uint64_t at = 0, n = 0;
  while (at + 2 * ptr <= bytes.size()) {
    if (wordAt(words, bytes, at) != 0) break;  // prev_size: the alignment correction, 0 here
    const uint64_t word = wordAt(words, bytes, at + ptr);
    const uint64_t size = word & ~uint64_t{7};
    if ((word & kIsMmapped) == 0 || size < 4096 || size % 4096 != 0 || size > bytes.size() - at) {
      break;
    }
    at += size;
    ++n;
  }
  return {at, n};
}

// A list of up to `max` names, then how many more.
std::string someOf(const std::vector<std::string>& names, size_t max) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > max) out += ", and " + std::to_string(names.size() - max) + " more";
  return out;
}

class Classifier {
 public:
  Classifier(const ProcessMemoryInputs& in, model::ProcessMemory& out)
      : in_(in), out_(out), claims_(out.mappings), words_(in.memory->words()) {}

  void run() {
    goRuntime();
    files();
    // glibc's own chunk headers before the thread stacks: the kernel merges
    // a pthread stack with the chunks mapped just above it into one
    // mapping, which the stack's evidence would otherwise take whole.
    cHeap(/*mapped_chunks=*/true);
    threadStacks();
    cHeap(/*mapped_chunks=*/false);
    for (size_t r = 0; r < out_.mappings.size(); ++r) {
      if (!accessible(out_.mappings[r]))
        reserved_mappings_ += claims_.claimMapping(r, MemoryCategory::Reserved) ? 1 : 0;
    }
    std::vector<std::string> others;
    for (size_t r = 0; r < out_.mappings.size(); ++r) {
      const ProcessMapping& m = out_.mappings[r];
      if (claims_.claimMapping(r, MemoryCategory::Other) == 0) continue;
      others.push_back(formatHexRange(m.start, m.end) + " " + m.perms +
                       (m.path.empty() ? "" : " " + m.path) + " (" +
                       formatBytes(m.bytes[index(MemoryCategory::Other)]) + ")");
    }
    splitHeap();
    totals();
    details(others);
  }

 private:
  // 1. The Go runtime's structures.
  void goRuntime() {
    const HeapObjects& heap = *in_.heap;
    for (const HeapObjects::SpanRange& s : heap.span_ranges) {
      if (s.manual)
        stack_spans_ +=
            claims_.claim(s.start, s.start + s.bytes, MemoryCategory::GoroutineStacks) ? 1 : 0;
    }
    for (const HeapObjects::SpanRange& s : heap.span_ranges) {
      if (!s.manual)
        in_use_spans_ +=
            claims_.claim(s.start, s.start + s.bytes, MemoryCategory::HeapObjects) ? 1 : 0;
    }
    const HeapBitsLayout& b = *in_.bits;
    const uint64_t ptr = words_.ptrSize();
    const uint64_t mheap = in_.layout->mheap_addr + in_.memory->bias();
    for (uint64_t l1 = 0; l1 < b.arena_l1; ++l1) {
      auto l2 = in_.memory->readWord(mheap + b.mheap_arenas + l1 * ptr);
      if (!l2 || *l2 == 0) continue;
      metadata_bytes_[0] +=
          claims_.claim(*l2, *l2 + b.arena_l2 * ptr, MemoryCategory::RuntimeMetadata);
      // Read in pieces: most of a 32 MiB index is never touched.
      constexpr uint64_t kPiece = 8192;
      for (uint64_t first = 0; first < b.arena_l2; first += kPiece) {
        const uint64_t n = std::min(kPiece, b.arena_l2 - first);
        auto slots = in_.memory->read(*l2 + first * ptr, n * ptr);
        if (!slots) continue;
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t ha = wordAt(words_, *slots, i * ptr);
          if (ha == 0) continue;
          const uint64_t base = (l1 * b.arena_l2 + first + i) * b.arena_bytes + b.arena_base_offset;
          ++arenas_;
          claims_.claim(base, base + b.arena_bytes, MemoryCategory::HeapFree);
          metadata_bytes_[1] +=
              claims_.claim(ha, ha + b.arena_struct_size, MemoryCategory::RuntimeMetadata);
        }
      }
    }
    out_.outside_memstats[index(MemoryCategory::RuntimeMetadata)] = metadata_bytes_[0];
    pageAllocator(mheap);
    threadsOfTheRuntime();
    // persistentalloc's chunks, each linked to the next by its first word;
    // the memory profile's hash table, allocated on its own.
    const bin::GlobalVariable *chunks = nullptr, *buckhash = nullptr;
    for (const bin::GlobalVariable& g : in_.runtime_types->globals()) {
      if (g.name == "runtime.persistentChunks") chunks = &g;
      if (g.name == "runtime.buckhash") buckhash = &g;
    }
    if (buckhash != nullptr) {
      // runtime.buckHashSize buckets, every release read here.
      constexpr uint64_t kBuckHashSize = 179999;
      if (auto p = in_.memory->readWord(buckhash->address + in_.memory->bias()); p && *p != 0) {
        metadata_bytes_[4] +=
            claims_.claim(*p, *p + kBuckHashSize * ptr, MemoryCategory::RuntimeMetadata);
      }
    }
    if (chunks == nullptr) {
      out_.notes.push_back(
          "runtime.persistentChunks is not known (a stripped executable): persistentalloc's "
          "chunks are not told from other anonymous memory");
      return;
    }
    auto p = in_.memory->readWord(chunks->address + in_.memory->bias());
    for (uint64_t n = 0; p && *p != 0 && n < kMaxPersistentChunks; ++n) {
      metadata_bytes_[2] +=
          claims_.claim(*p, *p + kPersistentChunkBytes, MemoryCategory::RuntimeMetadata);
      ++persistent_chunks_;
      p = in_.memory->readWord(*p);
    }
  }

  // The page allocator's summaries (mheap_.pages.summary, slices over
  // reservations mapped as they are needed) and its chunks' bitmaps
  // (pages.chunks: [L1]*[L2]pallocData).
  void pageAllocator(uint64_t mheap) {
    const bin::DebugInfo& dw = *in_.runtime_types;
    const uint64_t ptr = words_.ptrSize();
    const bin::Field* pages = dw.fieldNamed(dw.typeByName("runtime.mheap"), "pages");
    const bin::TypeId alloc = dw.typeByName("runtime.pageAlloc");
    if (pages == nullptr || alloc == bin::kNoType) return;
    const uint64_t base = mheap + pages->offset;
    if (const bin::Field* summary = dw.fieldNamed(alloc, "summary")) {
      const bin::TypeId a = dw.resolve(summary->type);
      const uint64_t levels = a == bin::kNoType ? 0 : dw.type(a).count;
      for (uint64_t l = 0; l < levels && l < 16; ++l) {
        auto slice = in_.memory->read(base + summary->offset + l * 3 * ptr, 3 * ptr);
        if (!slice) continue;
        const uint64_t array = wordAt(words_, *slice, 0), cap = wordAt(words_, *slice, 2 * ptr);
        if (array == 0 || cap > (uint64_t{1} << 40)) continue;
        metadata_bytes_[3] +=
            claims_.claim(array, array + cap * 8, MemoryCategory::RuntimeMetadata);  // pallocSum
      }
    }
    const bin::Field* chunks = dw.fieldNamed(alloc, "chunks");
    const bin::TypeId data = dw.typeByName("runtime.pallocData");
    const bin::TypeId outer = chunks == nullptr ? bin::kNoType : dw.resolve(chunks->type);
    if (outer == bin::kNoType || data == bin::kNoType) return;
    const uint64_t l1 = dw.type(outer).count;
    const bin::TypeId p = dw.resolve(dw.type(outer).elem);
    const bin::TypeId inner = p == bin::kNoType ? bin::kNoType : dw.resolve(dw.type(p).elem);
    const uint64_t l2 = inner == bin::kNoType ? 0 : dw.type(inner).count;
    const uint64_t size = dw.type(dw.resolve(data)).size;
    auto slots = in_.memory->read(base + chunks->offset, l1 * ptr);
    if (!slots || l2 == 0 || size == 0) return;
    for (uint64_t i = 0; i < l1; ++i) {
      const uint64_t a = wordAt(words_, *slots, i * ptr);
      if (a != 0) {
        metadata_bytes_[3] += claims_.claim(a, a + l2 * size, MemoryCategory::RuntimeMetadata);
      }
    }
  }

  // The g0 stack of each of the runtime's threads (runtime.allm, linked by
  // m.alllink): a stack span without cgo (claimed above already), the
  // thread's own stack with it, which C gave it.
  void threadsOfTheRuntime() {
    const bin::DebugInfo& dw = *in_.runtime_types;
    const bin::GlobalVariable* allm = nullptr;
    for (const bin::GlobalVariable& g : dw.globals()) {
      if (g.name == "runtime.allm") allm = &g;
    }
    const bin::Field* g0 = dw.fieldNamed(dw.typeByName("runtime.m"), "g0");
    const bin::Field* next = dw.fieldNamed(dw.typeByName("runtime.m"), "alllink");
    const bin::Field* stack = dw.fieldNamed(dw.typeByName("runtime.g"), "stack");
    const bin::Field* lo = dw.fieldNamed(dw.typeByName("runtime.stack"), "lo");
    const bin::Field* hi = dw.fieldNamed(dw.typeByName("runtime.stack"), "hi");
    if (allm == nullptr || g0 == nullptr || next == nullptr || stack == nullptr || lo == nullptr ||
        hi == nullptr) {
      return;
    }
    constexpr uint64_t kMaxThreads = 1 << 20;  // a bound for a damaged list
    auto m = in_.memory->readWord(allm->address + in_.memory->bias());
    for (uint64_t n = 0; m && *m != 0 && n < kMaxThreads; ++n) {
      if (auto g = in_.memory->readWord(*m + g0->offset); g && *g != 0) {
        auto low = in_.memory->readWord(*g + stack->offset + lo->offset);
        auto high = in_.memory->readWord(*g + stack->offset + hi->offset);
        if (low && high && *low < *high && *high - *low <= (uint64_t{1} << 30)) {
          g0_stacks_ += claims_.claim(*low, *high, MemoryCategory::ThreadStacks) ? 1 : 0;
        }
      }
      m = in_.memory->readWord(*m + next->offset);
    }
  }

  // 2. File mappings, the executable's bss and the vdso.
  void files() {
    std::vector<std::string> exec_paths;
    for (const ProcessMapping& m : out_.mappings) {
      if (fileBacked(m) && m.perms.size() > 2 && m.perms[2] == 'x') exec_paths.push_back(m.path);
    }
    std::sort(exec_paths.begin(), exec_paths.end());
    exec_paths.erase(std::unique(exec_paths.begin(), exec_paths.end()), exec_paths.end());
    for (const bin::Segment& s : in_.executable->container().segments) {
      const uint64_t start = s.vaddr + in_.bias;
      const uint64_t end = (start + s.memsz + 4095) & ~uint64_t{4095};
      claims_.claim(start, end, MemoryCategory::ExecutableAndLibraries, true);
      exe_end_ = std::max(exe_end_, end);
      if (auto r = claims_.mappingAt(start); r && fileBacked(out_.mappings[*r])) {
        exe_path_ = out_.mappings[*r].path;
      }
    }
    for (size_t r = 0; r < out_.mappings.size(); ++r) {
      const ProcessMapping& m = out_.mappings[r];
      const bool special = m.path == "[vdso]" || m.path == "[vvar]" || m.path == "[vsyscall]" ||
                           m.path == "[vvar_vclock]";
      if (!fileBacked(m) && !special) continue;
      const bool code = special || m.path == exe_path_ || m.path.find(".so") != std::string::npos ||
                        std::binary_search(exec_paths.begin(), exec_paths.end(), m.path);
      if (code) {
        if (!special && m.path != exe_path_) libraries_.push_back(m.path);
        claims_.claimMapping(r, MemoryCategory::ExecutableAndLibraries);
      } else if (claims_.claimMapping(r, MemoryCategory::MappedFiles) > 0) {
        mapped_files_.push_back(m.path + " (" + formatBytes(m.size()) + ")");
      }
    }
    // A library's bss: the anonymous mapping just after its last file
    // mapping, when small.
    for (size_t r = 1; r < out_.mappings.size(); ++r) {
      const ProcessMapping& lib = out_.mappings[r - 1];
      const ProcessMapping& m = out_.mappings[r];
      if (lib.end == m.start && fileBacked(lib) && writable(lib) && anonymous(m) && writable(m) &&
          m.size() <= kMaxLibraryBss && lib.bytes[index(MemoryCategory::ExecutableAndLibraries)]) {
        claims_.claimMapping(r, MemoryCategory::ExecutableAndLibraries);
      }
    }
    // The vdso, with the kernel's data pages for it (vvar) just below, and
    // amd64's vsyscall page, none of which a core names.
    if (auto vdso = in_.core->aux(kAtSysinfoEhdr)) {
      if (auto r = claims_.mappingAt(*vdso)) {
        claims_.claimMapping(*r, MemoryCategory::ExecutableAndLibraries);
        for (size_t v = *r; v > 0; --v) {
          const ProcessMapping& below = out_.mappings[v - 1];
          if (below.end != out_.mappings[v].start || !anonymous(below) || writable(below) ||
              below.size() > kMaxGuardBytes) {
            break;
          }
          claims_.claimMapping(v - 1, MemoryCategory::ExecutableAndLibraries);
        }
      }
    }
    constexpr uint64_t kVsyscall = 0xffffffffff600000;
    if (in_.core->arch() == "amd64") {
      claims_.claim(kVsyscall, kVsyscall + 4096, MemoryCategory::ExecutableAndLibraries, true);
    }
    std::sort(libraries_.begin(), libraries_.end());
    libraries_.erase(std::unique(libraries_.begin(), libraries_.end()), libraries_.end());
  }

  // 3. Thread stacks.
  void threadStacks() {
    auto claimStack = [&](std::optional<size_t> r, uint64_t& counter) {
      if (!r || !anonymousOrStack(out_.mappings[*r]) || !writable(out_.mappings[*r])) return;
      if (claims_.claimMapping(*r, MemoryCategory::ThreadStacks) > 0) ++counter;
    };
    for (size_t r = 0; r < out_.mappings.size(); ++r) {
      if (out_.mappings[r].path == "[stack]") claimStack(r, main_stack_);
    }
    for (uint64_t type : {kAtExecfn, kAtRandom}) {
      if (auto at = in_.core->aux(type)) claimStack(claims_.mappingAt(*at), main_stack_);
    }
    for (const Thread& t : in_.core->threads()) {
      if (t.has_registers) claimStack(claims_.mappingAt(t.sp), sp_stacks_);
    }
    const uint64_t heap_max = words_.ptrSize() == 8 ? 64 << 20 : 1 << 20;
    for (size_t r = 1; r < out_.mappings.size(); ++r) {
      const ProcessMapping& guard = out_.mappings[r - 1];
      const ProcessMapping& m = out_.mappings[r];
      if (guard.end != m.start || accessible(guard) || guard.size() > kMaxGuardBytes ||
          !anonymous(m) || !writable(m) || m.size() < kMinThreadStack || m.start % heap_max == 0 ||
          (claims_.unclaimed(r) != m.size() && m.bytes[index(MemoryCategory::ThreadStacks)] == 0)) {
        continue;
      }
      claimStack(r, guarded_stacks_);
    }
  }
  static bool anonymousOrStack(const ProcessMapping& m) {
    return anonymous(m) || m.path == "[stack]";
  }

  // 4. glibc's malloc.
  // With `mapped_chunks`, the chunks glibc mapped one by one and the heaps
  // of its other arenas; then the main arena's brk heap.
  void cHeap(bool mapped_chunks) {
    const uint64_t ptr = words_.ptrSize();
    const uint64_t heap_max = ptr == 8 ? 64 << 20 : 1 << 20;
    for (size_t r = 0; r < out_.mappings.size() && !mapped_chunks; ++r) {
      const ProcessMapping& m = out_.mappings[r];
      if (m.path == "[heap]") {
        if (auto bytes = in_.memory->read(m.start, m.size())) {
          if (auto n = brkChunks(words_, *bytes)) brk_chunks_ += *n;
        }
        brk_bytes_ += claims_.claimMapping(r, MemoryCategory::CHeap);
        brk_found_ = true;
      }
    }
    // Anonymous memory the kernel may have merged with its neighbours (Go's
    // own mappings among them): each unclaimed range is looked at.
    for (size_t r = 0; r < out_.mappings.size(); ++r) {
      const ProcessMapping& m = out_.mappings[r];
      if (!anonymous(m) || !writable(m)) continue;
      for (const auto& [start, end] : claims_.unclaimedIn(r)) {
        auto bytes = in_.memory->read(start, end - start);
        if (!bytes || bytes->size() < 4 * ptr) continue;
        if (!mapped_chunks) {
          if (!brk_found_ && start >= exe_end_ && exe_end_ != 0 && start == m.start) {
            if (auto chunks = brkChunks(words_, *bytes)) {
              brk_chunks_ += *chunks;
              brk_bytes_ += claims_.claim(start, end, MemoryCategory::CHeap);
              brk_found_ = true;
            }
          }
          continue;
        }
        if (start % heap_max == 0) {
          // heap_info: ar_ptr, prev, size, mprotect_size.
          const uint64_t ar = wordAt(words_, *bytes, 0), size = wordAt(words_, *bytes, 2 * ptr);
          const uint64_t mprotect = wordAt(words_, *bytes, 3 * ptr);
          if (ar != 0 && size != 0 && size <= end - start && mprotect >= size &&
              mprotect <= heap_max) {
            arena_heap_bytes_ += claims_.claim(start, end, MemoryCategory::CHeap);
            ++arena_heaps_;
            continue;
          }
        }
        // Chunks mapped one by one start on a page (an unclaimed range may
        // start within one, after a claim of another kind).
        for (uint64_t at = (4096 - start % 4096) % 4096; at + 4 * ptr <= bytes->size();
             at += 4096) {
          const auto [mapped, n] = mmappedChunks(words_, bytes->subspan(at));
          if (n == 0) continue;
          mmapped_bytes_ += claims_.claim(start + at, start + at + mapped, MemoryCategory::CHeap);
          mmapped_chunks_ += n;
          at += mapped - 4096;
        }
      }
    }
  }

  // In-use spans' bytes into objects and fragmentation, idle ones into free
  // and released.
  void splitHeap() {
    const HeapObjects& heap = *in_.heap;
    std::vector<uint64_t> prefix(heap.addr.size() + 1, 0);
    for (size_t i = 0; i < heap.addr.size(); ++i) prefix[i + 1] = prefix[i] + heap.size[i];
    uint64_t idle = 0;
    for (ProcessMapping& m : out_.mappings) {
      const size_t lo =
          std::lower_bound(heap.addr.begin(), heap.addr.end(), m.start) - heap.addr.begin();
      const size_t hi =
          std::lower_bound(heap.addr.begin(), heap.addr.end(), m.end) - heap.addr.begin();
      uint64_t& objects = m.bytes[index(MemoryCategory::HeapObjects)];
      const uint64_t in_spans = std::min(objects, prefix[hi] - prefix[lo]);
      m.bytes[index(MemoryCategory::HeapFragmentation)] += objects - in_spans;
      objects = in_spans;
      idle += m.bytes[index(MemoryCategory::HeapFree)];
    }
    // Which idle pages the runtime released is in its page allocator's
    // scavenged bits; memstats' HeapReleased says how many, which is what
    // is split here, in proportion to each mapping's idle bytes.
    uint64_t released = 0;
    if (in_.memstats != nullptr && in_.memstats->present &&
        in_.memstats->has(model::MemStat::HeapReleased)) {
      released = std::min(in_.memstats->heap_released, idle);
      released_from_ = "memstats' HeapReleased";
    }
    uint64_t left = released;
    for (size_t r = 0; r < out_.mappings.size() && idle > 0; ++r) {
      uint64_t& free = out_.mappings[r].bytes[index(MemoryCategory::HeapFree)];
      const uint64_t share =
          static_cast<uint64_t>(static_cast<long double>(free) * released / idle);
      const uint64_t take = std::min({share, free, left});
      free -= take;
      out_.mappings[r].bytes[index(MemoryCategory::HeapReleased)] += take;
      left -= take;
    }
    for (size_t r = 0; r < out_.mappings.size() && left > 0; ++r) {
      uint64_t& free = out_.mappings[r].bytes[index(MemoryCategory::HeapFree)];
      const uint64_t take = std::min(free, left);
      free -= take;
      out_.mappings[r].bytes[index(MemoryCategory::HeapReleased)] += take;
      left -= take;
    }
  }

  void totals() {
    bool have_resident = out_.resident.has_value();
    std::array<long double, model::kMemoryCategoryCount> resident{};
    for (const ProcessMapping& m : out_.mappings) {
      out_.total += m.size();
      for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
        out_.categories[c].bytes += m.bytes[c];
      }
      if (!m.resident) continue;
      // The Rss to the categories that can be resident, by their bytes.
      long double weight = 0;
      for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
        if (canBeResident(c)) weight += m.bytes[c];
      }
      for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
        if (weight > 0 && canBeResident(c)) resident[c] += *m.resident * (m.bytes[c] / weight);
        if (weight == 0 && c == index(m.mainCategory())) resident[c] += *m.resident;
      }
    }
    if (have_resident) {
      for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
        out_.categories[c].resident = static_cast<uint64_t>(resident[c] + 0.5L);
      }
    }
  }
  static bool canBeResident(size_t c) {
    return c != index(MemoryCategory::HeapReleased) && c != index(MemoryCategory::Reserved);
  }

  void details(const std::vector<std::string>& others) {
    const HeapObjects& heap = *in_.heap;
    auto set = [&](MemoryCategory c, std::string text) { out_[c].detail = std::move(text); };
    set(MemoryCategory::HeapObjects,
        formatCount(heap.count()) + " objects in " + formatCount(in_use_spans_) + " spans in use");
    set(MemoryCategory::HeapFragmentation,
        "the in-use spans' bytes less their objects': free slots, size-class rounding, span tails");
    set(MemoryCategory::HeapFree, "pages of " + formatCount(arenas_) +
                                      " heap arenas in no span in use" +
                                      (released_from_.empty() ? "" : ", less " + released_from_));
    set(MemoryCategory::HeapReleased,
        released_from_.empty()
            ? "unknown without memstats: every idle page is counted as free"
            : "idle pages returned to the OS, as many as " + released_from_ + " says");
    set(MemoryCategory::GoroutineStacks, formatCount(stack_spans_) + " stack spans (mSpanManual)");
    set(MemoryCategory::RuntimeMetadata,
        "the heap arena index (" + formatBytes(metadata_bytes_[0]) + "), " + formatCount(arenas_) +
            " heapArena structs (" + formatBytes(metadata_bytes_[1]) + "), " +
            formatCount(persistent_chunks_) + " persistentalloc chunks (" +
            formatBytes(metadata_bytes_[2]) +
            ": mspans, mcaches, itabs, profiling buckets), the page allocator's summaries and "
            "bitmaps (" +
            formatBytes(metadata_bytes_[3]) + "), the memory profile's hash table (" +
            formatBytes(metadata_bytes_[4]) +
            "); the arena index is mapped without a statistic, "
            "so memstats leaves it out");
    std::string c = "glibc malloc: ";
    c += brk_bytes_ ? "the brk heap (" + formatBytes(brk_bytes_) + ", " + formatCount(brk_chunks_) +
                          " chunks)"
                    : "no brk heap";
    c += ", " + formatCount(mmapped_chunks_) + " chunks mapped one by one (" +
         formatBytes(mmapped_bytes_) + "), " + formatCount(arena_heaps_) +
         " heaps of other arenas (" + formatBytes(arena_heap_bytes_) + ")";
    set(MemoryCategory::CHeap, c);
    set(MemoryCategory::ThreadStacks,
        formatCount(g0_stacks_) +
            " g0 stacks of the runtime's threads (allm) outside stack "
            "spans, " +
            formatCount(main_stack_ ? 1 : 0) + " main thread stack, " + formatCount(sp_stacks_) +
            " holding a thread's stack pointer, " + formatCount(guarded_stacks_) +
            " above a guard page (threads started by C or cgo)");
    set(MemoryCategory::MappedFiles, mapped_files_.empty() ? "none" : someOf(mapped_files_, 5));
    set(MemoryCategory::ExecutableAndLibraries,
        (exe_path_.empty() ? std::string("the executable") : exe_path_) + " and " +
            formatCount(libraries_.size()) + " libraries" +
            (libraries_.empty() ? "" : ": " + someOf(libraries_, 4)));
    set(MemoryCategory::Reserved, formatCount(reserved_mappings_) +
                                      " mappings without access (PROT_NONE): the Go "
                                      "runtime's reservations, glibc's arena tails, guard pages");
    set(MemoryCategory::Other,
        others.empty() ? "none" : formatCount(others.size()) + " mappings: " + someOf(others, 10));
  }

  const ProcessMemoryInputs& in_;
  model::ProcessMemory& out_;
  Claims claims_;
  const WordReader& words_;
  uint64_t stack_spans_ = 0, in_use_spans_ = 0, arenas_ = 0, persistent_chunks_ = 0;
  // The arena index, heapArenas, persistentalloc, the page allocator, buckhash.
  std::array<uint64_t, 5> metadata_bytes_{};
  uint64_t exe_end_ = 0;
  std::string exe_path_;
  std::vector<std::string> libraries_, mapped_files_;
  uint64_t g0_stacks_ = 0, main_stack_ = 0, sp_stacks_ = 0, guarded_stacks_ = 0;
  uint64_t brk_bytes_ = 0, brk_chunks_ = 0, mmapped_bytes_ = 0, mmapped_chunks_ = 0;
  uint64_t arena_heaps_ = 0, arena_heap_bytes_ = 0;
  bool brk_found_ = false;
  uint64_t reserved_mappings_ = 0;
  std::string released_from_;
};

}  // namespace

model::ProcessMemory readProcessMemory(const ProcessMemoryInputs& in) {
  model::ProcessMemory out;
  readMappings(*in.core, out);
  Classifier(in, out).run();
  return out;
}

}  // namespace goheap::core
