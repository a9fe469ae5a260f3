// Decodes a heap dump of any header version (go1.3, go1.4, go1.5, go1.7) in one
// forward pass over the mapped file. Bad input yields an Error naming the byte
// offset and the record being read; memory use stays in proportion to the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "dump/dump.h"
#include "util/error.h"

namespace goheap::dump {

struct ReadOptions {
  // Called now and then with (bytes read, file size).
  std::function<void(uint64_t, uint64_t)> progress;
};

Expected<Dump> readDump(MappedFile file, const ReadOptions& options = {});
Expected<Dump> readDumpFile(const std::string& path, const ReadOptions& options = {});

}  // namespace goheap::dump
