#include "query/open.h"

#include "query/program.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <variant>
#include <vector>

#include "acquire/http_download.h"
#include "acquire/snap.h"
#include "bin/binary.h"
#include "cache/heap_entry.h"
#include "core/core_file.h"
#include "core/core_model.h"
#include "core/executable_match.h"
#include "core/find_executable.h"
#include "dump/reader.h"
#include "util/format.h"
#include "util/version.h"

namespace goheap::query {

unsigned defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// A heap as the readers take it: a file (the user's, or goheap's temporary
// copy of a URL's or a process's heap) or bytes in memory, with the rest of
// what its Source said.
struct LocalHeap {
  std::string path;  // empty: in memory
  std::span<const uint8_t> bytes;
  // What to call the heap when `path` is goheap's temporary copy of it: the
  // URL or the process it came from; empty for a file the user gave.
  std::string origin;
  std::string exe_path;
  std::string label;
  // A process just snapped whose executable is not at its path in goheap's
  // mount namespace (a container's): its PID, and that path as the process
  // sees it. The executable is then read through /proc/PID/exe, and its
  // debug file looked for under /proc/PID/root too. 0 otherwise.
  pid_t running_pid = 0;
  std::string running_exe_path = {};
};

// The first bytes of the heap, by which a reader claims it. Only a regular
// file is opened here: a FIFO or a device would block or be consumed, and
// is left to the heap dump reader to refuse.
std::vector<uint8_t> headOf(const LocalHeap& source) {
  constexpr size_t kHead = 64;
  if (source.path.empty()) {
    const auto head = source.bytes.first(std::min(kHead, source.bytes.size()));
    return {head.begin(), head.end()};
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source.path, ec)) return {};
  std::ifstream in(source.path, std::ios::binary);
  std::vector<uint8_t> head(kHead);
  in.read(reinterpret_cast<char*>(head.data()), kHead);
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

// The heap's name in messages: its origin (a URL) when goheap made the
// file, else the path given.
const std::string& displayName(const LocalHeap& source) {
  return source.origin.empty() ? source.path : source.origin;
}

// The program's executable, opened once per open(): the cache key, the core
// reader (the runtime's layouts from its DWARF) and the typing all use this
// one Binary, which parses its DWARF once (bin::Binary::debugInfo). It is
// bound to the heap the first time a model is at hand; a heap read twice
// (the cache entry's model refused, then the dump read) keeps that binding,
// which depends only on what both models hold alike.
class ExecutableOnce {
 public:
  ExecutableOnce(std::string path, Sink& sink, const OpenOptions& options)
      : path_(std::move(path)) {
    if (!path_.empty()) binary_.emplace(openProgram(path_, options, sink));
  }
  // An executable found for the heap (a core's) and already open.
  ExecutableOnce(std::string path, bin::Binary binary)
      : path_(std::move(path)), binary_(std::in_place, std::move(binary)) {}

  const std::string& path() const { return path_; }
  // The open executable; null when none was given or it cannot be opened
  // (binding then says why), or once it is bound.
  const bin::Binary* binary() const { return binary_ && *binary_ ? &**binary_ : nullptr; }
  // Bound to `model` by the first call; later calls give the same.
  const analysis::Executable& boundTo(const model::HeapModel& model,
                                      std::optional<uint64_t> known_bias = std::nullopt) {
    if (!bound_) {
      bound_ = binary_ ? analysis::bindExecutable(path_, std::move(*binary_), model, known_bias)
                       : analysis::Executable{};
      binary_.reset();
    }
    return *bound_;
  }

