#include "query/open.h"

#include <filesystem>
#include <fstream>

#include "core/core_file.h"
#include "dump/reader.h"

namespace goheap::query {

namespace {

// Whether the file at `path` (or `bytes`) is an ELF core file: users have
// cores far more often than heap dumps, and one given where a dump is read
// deserves better than "not a Go heap dump".
bool looksLikeCore(const Source& source) {
  if (source.dump_path.empty()) return core::isElfCore(source.dump_bytes);
  // Only a regular file is opened again: a FIFO or a device the reader
  // refused would block or be consumed.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source.dump_path, ec)) return false;
  std::ifstream in(source.dump_path, std::ios::binary);
  uint8_t header[64] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  return core::isElfCore(std::span<const uint8_t>(header, static_cast<size_t>(in.gcount())));
}

}  // namespace

Expected<std::shared_ptr<const Session>> open(const Source& source, LoadObserver& observer,
                                              const OpenOptions& options) {
  const std::string suffix = source.label.empty() ? std::string() : " (" + source.label + ")";
  const bool in_memory = source.dump_path.empty();
  std::error_code size_error;
  const uint64_t size = in_memory ? source.dump_bytes.size()
                                  : std::filesystem::file_size(source.dump_path, size_error);

  observer.beginPhase("read dump" + suffix, size_error ? 0 : size);
  dump::ReadOptions read;
  read.progress = [&](uint64_t done, uint64_t) { observer.progress(done); };
  Expected<dump::Dump> dump = in_memory
                                  ? dump::readDump(MappedFile::borrow(source.dump_bytes), read)
                                  : dump::readDumpFile(source.dump_path, read);
  observer.endPhase();
  if (!dump && looksLikeCore(source)) {
    return Error(source.dump_path +
                 ": an ELF core file, not a heap dump; reading the heap from a core is not "
                 "supported yet (goheap core-info shows what the core holds and finds its "
                 "executable)");
  }
  if (!dump) return dump.error();
  for (const std::string& w : dump->warnings) observer.warning(source.dump_path + ": " + w);

  analysis::LoadHooks hooks;
  hooks.begin_phase = [&](std::string_view name) {
    observer.beginPhase(std::string(name) + suffix, 0);
  };
  hooks.progress = [&](uint64_t done, uint64_t) { observer.progress(done); };
  hooks.end_phase = [&] { observer.endPhase(); };
  analysis::LoadOptions load;
  load.threads = options.threads;
  load.conservative_stacks = options.conservative_stacks;
  load.exe_path = source.exe_path;
  load.type_objects = options.type_objects;
  Expected<std::unique_ptr<analysis::Snapshot>> snapshot =
      analysis::buildSnapshot(dump.take(), hooks, load);
  if (!snapshot) return snapshot.error();
  const analysis::Snapshot& s = **snapshot;
  if (!s.exe_problem.empty()) {
    observer.warning((source.label.empty() ? std::string() : source.dump_path + ": ") +
                     "not using the executable: " + s.exe_problem +
                     "; carrying on from the dump alone");
  }
  if (!s.types_problem.empty()) {
    observer.note("no types from the executable (" + s.types_problem +
                  "); objects are named by allocation site, interface and shape");
  }
  return std::make_shared<const Session>(snapshot.take(), options.answer_cache_bytes);
}

}  // namespace goheap::query
