#include "core/core_model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "bin/debug_info.h"
#include "core/core_reader.h"
#include "core/process_memory.h"
#include "goruntime/goroutine_status.h"
#include "util/format.h"

namespace goheap::core {

namespace {

// A stack frame of more than this many bytes is taken for a misread: the
// runtime's own limit for a frame is far below.
constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 30;

// Whether the goroutine that started in `start` is one of the runtime's own,
// as runtime.isSystemGoroutine decides for a heap dump: a function of
// package runtime other than the program's main goroutine.
bool isSystemGoroutine(std::string_view start) {
  if (start.substr(0, 8) != "runtime.") return false;
  return start != "runtime.main" && start != "runtime.handleAsyncEvent" &&
         start != "runtime.corostart";
}

class ModelBuilder {
 public:
  ModelBuilder(const CoreFile& core, const MemoryImage& mem, const bin::Binary& exe, uint64_t bias,
               model::HeapModel& out)
      : core_(core), mem_(mem), exe_(exe), bias_(bias), out_(out), layouts_(out.layouts) {}

  void params() {
    model::Params& p = out_.params;
    p.big_endian = core_.bigEndian();
    p.ptr_size = core_.ptrSize();
    p.arch = keep(core_.arch());
    p.go_version = keep(exe_.goVersion());
  }

  void objects(const HeapObjects& heap, PointerMasks masks) {
    // The masks' layouts come first, so that their ids stay valid; the
    // builder adds the frames' and segments' after them.
    out_.layouts = std::move(masks.layouts);
    out_.large_object_types = std::move(masks.large_types);
    std::sort(out_.large_object_types.begin(), out_.large_object_types.end(),
              [](const auto& a, const auto& b) { return a.addr < b.addr; });
    model::Objects& o = out_.objects;
    o.addr.reserve(heap.count());
    o.size.reserve(heap.count());
    o.layout.reserve(heap.count());
    o.offset.reserve(heap.count());
    uint64_t missing = 0, first_missing = 0;
    bool regions_kept = false;
    for (size_t i = 0; i < heap.count(); i++) {
      // An object may straddle two segments: a snap core splits memory
      // where a run of zero pages starts.
      const std::optional<model::ByteRange> r = inOrCopied(heap.addr[i], heap.size[i]);
      if (!r) {
        if (missing++ == 0) first_missing = heap.addr[i];
        continue;
      }
      o.addr.push_back(heap.addr[i]);
      o.size.push_back(heap.size[i]);
      o.offset.push_back(r->offset);
      // The region column is kept only once an object lies outside region 0
      // (a snap core's untouched memory).
      if (r->region != 0 && !regions_kept) {
        o.region.assign(o.addr.size() - 1, 0);
        regions_kept = true;
      }
      if (regions_kept) o.region.push_back(r->region);
      o.layout.push_back(masks.layout[i]);
      out_.total_field_entries += out_.layouts.slotCount(masks.layout[i]);
    }
    if (missing != 0) {
      out_.warnings.push_back(std::to_string(missing) + " heap objects (the first at " +
                              formatHex(first_missing) + ") are not in the core and are left out");
    }
    if (!o.addr.empty()) {
      out_.params.heap_start = o.addr.front();
      out_.params.heap_end = o.addr.back() + o.size.back();
    }
  }

