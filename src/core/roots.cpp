#include "core/roots.h"

#include <unordered_set>

#include "util/format.h"
#include "util/go_version.h"

namespace goheap::core {
namespace {

// The struct type `name` (through typedefs), or null.
const bin::Type* structNamed(const bin::DebugInfo& dwarf, std::string_view name) {
  const bin::TypeId id = dwarf.typeByName(name);
  if (id == bin::kNoType) return nullptr;
  const bin::TypeId t = dwarf.resolve(id);
  if (t == bin::kNoType || dwarf.type(t).tag != bin::DwarfTag::Struct) return nullptr;
  return &dwarf.type(t);
}

// Offsets of the fields of one runtime struct, found by name: the first
// missing one is remembered so that the Error can name it.
class FieldOffsets {
 public:
  FieldOffsets(const bin::DebugInfo& dwarf, std::string_view struct_name)
      : dwarf_(dwarf), name_(struct_name), type_(structNamed(dwarf, struct_name)) {
    if (type_ == nullptr) missing_ = "the executable's DWARF has no struct " + std::string(name_);
  }
  uint64_t operator()(std::string_view field) {
    if (type_ == nullptr) return 0;
    const bin::Field* f = dwarf_.fieldNamed(*type_, field);
    if (f == nullptr && missing_.empty()) {
      missing_ = std::string(name_) + " has no field " + std::string(field);
    }
    return f == nullptr ? 0 : f->offset;
  }
  // The field's width in bytes (0 when unknown).
  uint64_t width(std::string_view field) const {
    const bin::Field* f = type_ == nullptr ? nullptr : dwarf_.fieldNamed(*type_, field);
    if (f == nullptr || f->type == bin::kNoType) return 0;
    const bin::TypeId t = dwarf_.resolve(f->type);
    return t == bin::kNoType ? 0 : dwarf_.type(t).size;
  }
  bool has(std::string_view field) const {
    return type_ != nullptr && dwarf_.fieldNamed(*type_, field) != nullptr;
  }
  const std::string& missing() const { return missing_; }

