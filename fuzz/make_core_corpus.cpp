// Writes the seed corpus for core_reader_fuzz from tests/support's
// CoreBuilder: small cores of amd64, arm64, s390x (big-endian) and arm
// (32-bit) with threads, NT_PRPSINFO, NT_FILE, NT_AUXV and a few segments.
// Usage: make_core_corpus DIR
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "corpus_file.h"
#include "support/core_builder.h"

namespace {

using goheap::testsupport::CoreBuilder;

std::vector<uint8_t> core(bool is64, bool big, uint16_t machine, size_t regs) {
  CoreBuilder b(is64, big, machine);
  std::vector<uint64_t> r(regs);
  for (size_t i = 0; i < regs; ++i) r[i] = 0x1000 + i;
  std::vector<uint8_t> page(64);
  for (size_t i = 0; i < page.size(); ++i) page[i] = static_cast<uint8_t>(i);
  b.segment(0x10000, page, 0x1000, 5)
      .segment(0x20000, page, 64, 6)
      .thread(100, 6, r)
      .thread(101, 0, r)
      .process("prog", "prog arg")
      .file(0x10000, 0x11000, 0, "/usr/bin/prog")
      .aux(6, 4096)
      .aux(9, 0x10010);
  return b.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = goheap::fuzz::writeCorpusFile(dir + "/amd64", core(true, false, 62, 27)) &&
            goheap::fuzz::writeCorpusFile(dir + "/arm64", core(true, false, 183, 34)) &&
            goheap::fuzz::writeCorpusFile(dir + "/s390x", core(true, true, 22, 27)) &&
            goheap::fuzz::writeCorpusFile(dir + "/arm", core(false, false, 40, 18));
  return ok ? 0 : 1;
}
