// Decodes a heap dump of any header version (go1.3, go1.4, go1.5, go1.7) in one
// forward pass over the mapped file. Bad input yields an Error naming the byte
// offset and the record being read; memory use stays in proportion to the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "dump/format.h"
#include "model/heap_model.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/sink.h"

namespace goheap::dump {

// What the second thread contributed; for tests and the benchmark.
struct ReadStats {
  bool split = false;           // a second thread was started
  uint64_t pieces_taken = 0;    // its pieces whose records were used
  uint64_t pieces_dropped = 0;  // its pieces that began at a false boundary
  uint64_t second_objects = 0;  // object records it decoded that were used
};

struct ReadOptions {
  // Told now and then the bytes read (Sink::progress), on the calling
  // thread; the caller opens the phase, with the file's size as its total.
  Sink* sink = nullptr;
  // With 2 or more, a go1.4+ dump's run of object records is decoded by two
  // threads at once. The result is the same for any value. One by default:
  // on the virtual machine measured, the read is bound by first-touch page
  // faults (of the mapping and of the columns), which the hypervisor does
  // not run in parallel, and a second thread made the read slower (median
  // 1.04 s against 0.55 s on 10 million objects).
  unsigned threads = 1;
  // For tests: the file offset from which the second thread looks for a
  // record boundary, whatever the file's size. 0 lets the reader pick the
  // middle of the bytes left once the objects begin, in files large enough
  // to gain from a second thread.
  uint64_t split_search_from = 0;
  ReadStats* stats = nullptr;  // filled in when given
};

Expected<model::HeapModel> readDump(MappedFile file, const ReadOptions& options = {});
Expected<model::HeapModel> readDumpFile(const std::string& path, const ReadOptions& options = {});

}  // namespace goheap::dump