 private:
  const bin::DebugInfo& dwarf_;
  std::string_view name_;
  const bin::Type* type_;
  std::string missing_;
};

const bin::GlobalVariable* globalNamed(const bin::DebugInfo& dwarf, std::string_view name) {
  for (const bin::GlobalVariable& g : dwarf.globals()) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

struct ModuleLayout {
  uint64_t data, edata, bss, ebss, gcdatamask, gcbssmask, next;
  uint64_t bv_n, bv_bytedata;
};

// The byte at `addr` (MemoryImage::readUint reads 4 or 8).
Expected<uint64_t> readByte(const MemoryImage& mem, uint64_t addr) {
  GOHEAP_TRY(auto b, mem.read(addr, 1));
  return uint64_t{b[0]};
}

// An unsigned integer 2, 4 or 8 bytes wide at `addr`.
Expected<uint64_t> readUnsigned(const MemoryImage& mem, uint64_t addr, uint64_t width) {
  if (width != 2) return mem.readUint(addr, static_cast<uint32_t>(width));
  GOHEAP_TRY(auto b, mem.read(addr, 2));
  const uint64_t lo = b[0], hi = b[1];
  return mem.words().bigEndian() ? lo << 8 | hi : hi << 8 | lo;
}

// Reads a segment [start, end) and its bitvector at `mask` into `seg`; a
// warning (and no pointer words) when they do not fit together.
void readSegment(const MemoryImage& mem, const ModuleLayout& l, uint64_t start, uint64_t end,
                 uint64_t mask, std::string_view what, RootSegment& seg, Sink& told) {
  const uint32_t ptr = mem.words().ptrSize();
  seg.addr = start;
  if (end < start) {
    told.warning(std::string(what) + " ends at " + formatHex(end) + ", before its start " +
                 formatHex(start));
    return;
  }
  seg.size = end - start;
  auto n = mem.readUint(mask + l.bv_n, 4);
  auto bytes_at = mem.readWord(mask + l.bv_bytedata);
  if (!n || !bytes_at) {
    told.warning(std::string(what) + ": its pointer mask at " + formatHex(mask) +
                 " is not in the core");
    return;
  }
  const uint64_t bits = *n & 0x7fffffff;  // an int32, never negative here
  if (bits > seg.size / ptr) {
    told.warning(std::string(what) + ": its pointer mask at " + formatHex(mask) + " has " +
                 std::to_string(bits) + " bits for " + std::to_string(seg.size) + " bytes");
    return;
  }
  auto mask_bytes = mem.read(*bytes_at, (bits + 7) / 8);
  if (!mask_bytes) {
    told.warning(std::string(what) + ": " + mask_bytes.error().message());
    return;
  }
  for (uint64_t i = 0; i < bits; ++i) {
    if (((*mask_bytes)[i / 8] >> (i % 8) & 1) == 0) continue;
    const uint64_t off = i * ptr;
    seg.offsets.push_back(off);
    // Only the core's bytes: the executable's copy of data is as linked.
    auto v = mem.sourceOf(start + off) == MemorySource::Core ? mem.readWord(start + off)
                                                             : Expected<uint64_t>(Error(""));
    if (v) {
      seg.values.push_back(*v);
    } else {
      seg.values.push_back(0);
      seg.missing.push_back(off);
    }
  }
}

}  // namespace

Expected<DataRoots> readDataRoots(const MemoryImage& mem, const bin::DebugInfo& dwarf, Sink& told) {
  FieldOffsets md(dwarf, "runtime.moduledata");
  FieldOffsets bv(dwarf, "runtime.bitvector");
  const ModuleLayout l{md("data"),      md("edata"), md("bss"), md("ebss"),    md("gcdatamask"),
                       md("gcbssmask"), md("next"),  bv("n"),   bv("bytedata")};
  if (!md.missing().empty()) return Error(md.missing());
  if (!bv.missing().empty()) return Error(bv.missing());
  const bin::GlobalVariable* first = globalNamed(dwarf, "runtime.firstmoduledata");
  if (first == nullptr)
    return Error("the executable's DWARF has no global runtime.firstmoduledata");

  DataRoots out;
  std::unordered_set<uint64_t> seen;
  for (uint64_t m = first->address + mem.bias(); m != 0;) {
    if (!seen.insert(m).second) {
      told.warning("the module list loops back to " + formatHex(m));
      break;
    }
    auto data = mem.readWord(m + l.data), edata = mem.readWord(m + l.edata);
    auto bss = mem.readWord(m + l.bss), ebss = mem.readWord(m + l.ebss);
    auto next = mem.readWord(m + l.next);
    if (!data || !edata || !bss || !ebss || !next) {
      const std::string why = "the runtime.moduledata at " + formatHex(m) + " is not in the core";
      if (out.modules.empty()) return Error(why);
      told.warning(why);
      break;
    }
    ModuleRoots mod;
    mod.moduledata = m;
    readSegment(mem, l, *data, *edata, m + l.gcdatamask, "data of module " + formatHex(m), mod.data,
                told);
    readSegment(mem, l, *bss, *ebss, m + l.gcbssmask, "bss of module " + formatHex(m), mod.bss,
                told);
    out.modules.push_back(std::move(mod));
    m = *next;
  }
  return out;
}

Expected<Itabs> readItabs(const MemoryImage& mem, const bin::DebugInfo& dwarf, Sink& told) {
  FieldOffsets table(dwarf, "runtime.itabTableType");
  // runtime.itab until Go 1.21, then an alias of internal/abi.ITab.
  FieldOffsets itab(dwarf,
                    structNamed(dwarf, "runtime.itab") ? "runtime.itab" : "internal/abi.ITab");
  const uint64_t size = table("size"), entries = table("entries");
  // The dynamic type: _type until Go 1.21, Type (an *abi.Type) after.
  const uint64_t type = itab.has("Type") ? itab("Type") : itab("_type");
  for (const FieldOffsets* f : {&table, &itab}) {
    if (!f->missing().empty()) return Error(f->missing());
  }
  const bin::GlobalVariable* global = globalNamed(dwarf, "runtime.itabTable");
  if (global == nullptr) {
    return Error(
        "runtime.itabTable was not found: no symbol names it, and no word of the data segment "
        "points at a table of itabs");
  }
  const uint32_t ptr = mem.words().ptrSize();
  Itabs out;
  // A hash table of `size` slots of *itab, empty ones nil.
  auto at = mem.readWord(global->address + mem.bias());
  auto slots = at ? mem.readWord(*at + size) : Expected<uint64_t>(at.error());
  if (!slots) {
    told.warning("runtime.itabTable: " + slots.error().message());
    return out;
  }
  if (*slots > (uint64_t{1} << 24)) {
    told.warning("runtime.itabTable at " + formatHex(*at) + " claims " + std::to_string(*slots) +
                 " slots");
    return out;
  }
  auto words = mem.read(*at + entries, *slots * ptr);
  if (!words) {
    told.warning("runtime.itabTable: " + words.error().message());
    return out;
  }
  uint64_t unreadable = 0;
  for (uint64_t i = 0; i < *slots; i++) {
    const uint64_t addr = mem.words().read(words->data() + i * ptr);
    if (addr == 0) continue;
    auto t = mem.readWord(addr + type);
    if (!t) {
      unreadable++;
      continue;
    }
    out.addr.push_back(addr);
    out.type.push_back(*t);
  }
  if (unreadable != 0) {
    told.warning(std::to_string(unreadable) + " itabs are not in the core");
  }
  return out;
}

std::optional<SpecialKinds> specialKindsFor(std::string_view go_version) {
  const GoVersion v = parseGoVersion(go_version);
  if (!v.minor) return std::nullopt;
  // runtime/mheap.go: _KindSpecialFinalizer = 1 and _KindSpecialProfile = 2
  // until Go 1.23 puts _KindSpecialWeakHandle = 2 before the profile; Go
  // 1.24 adds _KindSpecialCleanup = 6; Go 1.25 puts _KindSpecialTinyBlock =
  // 1 first.
  if (*v.minor >= 19 && *v.minor <= 22) return SpecialKinds{1, 0, 2};
  if (*v.minor == 23) return SpecialKinds{1, 0, 3};
  if (*v.minor == 24) return SpecialKinds{1, 6, 3};
  if (*v.minor >= 25 && *v.minor <= 27) return SpecialKinds{2, 7, 4};
  return std::nullopt;
}

Expected<Specials> readSpecials(const MemoryImage& mem, const RuntimeLayout& layout,
                                const bin::DebugInfo& dwarf, const bin::Pclntab& pclntab,
                                std::string_view go_version, Sink& told) {
  const std::optional<SpecialKinds> kinds = specialKindsFor(go_version);
  if (!kinds) return Error("no special kinds known for Go version " + std::string(go_version));
  FieldOffsets span(dwarf, "runtime.mspan");
  FieldOffsets sp(dwarf, "runtime.special");
  FieldOffsets fin(dwarf, "runtime.specialfinalizer");
  const uint64_t span_specials = span("specials");
  const uint64_t sp_next = sp("next"), sp_offset = sp("offset"), sp_kind = sp("kind");
  const uint64_t fin_fn = fin("fn");
  // ot only types the object: a layout table without it loses no root.
  const bool has_ot = fin.has("ot");
  const uint64_t fin_ot = has_ot ? fin("ot") : 0;
  // special.offset is a uint16 in Go 1.19, a uintptr later.
  const uint64_t sp_offset_width = sp.width("offset");
  if (sp_offset_width != 2 && sp_offset_width != 4 && sp_offset_width != 8) {
    return Error("runtime.special.offset is " + std::to_string(sp_offset_width) +
                 " bytes wide, which cannot be read");
  }
  for (const FieldOffsets* f : {&span, &sp, &fin}) {
    if (!f->missing().empty()) return Error(f->missing());
  }
  // The cleanup's function: specialCleanup.fn until Go 1.25, then
  // specialCleanup.cleanup.fn (a cleanupFn).
  uint64_t cleanup_fn = 0;
  if (kinds->cleanup != 0) {
    FieldOffsets cl(dwarf, "runtime.specialCleanup");
    if (cl.has("fn")) {
      cleanup_fn = cl("fn");
    } else {
      FieldOffsets cfn(dwarf, "runtime.cleanupFn");
      cleanup_fn = cl("cleanup") + cfn("fn");
      if (!cfn.missing().empty()) return Error(cfn.missing());
    }
    if (!cl.missing().empty()) return Error(cl.missing());
  }

  const uint64_t allspans = layout.mheap_addr + mem.bias() + layout.mheap_allspans;
  auto array = mem.readWord(allspans);
  auto len = mem.readWord(allspans + layout.ptr_size);
  if (!array || !len)
    return Error("runtime.mheap_.allspans at " + formatHex(allspans) + " is not in the core");
  auto spans = mem.read(*array, *len * layout.ptr_size);
  if (*len > (uint64_t{1} << 40) || !spans) {
    return Error("runtime.mheap_.allspans: its " + std::to_string(*len) + " span pointers at " +
                 formatHex(*array) + " are not in the core");
  }

  Specials out;
  // specialprofile.b: the stripped table may lack the struct, which only
  // loses the samples.
  FieldOffsets prof(dwarf, "runtime.specialprofile");
  const uint64_t prof_b = prof("b");
  if (!prof.missing().empty()) {
    told.warning("no allocation sites: " + prof.missing());
  }
  const bool read_samples = prof.missing().empty();
  const WordReader& w = mem.words();
  uint64_t unreadable = 0;
  std::string first_unreadable;
  auto unreadableAt = [&](uint64_t addr, const std::string& what) {
    if (unreadable++ == 0) first_unreadable = what + " at " + formatHex(addr);
  };
  for (uint64_t i = 0; i < *len; ++i) {
    const uint64_t s = w.read(spans->data() + i * layout.ptr_size);
    auto state = readByte(mem, s + layout.span_state.offset);
    auto head = mem.readWord(s + span_specials);
    auto start = mem.readWord(s + layout.span_start_addr.offset);
    if (!state || !head || !start) {
      if (s != 0) unreadableAt(s, "the mspan");
      continue;
    }
    if (*state != layout.span_in_use || *head == 0) continue;
    ++out.spans_with_specials;
    // The list is sorted by (offset, kind): a step back means it is corrupt,
    // and stopping there also ends a loop.
    uint64_t last_offset = 0, last_kind = 0;
    bool first = true;
    for (uint64_t p = *head; p != 0;) {
      auto next = mem.readWord(p + sp_next);
      auto offset = readUnsigned(mem, p + sp_offset, sp_offset_width);
      auto kind = readByte(mem, p + sp_kind);
      if (!next || !offset || !kind) {
        unreadableAt(p, "the special");
        break;
      }
      if (!first && (*offset < last_offset || (*offset == last_offset && *kind <= last_kind))) {
        told.warning("the specials of span " + formatHex(s) + " go back at " + formatHex(p));
        break;
      }
      first = false;
      last_offset = *offset;
      last_kind = *kind;
      const uint64_t here = p;
      p = *next;
      if (*kind == kinds->profile) {
        auto bucket = read_samples ? mem.readWord(here + prof_b) : Expected<uint64_t>(0);
        if (!bucket) {
          unreadableAt(here, "the bucket of the profile special");
        } else if (read_samples) {
          out.sample_obj.push_back(*start + *offset);
          out.sample_bucket.push_back(*bucket);
        }
        continue;
      }
      const bool is_fin = *kind == kinds->finalizer;
      const bool is_cleanup = kinds->cleanup != 0 && *kind == kinds->cleanup;
      if (!is_fin && !is_cleanup) {
        ++out.other_specials;
        continue;
      }
      // fn is a *funcval, whose first word is the code pointer.
      auto fn_val = mem.readWord(here + (is_fin ? fin_fn : cleanup_fn));
      auto fn_pc = fn_val && *fn_val != 0 ? mem.readWord(*fn_val) : Expected<uint64_t>(0);
      const bin::Func* f = fn_pc && *fn_pc != 0 ? pclntab.funcAt(*fn_pc - mem.bias()) : nullptr;
      if (!fn_val || !fn_pc) unreadableAt(here, "the function of the special");
      out.obj.push_back(*start + *offset);
      out.kind.push_back(is_fin ? SpecialKind::Finalizer : SpecialKind::Cleanup);
      out.fn_val.push_back(fn_val ? *fn_val : 0);
      out.fn_pc.push_back(fn_pc ? *fn_pc : 0);
      out.fn_name.push_back(f == nullptr ? std::string_view() : f->name);
      auto ot = is_fin && has_ot ? mem.readWord(here + fin_ot) : Expected<uint64_t>(0);
      out.obj_type.push_back(ot ? *ot : 0);
    }
  }
  if (unreadable > 0) {
    told.warning(std::to_string(unreadable) + " spans or specials are not in the core, the first " +
                 first_unreadable);
  }
  return out;
}

namespace {

// Reads memory profile buckets one at a time into a MemProfile.
class BucketReader {
 public:
  BucketReader(const MemoryImage& mem, const bin::DebugInfo& dwarf)
      : mem_(mem),
        bucket_(dwarf, "runtime.bucket"),
        record_(dwarf, "runtime.memRecord"),
        cycle_(dwarf, "runtime.memRecordCycle") {
    const bin::Type* t = structNamed(dwarf, "runtime.bucket");
    header_size_ = t == nullptr ? 0 : t->size;
    allnext_ = bucket_("allnext");
    size_ = bucket_("size");
    nstk_ = bucket_("nstk");
    allocs_ = record_("active") + cycle_("allocs");
    frees_ = record_("active") + cycle_("frees");
  }
  // The first struct or field the layouts lack; empty when they are whole.
  std::string missing() const {
    for (const FieldOffsets* f : {&bucket_, &record_, &cycle_}) {
      if (!f->missing().empty()) return f->missing();
    }
    return {};
  }