  // The goroutines with their frames: with `scan`, one frame per physical
  // frame of the stack scan, holding the words the collector would scan
  // (live pointers and the stack objects reached); without it, every word
  // of every frame.
  void goroutines(const Goroutines& list, const StackScan* scan) {
    size_t next_scanned = 0;  // scan frames are grouped by goroutine, in order
    for (uint32_t gi = 0; gi < list.goroutines.size(); gi++) {
      const Goroutine& g = list.goroutines[gi];
      model::Goroutine d;
      d.addr = g.address;
      d.sp = g.sched_sp;
      d.goid = g.goid;
      d.gopc = g.gopc;
      d.status = g.status & ~uint32_t{goruntime::kGscan};
      const bin::Func* start = exe_.pclntab().funcAt(g.startpc - bias_);
      d.is_system = start != nullptr && isSystemGoroutine(start->name);
      d.wait_since = static_cast<uint64_t>(g.wait_since);
      // As the runtime's traceback: a reason only for a waiting goroutine,
      // or one the goroutineleak profile marked leaked (the reason says what
      // it waits on, which the offline leak analysis reads).
      if ((d.status == goruntime::kGwaiting || d.status == goruntime::kGleaked) &&
          g.wait_reason < list.wait_reason_names.size()) {
        d.wait_reason = keep(list.wait_reason_names[g.wait_reason]);
      }
      d.first_frame = static_cast<uint32_t>(out_.frames.size());
      if (scan != nullptr) {
        size_t end = next_scanned;
        while (end < scan->frames.size() && scan->frames[end].goroutine == gi) end++;
        scannedFrames(*scan, next_scanned, end, gi);
        next_scanned = end;
      } else {
        wholeFrames(list, g, gi);
      }
      d.frame_count = static_cast<uint32_t>(out_.frames.size()) - d.first_frame;
      out_.goroutines.push_back(d);
    }
    if (scan != nullptr) {
      defersAndPanics(*scan);
      out_.stack_objects_in_layouts = true;
    }
    if (unreadable_frames_ != 0) {
      out_.warnings.push_back(std::to_string(unreadable_frames_) +
                              " stack frames are not in the core; their pointers are not followed");
    }
  }

  void dataRoots(const DataRoots& roots) {
    if (roots.modules.empty()) return;
    segment(roots.modules[0].data, out_.data);
    segment(roots.modules[0].bss, out_.bss);
    if (roots.modules.size() > 1) {
      out_.warnings.push_back(std::to_string(roots.modules.size() - 1) +
                              " more modules (plugins) have data and bss that are not read as "
                              "roots");
    }
  }

  void specials(const Specials& specials) {
    for (size_t i = 0; i < specials.count(); i++) {
      if (specials.kind[i] == SpecialKind::Finalizer) {
        model::Finalizer f;
        f.obj = specials.obj[i];
        f.fn_val = specials.fn_val[i];
        f.fn_pc = specials.fn_pc[i];
        f.obj_type = specials.obj_type[i];
        out_.finalizers.push_back(f);
      } else {
        // A cleanup keeps its function (and what that captured) alive, not
        // the object it is for.
        std::string what = "cleanup for " + formatHex(specials.obj[i]);
        if (!specials.fn_name[i].empty()) what += " (" + std::string(specials.fn_name[i]) + ")";
        out_.other_roots.push_back({keep(what), specials.fn_val[i]});
      }
    }
  }

  // The memory profile as runtime/heapdump.go's dumpmemprof writes it: each
  // bucket's frames named by the physical function at the PC (a PC after
  // the first is a return address, so the line is that of pc-1 unless pc is
  // the function's entry) and, for a PC in no function, "(0x...)" in "?" at
  // line 0; then the sampled objects.
  void memProfile(const MemProfile& prof, const Specials& specials) {
    const bin::Pclntab& tab = exe_.pclntab();
    out_.buckets.reserve(prof.count());
    out_.profile_frames.reserve(prof.pcs.size());
    for (size_t i = 0; i < prof.count(); i++) {
      model::ProfileBucket b;
      b.id = prof.addr[i];
      b.size = prof.size[i];
      b.allocs = prof.allocs[i];
      b.frees = prof.frees[i];
      b.first_frame = static_cast<uint32_t>(out_.profile_frames.size());
      b.frame_count = prof.pc_count[i];
      for (uint32_t k = 0; k < prof.pc_count[i]; k++) {
        out_.profile_frames.push_back(profileFrame(tab, prof.pcs[prof.first_pc[i] + k], k > 0));
      }
      out_.buckets.push_back(b);
    }
    out_.alloc_samples.reserve(specials.sample_obj.size());
    for (size_t i = 0; i < specials.sample_obj.size(); i++) {
      out_.alloc_samples.push_back({specials.sample_obj[i], specials.sample_bucket[i]});
    }
  }