 private:
  std::string path_;
  std::optional<Expected<bin::Binary>> binary_;
  std::optional<analysis::Executable> bound_;
};

// The index cache's entry of a heap in a file the user gave (a temporary
// copy, made from a URL or a live process, is never seen again, so it is not
// cached), or nothing when caching is off or the heap cannot be told apart.
// `executable`: the one the heap is read with, opened once by open().
std::optional<cache::HeapEntry> cacheEntryFor(const LocalHeap& source, const std::string& exe_path,
                                              const bin::Binary* executable, Sink& observer,
                                              const OpenOptions& options, bool temporary_input) {
  if (!options.use_cache || temporary_input) return std::nullopt;
  cache::CacheSettings settings;
  settings.directory = options.cache_dir;
  settings.size_bytes = options.cache_size_bytes;
  settings.threads = options.threads;
  settings.key_options.conservative_stacks = options.conservative_stacks;
  settings.key_options.type_objects = options.type_objects;
  return cache::HeapEntry::of(source.path, exe_path, executable, settings, observer);
}

// How a model read from `source` is analysed, with `executable`.
analysis::LoadOptions loadOptions(analysis::Executable executable, const OpenOptions& options) {
  analysis::LoadOptions load;
  load.threads = options.threads;
  load.conservative_stacks = options.conservative_stacks;
  load.executable = std::move(executable);
  load.type_objects = options.type_objects;
  return load;
}

void reportModelWarnings(model::HeapModel& model, const LocalHeap& source, Sink& observer) {
  for (const std::string& w : model.warnings) {
    std::string text = displayName(source);
    observer.warning(text.append(": ").append(w));
  }
  model.origin = source.origin;
}

// The Session of a finished snapshot (restored from the cache when
// `backing` is set), with what the user should know of it. With `entry`,
// the snapshot is written into the cache while the Session answers (writing
// a big index costs about a quarter of computing it).
std::shared_ptr<const Session> finish(
    std::unique_ptr<analysis::Snapshot> snapshot, std::shared_ptr<const void> backing,
    const LocalHeap& source, Sink& observer, const OpenOptions& options,
    std::unique_ptr<TemporaryFile> input, std::optional<cache::HeapEntry> entry = std::nullopt,
    std::optional<analysis::GoroutineLeaks> leaks = std::nullopt) {
  const analysis::Snapshot& s = *snapshot;
  if (!s.exe_problem.empty()) {
    observer.warning((source.label.empty() ? std::string() : displayName(source) + ": ") +
                     "not using the executable: " + s.exe_problem +
                     "; carrying on from the heap alone");
  }
  if (!s.types_problem.empty()) {
    observer.note("no types from the executable (" + s.types_problem +
                  "); objects are named by allocation site, interface and shape");
  }
  auto session = std::make_shared<Session>(std::move(snapshot), options.answer_cache_bytes,
                                           std::move(input), std::move(backing));
  if (leaks) session->setGoroutineLeaks(std::move(*leaks));
  if (entry) {
    // The leak analysis is kept in the entry: whichever of this thread and
    // a question asks for it first computes it, once. This thread asks
    // only when the rest is written, so that a command that needs it
    // (summary) computes it meanwhile.
    session->runInBackground([entry = std::move(*entry),
                              sink = options.background_sink](const Session& written) mutable {
      Status stored = entry.store(
          written.snapshot(), [&written]() -> const auto& { return written.goroutineLeaks(); });
      if (!stored && sink) sink->warning(stored.error().message());
    });
  }
  return session;
}

// Analyses a model read from `source`, with `executable`, through the
// index cache when `entry` has this heap, and into it when not.
Expected<std::shared_ptr<const Session>> analyse(model::HeapModel model, const LocalHeap& source,
                                                 const analysis::Executable& executable,
                                                 Sink& observer, const OpenOptions& options,
                                                 std::unique_ptr<TemporaryFile> input,
                                                 std::optional<cache::HeapEntry> entry) {
  const analysis::LoadOptions load = loadOptions(executable, options);
  reportModelWarnings(model, source, observer);
  if (entry && entry->lookUp(observer)) {
    if (std::optional<cache::Restored> restored = entry->restore(model, false, load, observer)) {
      return finish(std::move(restored->snapshot), std::move(restored->backing), source, observer,
                    options, std::move(input), std::nullopt, std::move(restored->goroutine_leaks));
    }
  }
  GOHEAP_TRY(std::unique_ptr<analysis::Snapshot> snapshot,
             analysis::buildSnapshot(std::move(model), load, observer));
  return finish(std::move(snapshot), nullptr, source, observer, options, std::move(input),
                std::move(entry));
}

// A heap dump whose model and analysis are both in the cache's entry: the
// dump is mapped, not read. Null when the entry has no model or it does not
// fit (then the entry is refused, and the dump is read as without it).
std::shared_ptr<const Session> openFromEntry(cache::HeapEntry& entry, const LocalHeap& source,
                                             ExecutableOnce& executable, Sink& observer,
                                             const OpenOptions& options) {
  if (!entry.lookUp(observer) || !entry.hasModel()) return nullptr;
  Expected<MappedFile> file = MappedFile::open(source.path);
  if (!file) return nullptr;  // the reader says why
  std::optional<model::HeapModel> model = entry.restoreModel(file.take(), observer);
  if (!model) return nullptr;
  const analysis::LoadOptions load = loadOptions(executable.boundTo(*model), options);
  std::optional<cache::Restored> restored = entry.restore(*model, true, load, observer);
  if (!restored) return nullptr;
  reportModelWarnings(restored->snapshot->model, source, observer);
  return finish(std::move(restored->snapshot), std::move(restored->backing), source, observer,
                options, nullptr, std::nullopt, std::move(restored->goroutine_leaks));
}

// A core file: its executable found (or the one given checked), then the
// process's heap read into the model.
Expected<std::shared_ptr<const Session>> openCore(const LocalHeap& source, Sink& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  const bool in_memory = source.path.empty();
  const std::string name = in_memory ? std::string("<memory>") : displayName(source);
  Expected<core::CoreFile> core =
      in_memory ? core::CoreFile::fromBytes(source.bytes) : core::CoreFile::open(source.path);
  if (!core) return core.error();
  CoreProgramRequest request;
  request.core_name = name;
  if (!source.exe_path.empty()) request.given_exe = source.exe_path;
  request.running_pid = source.running_pid;
  request.running_exe_path = source.running_exe_path;
  CoreProgram found = findCoreProgram(core.take(), request, options, observer);
  if (!found.matches()) {
    return Error::needsInput(found.search.explain(name) +
                             "\n(a core holds the process's memory but not its program: give the "
                             "executable after the core, as in `goheap summary CORE EXE`)");
  }
  const core::ExecutableMatch match = std::move(found.program->match);
  const std::string found_from = found.search.executable()->from;
  ExecutableOnce exe(found.exe_path, std::move(found.program->binary));
  found.program.reset();
  GOHEAP_TRY(MappedFile file, in_memory ? Expected<MappedFile>(MappedFile::borrow(source.bytes))
                                        : MappedFile::open(source.path));

  Expected<model::HeapModel> model =
      core::readCoreModel(found.core, std::move(file), *exe.binary(), match.bias, observer);
  if (!model) return model.error().inFile(name);
  if (found.through_proc) {
    observer.note(name + ": read its executable " + source.running_exe_path + " through " +
                  found.exe_path +
                  ": that path is not the same file in goheap's mount namespace "
                  "(the process runs in a container, or its executable was replaced)");
  } else if (found_from != "the command line") {
    observer.note(name + ": using the executable " + found.exe_path + " (found through " +
                  found_from + ")");
  }
  std::optional<cache::HeapEntry> entry =
      cacheEntryFor(source, found.exe_path, exe.binary(), observer, options, input != nullptr);
  const analysis::Executable& bound = exe.boundTo(*model, match.bias);
  return analyse(model.take(), source, bound, observer, options, std::move(input),
                 std::move(entry));
}

// A heap dump in a file (or in memory); `input` is that file when goheap
// made it, to be removed with the Session.
Expected<std::shared_ptr<const Session>> openDump(const LocalHeap& source, Sink& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  ExecutableOnce exe(source.exe_path, observer, options);
  std::optional<cache::HeapEntry> entry =
      cacheEntryFor(source, exe.path(), exe.binary(), observer, options, input != nullptr);
  if (entry) {
    if (std::shared_ptr<const Session> cached =
            openFromEntry(*entry, source, exe, observer, options)) {
      return cached;
    }
  }
  const bool in_memory = source.path.empty();
  std::error_code size_error;
  const uint64_t size =
      in_memory ? source.bytes.size() : std::filesystem::file_size(source.path, size_error);

  observer.beginPhase("read dump", size_error ? 0 : size);
  dump::ReadOptions read;
  read.sink = &observer;
  Expected<model::HeapModel> model = in_memory
                                         ? dump::readDump(MappedFile::borrow(source.bytes), read)
                                         : dump::readDumpFile(source.path, read);
  observer.endPhase();
  if (!model) return model.error();
  const analysis::Executable& bound = exe.boundTo(*model);
  return analyse(model.take(), source, bound, observer, options, std::move(input),
                 std::move(entry));
}

// The readers of a heap in a file, asked in this order which claims it by its
// first bytes (as Perfetto's trace processor picks an importer). A new
// format is a row here and its reader below analysis. The heap dump reader
// claims whatever no other does, so that a file that is neither gets its
// "not a Go heap dump" error.
struct HeapReader {
  std::string_view name;
  bool (*claims)(std::span<const uint8_t> head);
  Expected<std::shared_ptr<const Session>> (*open)(const LocalHeap&, Sink&, const OpenOptions&,
                                                   std::unique_ptr<TemporaryFile>);
};
bool anyHeap(std::span<const uint8_t>) {
  return true;
}
// An ELF core first: users have cores far more often than heap dumps, and
// one given where a dump is read deserves better than "not a Go heap dump".
constexpr HeapReader kReaders[] = {
    {"ELF core file", core::isElfCore, openCore},
    {"heap dump", anyHeap, openDump},
};

// A heap dump or core in a file (or in memory), by the reader that claims it.
Expected<std::shared_ptr<const Session>> openFile(const LocalHeap& source, Sink& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  const std::vector<uint8_t> head = headOf(source);
  for (const HeapReader& reader : kReaders) {
    if (reader.claims(head)) return reader.open(source, observer, options, std::move(input));
  }
  return Error("no reader for " + displayName(source));  // unreachable: anyHeap claims all
}

// `error` with every mention of goheap's temporary copy of a heap (which is
// gone by the time the message is read) replaced by what the user gave.
Error naming(const Error& error, const std::string& temporary, const std::string& origin) {
  std::string message = error.message();
  for (size_t at = message.find(temporary); at != std::string::npos;
       at = message.find(temporary, at + origin.size())) {
    message.replace(at, temporary.size(), origin);
  }
  return Error(error.kind(), std::move(message));
}

// A heap served over HTTP, downloaded first: "request" until the server
// answers (the capture handler writes the whole dump before it does), then
// "download" with the size it announced.
Expected<std::shared_ptr<const Session>> openUrl(const std::string& url, const Source& source,
                                                 Sink& observer, const OpenOptions& options) {
  GOHEAP_TRY(TemporaryFile file, acquire::downloadHeap(url, observer));
  auto input = std::make_unique<TemporaryFile>(std::move(file));
  const std::string temporary = input->path();
  const LocalHeap local{temporary, {}, url, source.exe_path, source.label};
  auto session = openFile(local, observer, options, std::move(input));
  if (!session) return naming(session.error(), temporary, url);
  return session;
}

// A running process, snapped to a temporary core first.
Expected<std::shared_ptr<const Session>> openLiveProcess(int pid, const Source& source,
                                                         Sink& observer,
                                                         const OpenOptions& options) {
  GOHEAP_TRY(TemporaryFile file,
             TemporaryFile::create("snap-" + std::to_string(pid), ".core", observer));
  auto input = std::make_unique<TemporaryFile>(std::move(file));
  std::FILE* out = ::fdopen(::dup(input->fd()), "w");
  if (out == nullptr) {
    return Error::io("cannot write " + input->path() + ": " + std::strerror(errno));
  }
  acquire::SnapOptions snap;
  snap.sink = &observer;
  Expected<acquire::SnapResult> result = acquire::snapProcess(pid, out, snap);
  const bool closed = std::fclose(out) == 0;
  input->closeFd();
  if (!result) return result.error();
  if (!closed) return Error::io("cannot write " + input->path() + ": " + std::strerror(errno));
  observer.note("snapped process " + std::to_string(pid) + " (" + result->name +
                "): " + formatBytes(result->core_bytes) + ", " + acquire::describePause(*result));
  LocalHeap local{input->path(),
                  {},
                  "process " + std::to_string(pid) + " (" + result->name + ")",
                  source.exe_path,
                  source.label};
  if (!result->exe_path_reaches_it) {
    local.running_pid = pid;
    local.running_exe_path = result->exe_path;
  }
  return openFile(local, observer, options, std::move(input));
}

}  // namespace