  // Adds the bucket at `b` to `out` and gives its allnext, or an Error
  // naming it when it cannot be read.
  Expected<uint64_t> read(uint64_t b, MemProfile& out) const {
    const uint32_t ptr = mem_.words().ptrSize();
    auto next = mem_.readWord(b + allnext_);
    auto size = mem_.readWord(b + size_);
    auto n = mem_.readWord(b + nstk_);
    if (!next || !size || !n)
      return Error("the memory profile bucket at " + formatHex(b) + " is not in the core");
    if (*n > kMaxStack) {
      return Error("the memory profile bucket at " + formatHex(b) + " claims " +
                   std::to_string(*n) + " frames");
    }
    // The PCs follow the header, the memRecord follows them.
    const uint64_t stk = b + header_size_;
    const uint64_t rec = stk + *n * ptr;
    auto pcs = mem_.read(stk, *n * ptr);
    auto allocs = mem_.readWord(rec + allocs_);
    auto frees = mem_.readWord(rec + frees_);
    if (!pcs || !allocs || !frees) {
      return Error("the stack or counts of the memory profile bucket at " + formatHex(b) +
                   " are not in the core");
    }
    out.addr.push_back(b);
    out.size.push_back(*size);
    out.allocs.push_back(*allocs);
    out.frees.push_back(*frees);
    out.first_pc.push_back(static_cast<uint32_t>(out.pcs.size()));
    out.pc_count.push_back(static_cast<uint32_t>(*n));
    for (uint64_t i = 0; i < *n; i++) out.pcs.push_back(mem_.words().read(pcs->data() + i * ptr));
    return *next;
  }

