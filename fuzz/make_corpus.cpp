// Writes the seed corpus for dump_reader_fuzz: the sample dumps of
// tests/support (every version, pointer size and byte order), the minimal
// dumps, and a few near-misses. Usage: make_dump_corpus DIR
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "corpus_file.h"
#include "support/dump_builder.h"
#include "support/sample_dumps.h"

namespace {

using goheap::dump::FormatVersion;
using goheap::testsupport::DumpBuilder;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  for (const auto& s : goheap::testsupport::allDumpShapes()) {
    const std::string name = goheap::testsupport::shapeName(s);
    ok &= goheap::fuzz::writeCorpusFile(
        dir + "/sample_" + name,
        goheap::testsupport::makeSampleDump(s.version, s.ptr_size, s.big_endian).bytes);
    if (s.ptr_size == 8 && !s.big_endian) {
      ok &= goheap::fuzz::writeCorpusFile(
          dir + "/minimal_" + name,
          goheap::testsupport::makeMinimalDump(s.version, s.ptr_size, s.big_endian));
    }
  }
  {
    // go1.3 type field lists applied to arrays and channels.
    DumpBuilder b(FormatVersion::Go13, 8, false);
    b.params({.hchan_size = 16});
    b.type({.addr = 0x4a0000,
            .size = 16,
            .name = "main.P",
            .data_is_pointer = true,
            .fields = {{1, 0}, {5, 0}}});
    b.object({.addr = 0xc000010000,
              .contents = std::vector<uint8_t>(48),
              .type_addr = 0x4a0000,
              .kind = 1});
    b.object({.addr = 0xc000010040,
              .contents = std::vector<uint8_t>(48),
              .type_addr = 0x4a0000,
              .kind = 2});
    b.eof();
    ok &= goheap::fuzz::writeCorpusFile(dir + "/go13_array_chan", b.take());
  }
  {
    // A field list that ends exactly at the end of its object.
    DumpBuilder b(FormatVersion::Go14, 4, true);
    b.params({.thechar = '5'});
    b.object({.addr = 0x10010000, .contents = std::vector<uint8_t>(12), .fields = {{3, 4}}});
    b.eof();
    ok &= goheap::fuzz::writeCorpusFile(dir + "/go14_eface_at_end", b.take());
  }
  {
    // Go 1.26 (Green Tea): a span of 16-byte objects with pointers whose
    // heap bits and inline mark bits reach the dump as object records
    // (dump/span_metadata.h), and a data segment pointing at one of each.
    const uint64_t page = 0x1e338a700000;
    DumpBuilder b(FormatVersion::Go17, 8, false);
    b.params({.heap_start = page, .heap_end = page + 0x100000, .second_string = "go1.26.11"});
    b.data({.addr = 0x5b0000,
            .contents = b.words({page, page + 500 * 16}),
            .fields = {{1, 0}, {1, 8}}});
    for (uint64_t slot : {0, 1, 495, 496, 500, 504, 511}) {
      b.object({.addr = page + slot * 16, .contents = b.words({page, 0}), .fields = {{1, 0}}});
    }
    b.eof();
    ok &= goheap::fuzz::writeCorpusFile(dir + "/go17_span_metadata", b.take());
  }
  {
    // Bytes after EOF.
    DumpBuilder b(FormatVersion::Go17, 8, false);
    b.params();
    b.eof();
    b.raw("trailing");
    ok &= goheap::fuzz::writeCorpusFile(dir + "/go17_trailing", b.take());
  }
  if (!ok) {
    std::fprintf(stderr, "make_dump_corpus: cannot write into %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