  void itabs(const Itabs& itabs) {
    out_.itabs.reserve(itabs.addr.size());
    for (size_t i = 0; i < itabs.addr.size(); i++) {
      out_.itabs.push_back({itabs.addr[i], itabs.type[i], false});
    }
  }

  // What ReadMemStats would have said; the fields not derived stay unknown.
  void memStats(const CoreMemStats& m) { out_.memstats = m.stats; }

  void threads() {
    for (const Thread& t : core_.threads()) {
      out_.threads.push_back({0, out_.threads.size(), t.tid});
    }
  }

 private:
  // A frame of goroutine `goroutine` over [sp, fp), its pointer words at
  // `offsets` from sp.
  void addFrame(model::StackFrame fr, uint64_t fp, std::span<const uint64_t> offsets) {
    // A frame may be empty: runtime.goexit's on a machine with a link
    // register.
    const std::optional<model::ByteRange> r =
        fp == fr.sp ? std::optional<model::ByteRange>(model::ByteRange{})
        : fp > fr.sp && fp - fr.sp <= kMaxFrameBytes ? inOrCopied(fr.sp, fp - fr.sp)
                                                     : std::nullopt;
    if (r) {
      fr.contents = *r;
      fr.layout = layouts_.add(offsets);
    } else {
      unreadable_frames_++;
    }
    out_.frames.push_back(fr);
  }

