// libFuzzer entry for the executable readers: any input, read as a whole
// executable (container, pclntab, build info, build ID, moduledata) and as
// a bare pclntab, must give an Error or tables whose every lookup ends in a
// value or an Error: file:line, pcsp, start lines and inlined frames. For a
// bare pclntab the input itself is also mapped as memory at gofunc, so the
// inline tree reader sees fuzzed trees. AddressSanitizer sees any read the
// bounds checks let through.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bin/binary.h"
#include "bin/inline.h"
#include "bin/pclntab.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto b = goheap::bin::Binary::fromBytes(bytes, "fuzz")) {
    walk(b->pclntab());
    forSomePcs(b->pclntab(), [&](const goheap::bin::Func& f, uint64_t pc) {
      (void)b->symbolize(pc);
      (void)b->startLine(f);
    });
  }
  if (auto t = goheap::bin::Pclntab::parse(bytes, kTextStart)) {
    walk(*t);
    goheap::bin::Container c;
    c.file = goheap::bin::ByteView(bytes, t->bigEndian());
    c.ptr_size = t->ptrSize();
    c.segments.push_back({kDataAddr, size, 0, size, false});
    for (int minor : {14, 17, 19, 24}) {
      const goheap::bin::InlineExpander x(c, *t, goheap::bin::inlineTreeFormat(t->layout(), minor),
                                          kDataAddr);
      forSomePcs(*t, [&](const goheap::bin::Func&, uint64_t pc) { (void)x.expand(pc); });
    }
  }
  return 0;
}