 private:
  // The runtime's bound on a stack it records (maxProfStackDepth, 1024 from
  // Go 1.23, 32 before): a larger count is a misread.
  static constexpr uint64_t kMaxStack = 1024;

  const MemoryImage& mem_;
  FieldOffsets bucket_, record_, cycle_;
  uint64_t header_size_ = 0, allnext_ = 0, size_ = 0, nstk_ = 0, allocs_ = 0, frees_ = 0;
};

}  // namespace

Expected<MemProfile> readMemProfile(const MemoryImage& mem, const bin::DebugInfo& dwarf,
                                    const Specials& specials, Sink& told) {
  const BucketReader reader(mem, dwarf);
  if (std::string m = reader.missing(); !m.empty()) return Error(m);
  MemProfile out;
  // runtime.mbuckets: an atomic.UnsafePointer, whose first word is the
  // *bucket at the list's head. A stripped executable's globals do not name
  // it: then the buckets are the ones the samples point at, which are all
  // that grouping by site needs (a bucket whose objects are all gone is
  // left out).
  const bin::GlobalVariable* global = globalNamed(dwarf, "runtime.mbuckets");
  if (global == nullptr) {
    told.warning(
        "runtime.mbuckets is not known: the memory profile has only the buckets of objects still "
        "sampled");
    std::unordered_set<uint64_t> seen;
    for (uint64_t b : specials.sample_bucket) {
      if (b == 0 || !seen.insert(b).second) continue;
      if (auto next = reader.read(b, out); !next) told.warning(next.error().message());
    }
    return out;
  }
  auto head = mem.readWord(global->address + mem.bias());
  if (!head) {
    told.warning("runtime.mbuckets: " + head.error().message());
    return out;
  }
  std::unordered_set<uint64_t> seen;
  for (uint64_t b = *head; b != 0;) {
    if (!seen.insert(b).second) {
      told.warning("the memory profile's buckets loop at " + formatHex(b));
      break;
    }
    auto next = reader.read(b, out);
    if (!next) {
      told.warning(next.error().message() + "; the buckets after it are left out");
      break;
    }
    b = *next;
  }
  return out;
}

}  // namespace goheap::core