  // The stack scan's frames [begin, end) of goroutine `gi`. A stack object
  // may lie in the frame above its own (a function's arguments are in its
  // caller's frame), so each pointer word goes to the frame holding it.
  void scannedFrames(const StackScan& scan, size_t begin, size_t end, uint32_t gi) {
    std::vector<uint64_t> words;  // addresses of the goroutine's pointer words
    for (size_t k = begin; k < end; k++) {
      const StackScanFrame& f = scan.frames[k];
      for (uint64_t off : scan.offsetsOf(f)) words.push_back(f.sp + off);
      for (const StackObject& o : scan.objectsOf(f)) {
        if (!o.scanned) continue;
        for (uint32_t off : scan.offsetsOf(o)) words.push_back(o.addr + off);
      }
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::vector<uint64_t> offsets;
    for (size_t k = begin; k < end; k++) {
      const StackScanFrame& f = scan.frames[k];
      model::StackFrame fr;
      fr.sp = f.sp;
      fr.depth = f.depth;
      fr.child_sp = k == begin ? 0 : scan.frames[k - 1].sp;
      fr.entry_pc = f.entry;
      fr.pc = f.pc;
      fr.continpc = f.continpc;
      fr.function = keep(f.function);
      fr.goroutine = gi;
      offsets.clear();
      for (auto it = std::lower_bound(words.begin(), words.end(), f.sp);
           it != words.end() && *it < f.fp; ++it) {
        offsets.push_back(*it - f.sp);
      }
      addFrame(fr, f.fp, offsets);
    }
  }

  // Without stack maps: one frame per physical frame (the source frames of
  // the calls inlined into one share its pc and sp and come before it),
  // every word of it a possible pointer, so more is kept alive than the
  // collector would, never less.
  void wholeFrames(const Goroutines& list, const Goroutine& g, uint32_t gi) {
    const uint32_t ptr = core_.ptrSize();
    const std::span<const StackFrame> source = list.framesOf(g);
    std::vector<size_t> physical;
    for (size_t k = 0; k < source.size(); k++) {
      if (k + 1 == source.size() || source[k + 1].pc != source[k].pc ||
          source[k + 1].sp != source[k].sp) {
        physical.push_back(k);
      }
    }
    std::vector<uint64_t> offsets;
    for (size_t j = 0; j < physical.size(); j++) {
      const StackFrame& f = source[physical[j]];
      // The frame runs up to its caller's sp; the outermost to the stack's top.
      const uint64_t fp = j + 1 < physical.size() ? source[physical[j + 1]].sp : g.stack_hi;
      model::StackFrame fr;
      fr.sp = f.sp;
      fr.depth = j;
      fr.child_sp = j == 0 ? 0 : source[physical[j - 1]].sp;
      fr.pc = f.pc;
      fr.continpc = f.pc;
      fr.goroutine = gi;
      if (f.where.func != nullptr) {
        fr.entry_pc = f.where.func->entry + bias_;
        fr.function = keep(f.where.func->name);
      }
      offsets.clear();
      for (uint64_t off = 0; fp > f.sp && off + ptr <= fp - f.sp && off < kMaxFrameBytes;
           off += ptr) {
        offsets.push_back(off);
      }
      addFrame(fr, fp, offsets);
    }
  }

  void defersAndPanics(const StackScan& scan) {
    for (const StackDefer& d : scan.defers) {
      const uint64_t g = out_.goroutines[d.goroutine].addr;
      out_.defers.push_back({d.addr, g, d.sp, d.pc, d.fn_val, d.fn_pc, d.link});
      if (out_.goroutines[d.goroutine].top_defer == 0)
        out_.goroutines[d.goroutine].top_defer = d.addr;
    }
    for (const StackPanic& p : scan.panics) {
      const uint64_t g = out_.goroutines[p.goroutine].addr;
      out_.panics.push_back({p.addr, g, p.eface_type, p.eface_data, p.link});
      if (out_.goroutines[p.goroutine].top_panic == 0)
        out_.goroutines[p.goroutine].top_panic = p.addr;
    }
  }

  model::ProfileFrame profileFrame(const bin::Pclntab& tab, uint64_t pc, bool return_address) {
    const bin::Func* f = pc >= bias_ ? tab.funcAt(pc - bias_) : nullptr;
    if (f == nullptr) {
      // Appended, not "(" + ...: GCC 12 at -O3 warns (-Wrestrict) on that form.
      std::string unknown = "(";
      unknown.append(formatHex(pc)).append(")");
      return {keep(unknown), keep("?"), 0};
    }
    uint64_t at = pc - bias_;
    if (return_address && at > f->entry) at--;
    auto loc = tab.pcToLineIn(*f, at);
    // The runtime's funcline says "?" at line 0 where the tables do not.
    if (!loc || loc->file.empty()) return {keep(f->name), keep("?"), 0};
    return {keep(f->name), keep(loc->file), static_cast<uint64_t>(loc->line)};
  }

  // Where the `n` bytes at `addr` lie in region 0 (the core file), when one
  // of the core's segments holds them all.
  std::optional<model::ByteRange> inCore(uint64_t addr, uint64_t n) const {
    if (mem_.sourceOf(addr) != MemorySource::Core) return std::nullopt;
    auto bytes = mem_.read(addr, n);
    if (!bytes) return std::nullopt;
    const std::span<const uint8_t> file = core_.file().bytes();
    if (bytes->data() >= file.data() && bytes->data() < file.data() + file.size()) {
      return model::ByteRange{static_cast<uint64_t>(bytes->data() - file.data()), n, 0};
    }
    // A snap core's memory, assembled where it was split: a region each.
    const auto& assembled = core_.assembled();
    for (size_t a = 0; a < assembled.size(); a++) {
      const std::span<const uint8_t> range = assembled[a]->bytes();
      if (bytes->data() < range.data() || bytes->data() >= range.data() + range.size()) continue;
      auto [it, added] = assembled_regions_.try_emplace(a, 0);
      if (added) it->second = out_.addSharedRegion(assembled[a], range);
      return model::ByteRange{static_cast<uint64_t>(bytes->data() - range.data()), n, it->second};
    }
    return std::nullopt;
  }

  // A data or bss segment, in the core (see inOrCopied) or, where the core
  // lacks some of it, copied with the missing bytes read as zero.
  void segment(const RootSegment& seg, model::Segment& into) {
    if (seg.size == 0) return;
    if (std::optional<model::ByteRange> r = inOrCopied(seg.addr, seg.size)) {
      into.contents = *r;
    } else if (seg.size <= core_.file().bytes().size()) {
      uint64_t missing = 0;
      into.contents = copied(seg.addr, seg.size, missing);
      out_.warnings.push_back(std::to_string(missing) + " bytes of the segment at " +
                              formatHex(seg.addr) + " are not in the core and read as zero");
    } else {
      // A corrupt module: no copy of memory the core cannot hold.
      out_.warnings.push_back("the segment at " + formatHex(seg.addr) + " claims " +
                              std::to_string(seg.size) + " bytes, more than the whole core; " +
                              "its pointers are not followed");
      return;
    }
    into.addr = seg.addr;
    into.layout = layouts_.add(seg.offsets);
    into.present = true;
  }

  // The `n` bytes at `addr`: where one of the core's segments holds them
  // all, a view into the core; where they straddle two (qemu-user writes a
  // mapping as several, a data segment may run from a file-backed mapping
  // into the anonymous one after it), a copy in a region of their own.
  // Nothing when the core lacks any of them.
  std::optional<model::ByteRange> inOrCopied(uint64_t addr, uint64_t n) {
    if (std::optional<model::ByteRange> r = inCore(addr, n)) return r;
    if (n > core_.file().bytes().size() || missingBytes(addr, n) != 0) return std::nullopt;
    uint64_t missing = 0;
    return copied(addr, n, missing);
  }

  // Calls fn(at, len) for each piece of [addr, addr + n) within one page.
  template <class Fn>
  static void forEachPage(uint64_t addr, uint64_t n, Fn&& fn) {
    constexpr uint64_t kPage = 4096;
    for (uint64_t at = 0; at < n;) {
      const uint64_t len = std::min(n - at, kPage - (addr + at) % kPage);
      fn(at, len);
      at += len;
    }
  }

  // How many of the `n` bytes at `addr` the core lacks.
  uint64_t missingBytes(uint64_t addr, uint64_t n) const {
    uint64_t missing = 0;
    forEachPage(addr, n, [&](uint64_t at, uint64_t len) {
      const bool held =
          mem_.sourceOf(addr + at) == MemorySource::Core && mem_.contains(addr + at, len);
      if (!held) missing += len;
    });
    return missing;
  }

  // A copy of the `n` bytes at `addr`, page by page, those the core lacks
  // zero and counted in `missing`.
  model::ByteRange copied(uint64_t addr, uint64_t n, uint64_t& missing) {
    // More than the core holds cannot be in it: nothing is allocated for it.
    if (n > core_.file().bytes().size()) {
      missing = n;
      return {};
    }
    std::vector<uint8_t> copy(n, 0);
    forEachPage(addr, n, [&](uint64_t at, uint64_t len) {
      auto bytes = mem_.sourceOf(addr + at) == MemorySource::Core
                       ? mem_.read(addr + at, len)
                       : Expected<std::span<const uint8_t>>(Error(""));
      if (bytes) {
        std::copy(bytes->begin(), bytes->end(), copy.begin() + static_cast<ptrdiff_t>(at));
      } else {
        missing += len;
      }
    });
    return {0, n, out_.addOwnedRegion(std::move(copy))};
  }

  // A string the model keeps, once however often it is asked for.
  std::string_view keep(std::string_view s) {
    auto it = kept_.find(s);
    if (it != kept_.end()) return it->second;
    const std::string_view k = out_.keepString(std::string(s));
    kept_.emplace(k, k);
    return k;
  }

  const CoreFile& core_;
  const MemoryImage& mem_;
  const bin::Binary& exe_;
  uint64_t bias_;
  model::HeapModel& out_;
  model::PointerLayoutBuilder layouts_;
  mutable std::map<size_t, uint32_t> assembled_regions_;  // see inCore
  std::unordered_map<std::string_view, std::string_view> kept_;
  uint64_t unreadable_frames_ = 0;
};

// Adds `part`'s error as a warning and says whether it was read.
template <class T>
bool readOrWarn(Expected<T>& part, std::string_view what, model::HeapModel& out) {
  if (part) return true;
  out.warnings.push_back("no " + std::string(what) + ": " + part.error().message());
  return false;
}

}  // namespace

Expected<model::HeapModel> readCoreModel(const CoreReader& reader, MappedFile file, Sink& sink) {
  const CoreFile& core = reader.core();
  const bin::Binary& exe = reader.executable();
  if (file.bytes().size() != core.file().bytes().size()) {
    return Error("the core file changed while it was read");
  }
  if (!reader.spanLayout()) return reader.spanLayout().error().inFile(exe.path());
  if (!reader.heapBitsLayout()) return reader.heapBitsLayout().error().inFile(exe.path());

  model::HeapModel out(std::move(file));
  out.format = "core";
  // The core's first warning says it is cut short; the others that memory
  // is left out by design, which the executable makes up for.
  if (core.truncatedBytes() > 0) out.warnings.push_back(core.warnings().front());
  ModelBuilder build(core, reader.memory(), exe, reader.bias(), out);
  build.params();
  // What the readers could do without goes into the model's own list, which
  // the index cache keeps and opening tells the user.
  WarningList told(out.warnings);

  GOHEAP_TRY(HeapObjects heap,
             inPhase(sink, "walk heap spans", [&] { return reader.walkHeap(told); }));
  inPhase(sink, "read pointer masks", [&] {
    // Cannot fail: both layouts were read above.
    PointerMasks masks = reader.readPointerMasks(heap, told).take();
    build.objects(heap, std::move(masks));
  });

  inPhase(sink, "read goroutines", [&] {
    Expected<Goroutines> gs = reader.readGoroutines(told);
    if (!readOrWarn(gs, "goroutines", out)) return;
    Expected<StackScan> scan = reader.scanStacks(*gs, told);
    if (!scan) {
      out.warnings.push_back("no stack maps (" + scan.error().message() +
                             "): every word of every frame is taken for a pointer");
    }
    build.goroutines(*gs, scan ? &*scan : nullptr);
  });
  inPhase(sink, "read roots", [&] {
    Expected<DataRoots> roots = reader.readDataRoots(told);
    if (readOrWarn(roots, "data and bss roots", out)) build.dataRoots(*roots);
    Expected<Specials> specials = reader.readSpecials(told);
    if (readOrWarn(specials, "finalizers", out)) build.specials(*specials);
    if (specials) {
      Expected<MemProfile> prof = reader.readMemProfile(*specials, told);
      if (readOrWarn(prof, "allocation sites", out)) build.memProfile(*prof, *specials);
    }
    Expected<Itabs> itabs = reader.readItabs(told);
    if (readOrWarn(itabs, "itabs", out)) build.itabs(*itabs);
  });
  inPhase(sink, "read memstats", [&] {
    Expected<CoreMemStats> stats = reader.readMemStats(heap, told);
    if (readOrWarn(stats, "memstats", out)) build.memStats(*stats);
  });
  inPhase(sink, "account process memory", [&] {
    ProcessMemoryInputs in;
    in.core = &core;
    in.memory = &reader.memory();
    in.executable = &exe;
    in.bias = reader.bias();
    in.runtime_types = &reader.runtimeTypes();
    in.layout = &*reader.spanLayout();
    in.bits = &*reader.heapBitsLayout();
    in.heap = &heap;
    in.memstats = &out.memstats;
    out.process_memory = readProcessMemory(in);
    if (core.snapNote() && core.snapNote()->skipped_mapping_lines > 0) {
      out.warnings.push_back(std::to_string(core.snapNote()->skipped_mapping_lines) +
                             " mapping lines of the snap's note do not parse: skipped");
    }
  });
  build.threads();
  return out;
}

Expected<model::HeapModel> readCoreModel(const CoreFile& core, MappedFile file,
                                         const bin::Binary& exe, uint64_t bias, Sink& sink) {
  // The runtime's struct layouts and globals: the executable's DWARF, or for
  // a stripped one the committed table and a search of memory.
  Expected<CoreReader> reader = CoreReader::open(core, exe, bias);
  if (!reader) return reader.error().inFile(exe.path());
  return readCoreModel(*reader, std::move(file), sink);
}

Expected<model::HeapModel> readCoreModel(const CoreFile& core, MappedFile file,
                                         const bin::Binary& exe, uint64_t bias,
                                         const bin::DebugInfo& runtime_types, Sink& sink) {
  return readCoreModel(CoreReader(core, exe, bias, runtime_types), std::move(file), sink);
}

}  // namespace goheap::core