Expected<std::shared_ptr<const Session>> open(const Source& source, Sink& sink,
                                              const OpenOptions& options) {
  // The phases of a heap with a label ("OLD") say whose they are.
  SuffixedSink labelled(sink, source.label.empty() ? std::string() : " (" + source.label + ")");
  Sink& observer = labelled;
  if (const auto* process = std::get_if<LiveProcess>(&source.heap)) {
    return openLiveProcess(process->pid, source, observer, options);
  }
  if (const auto* url = std::get_if<HeapUrl>(&source.heap)) {
    return openUrl(url->url, source, observer, options);
  }
  LocalHeap local{{}, {}, {}, source.exe_path, source.label};
  if (const auto* file = std::get_if<HeapFile>(&source.heap)) local.path = file->path;
  if (const auto* bytes = std::get_if<HeapBytes>(&source.heap)) local.bytes = bytes->bytes;
  return openFile(local, observer, options, nullptr);
}

Source Source::fromArgument(std::string argument, std::string exe_path, std::string label) {
  Source source;
  if (acquire::isHttpUrl(argument)) {
    source.heap = HeapUrl{std::move(argument)};
  } else {
    source.heap = HeapFile{std::move(argument)};
  }
  source.exe_path = std::move(exe_path);
  source.label = std::move(label);
  return source;
}

std::string Source::describe() const {
  if (const auto* file = std::get_if<HeapFile>(&heap)) return file->path;
  if (const auto* url = std::get_if<HeapUrl>(&heap)) return url->url;
  if (const auto* process = std::get_if<LiveProcess>(&heap)) {
    return "process " + std::to_string(process->pid);
  }
  return "<memory>";
}

}  // namespace goheap::query
