// The one way into a heap: from a source (a heap dump or an ELF core file,
// told apart by content, a URL that serves one, or a live process, with the
// program's executable, optional for a dump) to a finished, immutable
// Session, through the index cache. Every front end (the commands, the
// server, the report, the benchmark and the fuzzers) opens heaps here, so a
// new source is added once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "cache/cache_directory.h"
#include "query/debug_file.h"
#include "query/session.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::query {

// Where a heap is: exactly one of these.
// A heap dump (runtime/debug.WriteHeapDump) or an ELF core file, told apart
// by content.
struct HeapFile {
  std::string path;
};
// The same, already in memory (fuzzing, tests); the bytes must outlive the
// Session.
struct HeapBytes {
  std::span<const uint8_t> bytes;
};
// An http:// URL that serves a heap (the capture package's handler),
// downloaded to a temporary file that goes with the Session.
struct HeapUrl {
  std::string url;
};
// A running process (`--pid`), snapped (acquire/snap.h) to a temporary core
// that goes with the Session, its executable found through /proc.
struct LiveProcess {
  int pid = 0;
};
using HeapInput = std::variant<HeapFile, HeapBytes, HeapUrl, LiveProcess>;

struct Source {
  HeapInput heap;
  // The program's executable; empty for none, or for a core, to find it
  // through the core (core/find_executable.h).
  std::string exe_path;
  // Tells this heap's phases and warnings apart when a front end opens more
  // than one ("OLD", "base"): "read dump (OLD)".
  std::string label;

  // What a user typed for a heap: a URL (http://, or https://, which is
  // refused with a reason) or else a file's path.
  static Source fromArgument(std::string argument, std::string exe_path = {},
                             std::string label = {});
  // The heap as messages name it: the path, the URL, "process PID", or
  // "<memory>".
  std::string describe() const;
};

// The machine's cores, at least 1.
unsigned defaultThreads();

struct OpenOptions {
  // For the graph build, typing beside the dominators, a cache entry's
  // checks; any number gives the same answers.
  unsigned threads = defaultThreads();
  bool conservative_stacks = true;  // see graph::BuildOptions
  uint64_t answer_cache_bytes = 0;  // Session's kept answers (a server's)
  bool type_objects = true;         // see analysis::LoadOptions
  // The index cache (cache/cache_directory.h): whether to use it (the
  // commands do unless --no-cache; off here, so that tests and fuzzers
  // write nowhere unless asked), its folder (--cache; empty for the
  // default, $XDG_CACHE_HOME/goheap or ~/.cache/goheap), and its bound
  // (--cache-size).
  bool use_cache = false;
  std::string cache_dir;
  // Where work that goes on after open() returns tells its warnings: the
  // index cache's entry of a heap opened without one is written while the
  // Session answers. Kept as long as that work; null: told nowhere.
  std::shared_ptr<Sink> background_sink;
  uint64_t cache_size_bytes = cache::kDefaultCacheBytes;
  // Where the executable's separate debug file is looked for when it has no
  // DWARF of its own (query/debug_file.h): --debug-dir folders and
  // debuginfod servers. The store folder of downloaded ones, when left
  // empty, is debugFileStore(cache_dir).
  DebugFileOptions debug_files;
};

// Reads and analyses `source`, each stage a phase of `sink` (its name with
// " (LABEL)" when the source has a label), the warnings and notes told to it
// too. Only a heap that cannot be read is an error;
// an executable that cannot be used is a warning, and a dump is opened
// without it. A core cannot be: an executable that cannot be found or does
// not match is an Error::needsInput naming every candidate tried.
Expected<std::shared_ptr<const Session>> open(const Source& source, Sink& sink,
                                              const OpenOptions& options = {});

}  // namespace goheap::query
