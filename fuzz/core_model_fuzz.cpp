// libFuzzer entry for core::readCoreModel: a core file (the input) read with
// a fixed real Go executable into the dump model, through every reader of
// the runtime's state: the heap walk, pointer masks, goroutines and their
// stack scan, data and bss roots, specials and itabs. Every word of the
// core is the attacker's: any input must either fail with an Error that
// says something or give a Dump whose contents all lie inside its regions
// and whose pointer slots all lie inside the object, frame or segment they
// are for.
//
// GOHEAP_FUZZ_EXE names the executable (fuzz/run.sh: Go 1.24's coreprog,
// its seeds written by make_core_model_corpus); without it every input is
// skipped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/core_model.h"
#include "core/executable_match.h"
#include "fuzz_exe.h"
#include "model/heap_model.h"
#include "util/mapped_file.h"

namespace {

const goheap::bin::Binary* exe = nullptr;
const goheap::bin::DebugInfo* runtime_types = nullptr;

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "core_model_fuzz: %s\n", what);
  std::abort();
}

bool inRegion(const goheap::model::HeapModel& d, const goheap::model::ByteRange& r) {
  if (r.region >= d.regionCount()) return false;
  const uint64_t n = d.region(r.region).size();
  return r.offset <= n && r.size <= n - r.offset;
}

// Every slot of `layout` is a whole word inside `size` bytes.
void checkSlots(const goheap::model::HeapModel& d, uint32_t layout, uint64_t size,
                const char* what) {
  if (layout >= d.layouts.count()) broken(what);
  const uint64_t ptr = d.params.ptr_size;
  d.forEachSlot(layout, [&](uint64_t off) {
    if (off > size || size - off < ptr) broken(what);
  });
}

void checkModel(const goheap::model::HeapModel& d) {
  const goheap::model::Objects& o = d.objects;
  if (o.size.size() != o.count() || o.offset.size() != o.count() || o.layout.size() != o.count()) {
    broken("object columns of different lengths");
  }
  for (size_t i = 0; i < o.count(); i++) {
    const uint32_t region = o.region.empty() ? 0 : o.region[i];
    if (!inRegion(d, {o.offset[i], o.size[i], region})) broken("an object's bytes outside");
    checkSlots(d, o.layout[i], o.size[i], "an object's slot outside it");
  }
  for (const goheap::model::StackFrame& f : d.frames) {
    if (!inRegion(d, f.contents)) broken("a frame's bytes outside");
    checkSlots(d, f.layout, f.contents.size, "a frame's slot outside it");
    if (f.goroutine >= d.goroutines.size()) broken("a frame of no goroutine");
  }
  for (const goheap::model::Goroutine& g : d.goroutines) {
    if (uint64_t{g.first_frame} + g.frame_count > d.frames.size()) broken("frames out of range");
  }
  for (const goheap::model::Segment* s : {&d.data, &d.bss}) {
    if (!s->present) continue;
    if (!inRegion(d, s->contents)) broken("a segment's bytes outside");
    checkSlots(d, s->layout, s->contents.size, "a segment's slot outside it");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = goheap::fuzz::fuzzExecutable("core_model_fuzz");
  if (path == nullptr) return 0;
  auto opened = goheap::bin::Binary::open(path);
  if (!opened) {
    std::fprintf(stderr, "core_model_fuzz: %s\n", opened.error().message().c_str());
    std::abort();
  }
  exe = new goheap::bin::Binary(opened.take());
  // Its DWARF once, not for every input: the runtime's layouts and globals
  // do not depend on the core.
  auto dwarf = goheap::bin::DebugInfo::read(exe->container());
  if (!dwarf) {
    std::fprintf(stderr, "core_model_fuzz: %s\n", dwarf.error().message().c_str());
    std::abort();
  }
  runtime_types = new goheap::bin::DebugInfo(dwarf.take());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (exe == nullptr) return 0;
  const std::span<const uint8_t> input(data, size);
  auto core = goheap::core::CoreFile::fromBytes(input);
  if (!core) return 0;  // core_reader_fuzz covers the file's own errors
  // The bias as query::open finds it; a mutated core's checks may fail,
  // which only the front end refuses.
  const uint64_t bias = goheap::core::checkExecutable(*core, exe->container(), exe->path()).bias;
  auto model = goheap::core::readCoreModel(*core, goheap::MappedFile::borrow(input), *exe, bias,
                                           *runtime_types);
  if (!model) {
    if (model.error().message().empty()) broken("an error that says nothing");
    return 0;
  }
  checkModel(*model);
  return 0;
}
