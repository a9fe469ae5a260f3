// libFuzzer entry for the executable readers: any input, read as a whole
// executable (container, pclntab, build info, build ID, moduledata) and as
// a bare pclntab, must give an Error or tables whose every lookup ends in a
// value or an Error: file:line, pcsp, start lines and inlined frames. For a
// bare pclntab the input itself is also mapped as memory at gofunc, so the
// inline tree reader sees fuzzed trees. The input is also read as plain
// DWARF sections (dwarfContainer) by DebugInfo::read, every answer of which
// is then asked for. And it is read as the runtime's type descriptors
// (typeDescriptors): byte 0 picks the release, byte order and pointer size,
// the rest is the types section, its first words also the typelinks. An
// Error or a table whose every type can be walked; never a crash or a loop.
// A whole executable's code is also decoded for what it stores into its
// globals (bin/global_stores.h).
// AddressSanitizer sees any read the bounds checks let through.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "bin/global_stores.h"
#include "bin/inline.h"
#include "bin/pclntab.h"
#include "bin/type_descriptors.h"
#include "util/go_version.h"

namespace {

constexpr uint64_t kTextStart = 0x401000;
constexpr uint64_t kDataAddr = 0x500000;

// A few PCs of each function, and a bounded number of functions: a fuzzed
// header can claim a million of them.
template <class Fn>
void forSomePcs(const goheap::bin::Pclntab& t, Fn fn) {
  size_t n = 0;
  for (const goheap::bin::Func& f : t.funcs()) {
    if (++n > 256) break;
    fn(f, f.entry);
    fn(f, f.end);
    fn(f, f.entry + (f.end - f.entry) / 2);
  }
}

void walk(const goheap::bin::Pclntab& t) {
  forSomePcs(t, [&](const goheap::bin::Func& f, uint64_t pc) {
    (void)t.pcToLine(pc);
    (void)t.lookup(pc);
    (void)t.spDelta(pc);
    (void)t.pcdata(f, 2, pc);
    (void)t.funcdata(f, 3);
    (void)t.startLineField(f);
  });
}

// The input as uncompressed DWARF sections: byte 0 picks byte order and
// address size, bytes 1-6 the sizes (big-endian u16) of .debug_abbrev,
// .debug_str and .debug_loc, which follow; .debug_info is the rest. A
// whole executable's DWARF is too large for the fuzzer to reach through a
// container; this way it mutates DIEs and abbreviations directly.
goheap::bin::Container dwarfContainer(std::span<const uint8_t> bytes) {
  goheap::bin::Container c;
  if (bytes.size() < 7) return c;
  c.big_endian = (bytes[0] & 1) != 0;
  c.ptr_size = (bytes[0] & 2) != 0 ? 4 : 8;
  c.file = goheap::bin::ByteView(bytes, c.big_endian);
  uint64_t at = 7;
  const char* names[] = {".debug_abbrev", ".debug_str", ".debug_loc"};
  for (int i = 0; i < 3; ++i) {
    const uint64_t want = static_cast<uint64_t>(bytes[1 + 2 * i]) << 8 | bytes[2 + 2 * i];
    const uint64_t n = std::min<uint64_t>(want, bytes.size() - at);
    c.sections.push_back({names[i], 0, at, n, true, false});
    at += n;
  }
  c.sections.push_back({".debug_info", 0, at, bytes.size() - at, true, false});
  return c;
}

void walk(const goheap::bin::DebugInfo& d) {
  for (size_t i = 0; i < d.types().size(); ++i) {
    const auto& t = d.type(static_cast<goheap::bin::TypeId>(i));
    (void)d.resolve(static_cast<goheap::bin::TypeId>(i));
    (void)d.typeByName(t.name);
    (void)d.typeByRuntimeAddress(t.runtime_type);
    for (const auto& f : d.fields(t)) (void)f.name.size();
  }
  for (const auto& g : d.globals()) {
    (void)d.globalAt(g.address);
    (void)d.globalAt(g.address + 7);
  }
  for (const auto& f : d.functions()) {
    (void)d.functionAt(f.low_pc);
    for (const auto& v : d.variables(f)) (void)v.name.size();
  }
}

// The input as a types section mapped at kDataAddr (see the header).
void typeDescriptors(std::span<const uint8_t> bytes) {
  if (bytes.size() < 2) return;
  const uint8_t mode = bytes[0];
  // Go 1.19 to 1.27, and 1.27 with the split map groups of GOEXPERIMENT.
  goheap::GoVersion version;
  version.minor = 19 + mode % 9;
  if ((mode & 0x40) != 0) version.experiments = "mapsplitgroup";
  goheap::bin::Container c;
  c.big_endian = (mode & 0x10) != 0;
  c.ptr_size = (mode & 0x20) != 0 ? 4 : 8;
  c.file = goheap::bin::ByteView(bytes, c.big_endian);
  c.segments.push_back({kDataAddr, bytes.size(), 0, bytes.size(), false, false});
  goheap::bin::ModuleLayout m;
  m.types = kDataAddr;
  m.etypes = kDataAddr + bytes.size();
  m.type_descriptors_size = bytes.size();
  m.typelinks = kDataAddr + 1;
  m.typelinks_count = std::min<uint64_t>(32, (bytes.size() - 1) / 4);
  const uint64_t roots[] = {kDataAddr + c.ptr_size, kDataAddr + 8 * c.ptr_size};
  if (auto d = goheap::bin::readTypeDescriptors(c, m, version, roots)) walk(*d);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto d = goheap::bin::DebugInfo::read(dwarfContainer(bytes))) walk(*d);
  typeDescriptors(bytes);
  if (auto b = goheap::bin::Binary::fromBytes(bytes, "fuzz")) {
    if (auto d = goheap::bin::DebugInfo::read(b->container())) walk(*d);
    walk(b->pclntab());
    forSomePcs(b->pclntab(), [&](const goheap::bin::Func& f, uint64_t pc) {
      (void)b->symbolize(pc);
      (void)b->startLine(f);
    });
    // What the code stores into the first words of data (decoding amd64).
    if (const auto& m = b->moduleLayout(); m && m->ebss > m->data) {
      std::vector<uint64_t> words;
      for (uint64_t a = m->data; a < m->ebss && words.size() < 4096; a += 8) words.push_back(a);
      (void)goheap::bin::findGlobalStores(*b, words);
    }
  }
  if (auto t = goheap::bin::Pclntab::parse(bytes, kTextStart)) {
    walk(*t);
    goheap::bin::Container c;
    c.file = goheap::bin::ByteView(bytes, t->bigEndian());
    c.ptr_size = t->ptrSize();
    c.segments.push_back({kDataAddr, size, 0, size, false, false});
    for (int minor : {14, 17, 19, 24}) {
      const goheap::bin::InlineExpander x(c, *t, goheap::bin::inlineTreeFormat(t->layout(), minor),
                                          kDataAddr);
      forSomePcs(*t, [&](const goheap::bin::Func&, uint64_t pc) { (void)x.expand(pc); });
    }
  }
  return 0;
}
