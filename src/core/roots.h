// core::readDataRoots and core::readSpecials: the roots of the heap graph
// that are not on a goroutine's stack, read from a core the way the
// collector finds them.
//
// Data and bss: every module of the process (runtime.firstmoduledata and
// its `next` chain) names its data and bss segments and, for each, a
// bitvector with one bit per pointer-sized word that is set where the word
// may hold a pointer (gcdatamask, gcbssmask, which the runtime builds from
// the linker's GC programs at start-up and the heap dump writer also reads).
// The pointer words are kept as byte offsets into their segment, the form
// model::PointerLayouts takes for a dump's data and bss, with the value the
// core holds at each: data and bss are writable, so the executable's bytes
// say nothing about them, and a word the core lacks is listed as missing.
//
// Specials: a span's objects with a finalizer (runtime.SetFinalizer) or,
// from Go 1.24, a cleanup (runtime.AddCleanup) are on the span's `specials`
// list, sorted by offset; so is each object the memory profiler sampled,
// with its profile bucket (the allocation site the heap dump's tag 17
// gives). The kind numbers differ between releases (Go 1.25
// put _KindSpecialTinyBlock first), so they are chosen by the Go version.
//
// The layouts of runtime.moduledata, bitvector, special, specialfinalizer
// specialCleanup and specialprofile come from the executable's DWARF.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bin/debug_info.h"
#include "bin/pclntab.h"
#include "core/memory_image.h"
#include "core/runtime_layout.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::core {

// A module's data or bss segment and where in it pointers may be.
struct RootSegment {
  uint64_t addr = 0;  // run-time address
  uint64_t size = 0;
  std::vector<uint64_t> offsets;  // byte offsets of the pointer words, ascending
  std::vector<uint64_t> values;   // the core's word at each offset; 0 where missing
  std::vector<uint64_t> missing;  // offsets whose word the core does not hold
};

struct ModuleRoots {
  uint64_t moduledata = 0;  // address of the runtime.moduledata
  RootSegment data, bss;
};

struct DataRoots {
  std::vector<ModuleRoots> modules;  // firstmoduledata first
  // What was skipped: a module or mask the core lacks, a mask longer than
  // its segment, a `next` chain that loops.
};

// An Error only when the DWARF lacks the types or runtime.firstmoduledata,
// or the first module cannot be read.
Expected<DataRoots> readDataRoots(const MemoryImage& mem, const bin::DebugInfo& dwarf, Sink& told);

// The itabs of the process, each an interface value's first word, from the
// runtime's hash table of them (runtime.itabTable), which holds the ones the
// linker made as well (itabsinit adds every module's) and those made at run
// time. The dynamic type of an interface value is its itab's type.
struct Itabs {
  std::vector<uint64_t> addr;
  std::vector<uint64_t> type;  // the itab's _type
};

// An Error only when the DWARF lacks the types or globals; an itab the core
// does not hold is a warning.
Expected<Itabs> readItabs(const MemoryImage& mem, const bin::DebugInfo& dwarf, Sink& told);

enum class SpecialKind : uint8_t { Finalizer, Cleanup };

// The runtime's kind numbers of the specials read here (0: none).
struct SpecialKinds {
  uint8_t finalizer = 0;
  uint8_t cleanup = 0;
  uint8_t profile = 0;
};

// The kinds of runtime/mheap.go in the release `go_version` ("go1.24.4"),
// Go 1.19 to 1.27; nullopt for another.
std::optional<SpecialKinds> specialKindsFor(std::string_view go_version);

// Finalizers and cleanups, one entry per special, as columns.
struct Specials {
  std::vector<uint64_t> obj;  // the object's address: span start + offset
  std::vector<SpecialKind> kind;
  std::vector<uint64_t> fn_val;           // the *funcval
  std::vector<uint64_t> fn_pc;            // its code pointer (0 when unreadable)
  std::vector<std::string_view> fn_name;  // from the pclntab; "" when unknown
  // A finalizer's specialfinalizer.ot, the *T it was set with (types the
  // object without DWARF); 0 for a cleanup or when unknown.
  std::vector<uint64_t> obj_type;

  // The memory profiler's samples, in the order of the spans and their
  // lists (the heap dump's): the object's address and its *bucket.
  std::vector<uint64_t> sample_obj;
  std::vector<uint64_t> sample_bucket;

  uint64_t spans_with_specials = 0;
  uint64_t other_specials = 0;  // weak handles, pins...

  size_t count() const { return obj.size(); }
};

// Walks every in-use span's specials. `pclntab` names the functions, whose
// link-time PCs are the run-time ones minus mem.bias(). An Error when the
// DWARF lacks the types, the version is not known, or mheap_.allspans cannot
// be read; a span or special that cannot be read is a warning.
Expected<Specials> readSpecials(const MemoryImage& mem, const RuntimeLayout& layout,
                                const bin::DebugInfo& dwarf, const bin::Pclntab& pclntab,
                                std::string_view go_version, Sink& told);

// The memory profile: every bucket on the runtime's list of them
// (runtime.mbuckets, linked by allnext), as the heap dump's tag 16 records
// give it. A bucket is a runtime.bucket, then its `nstk` PCs (the
// allocation's stack, leaf first), then a runtime.memRecord whose `active`
// cycle holds the counts the dump writes.
struct MemProfile {
  std::vector<uint64_t> addr;  // the bucket's address: the samples' bucket id
  std::vector<uint64_t> size;
  std::vector<uint64_t> allocs, frees;
  std::vector<uint32_t> first_pc;  // index into pcs
  std::vector<uint32_t> pc_count;
  std::vector<uint64_t> pcs;  // run-time PCs

  size_t count() const { return addr.size(); }
};

// An Error when the DWARF lacks the structs; a bucket that cannot be read
// ends the list with a warning. Without runtime.mbuckets (a stripped
// executable) the buckets read are those `specials`' samples point at.
Expected<MemProfile> readMemProfile(const MemoryImage& mem, const bin::DebugInfo& dwarf,
                                    const Specials& specials, Sink& told);

}  // namespace goheap::core
