#include "query/debug_file.h"

#include "acquire/debuginfod.h"
#include "bin/debug_file_search.h"
#include "cache/cache_directory.h"
#include "util/mapped_file.h"

namespace goheap::query {

namespace {

// Why the file at `path` cannot serve `exe`'s DWARF; empty when it can.
std::string unsuitable(const bin::Container& exe, const std::string& path) {
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file) return file.error().message();
  Expected<bin::Container> debug = bin::readContainer(file->bytes());
  if (!debug) return debug.error().message();
  return bin::debugFileMismatch(exe, *debug);
}

}  // namespace

std::string debugFileStore(const std::string& cache_dir) {
  std::optional<std::string> dir =
      cache::cacheDirectoryPath(cache_dir, cache::CacheEnvironment::fromProcess());
  return dir ? *dir + "/debuginfo" : std::string();
}

void attachDebugFile(bin::Binary& exe, const std::string& exe_path, const DebugFileOptions& options,
                     Sink& sink) {
  const bin::Container& c = exe.container();
  if (c.format != bin::ContainerFormat::Elf || bin::hasOwnDebugInfo(c)) return;
  const bin::DebugFileSearch search =
      bin::findDebugFile(exe_path, c, options.dirs, options.process);
  auto use = [&](const std::string& path, const std::string& found_by) {
    Status used = exe.useDebugFile(path, found_by);
    if (!used) {
      sink.warning(used.error().message());
      return false;
    }
    sink.note(exe_path + ": DWARF from " + path + " (found by " + found_by + ")");
    return true;
  };
  if (search.found() && use(search.path, search.found_by)) return;

  std::string explanation = search.explain();
  if (!options.debuginfod_urls.empty()) {
    if (search.build_id.empty()) {
      explanation += "; debuginfod finds debug files by GNU build ID, which it has none of";
    } else {
      Expected<acquire::DebuginfodFetch> fetched =
          acquire::fetchDebugFile(search.build_id, options.debuginfod_urls, options.store_dir, sink,
                                  [&](const std::string& path) { return unsuitable(c, path); });
      if (fetched) {
        const std::string how = fetched->url.empty() ? "debuginfod, kept in the cache folder"
                                                     : "debuginfod, " + fetched->url;
        if (use(fetched->path, how)) return;
      } else {
        explanation += "; " + fetched.error().message();
      }
    }
  }
  exe.noteDebugFileSearch(explanation);
}

}  // namespace goheap::query
