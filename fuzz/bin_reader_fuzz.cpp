// libFuzzer entry for the executable readers: any input, read as a whole
// executable (ELF container, then the pclntab found in it) and as a bare
// pclntab, must give an Error or tables whose every lookup ends in a value or
// an Error. AddressSanitizer sees any read the bounds checks let through.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bin/binary.h"
#include "bin/pclntab.h"

namespace {

void walk(const goheap::bin::Pclntab& t) {
  for (const goheap::bin::Func& f : t.funcs()) {
    (void)t.pcToLine(f.entry);
    (void)t.lookup(f.end);
    (void)t.pcToLine(f.entry + (f.end - f.entry) / 2);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (auto b = goheap::bin::Binary::fromBytes(bytes, "fuzz")) walk(b->pclntab());
  if (auto t = goheap::bin::Pclntab::parse(bytes, 0x401000)) walk(*t);
  return 0;
}
