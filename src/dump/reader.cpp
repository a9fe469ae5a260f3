#include "dump/reader.h"

namespace goheap::dump {

Expected<Dump> readDump(MappedFile file, const ReadOptions&) {
  return Error(file.path() + ": reader not implemented yet");
}

Expected<Dump> readDumpFile(const std::string& path, const ReadOptions& options) {
  auto file = MappedFile::open(path);
  if (!file) return file.error();
  return readDump(file.take(), options);
}

}  // namespace goheap::dump
