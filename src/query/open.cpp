#include "query/open.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <variant>
#include <vector>

#include "acquire/http_download.h"
#include "acquire/snap.h"
#include "bin/binary.h"
#include "cache/cache_key.h"
#include "cache/index_file.h"
#include "cache/model_index.h"
#include "cache/snapshot_index.h"
#include "core/core_file.h"
#include "core/core_model.h"
#include "core/executable_match.h"
#include "core/find_executable.h"
#include "dump/reader.h"
#include "util/format.h"
#include "util/version.h"

namespace goheap::query {

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
  ExecutableOnce(std::string path, Sink& sink) : path_(std::move(path)) {
    if (path_.empty()) return;
    inPhase(sink, "read executable", [&] { binary_.emplace(bin::Binary::open(path_)); });
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

// The index cache for one heap: its folder, its key, and the entry once
// looked up and verified (null when there is none, or it did not read).
struct CacheSlot {
  cache::CacheDirectory directory;
  cache::Key key;
  int64_t heap_mtime_ns = 0;  // as the key saw it, for the entry's description
  bool looked_up = false;
  std::shared_ptr<const cache::IndexFile> index;
};

// The cache slot of a heap in a file the user gave (a temporary copy, made
// from a URL or a live process, is never seen again, so it is not cached),
// or nothing when caching is off or the heap cannot be told apart.
// `executable`: the one the heap is read with, opened once by open(); an
// executable that was given (`exe_path`) but cannot be opened is not worth
// a cache entry (the warning says why).
std::optional<CacheSlot> cacheSlotFor(const LocalHeap& source, const std::string& exe_path,
                                      const bin::Binary* executable, Sink& observer,
                                      const OpenOptions& options, bool temporary_input) {
  if (!options.use_cache || source.path.empty() || temporary_input) return std::nullopt;
  // Only a regular file can be told apart later (and opening a FIFO to
  // fingerprint it would block, or consume it).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source.path, ec)) return std::nullopt;
  cache::CacheDirectory directory =
      cache::CacheDirectory::open(options.cache_dir, options.cache_size_bytes);
  if (std::optional<std::string> why = directory.takeWarning()) observer.warning(*why);
  if (!directory.usable()) return std::nullopt;
  cache::KeyInputs inputs;
  Expected<cache::FileFingerprint> heap = cache::fingerprintOf(source.path);
  if (!heap) return std::nullopt;
  inputs.heap = *heap;
  if (!exe_path.empty()) {
    if (executable == nullptr) return std::nullopt;
    inputs.executable = cache::fingerprintOf(*executable);
  }
  inputs.options.conservative_stacks = options.conservative_stacks;
  inputs.options.type_objects = options.type_objects;
  return CacheSlot{std::move(directory), cache::computeKey(inputs), heap->identity.mtime_ns, false,
                   nullptr};
}

// Drops the slot's entry as unusable: one warning, and the file removed, to
// be written again by this run.
void refuseEntry(CacheSlot& slot, const Error& why, Sink& observer) {
  observer.warning("ignoring the index cache entry " + slot.directory.entryPath(slot.key) + " (" +
                   why.message() + "); computing it again");
  slot.directory.remove(slot.key);
  slot.index = nullptr;
}

// Looks the slot's entry up and verifies it whole (its checksums), once.
void lookUp(CacheSlot& slot, Sink& observer, const OpenOptions& options) {
  if (slot.looked_up) return;
  slot.looked_up = true;
  std::optional<std::string> path = slot.directory.lookup(slot.key);
  if (!path) return;
  observer.beginPhase("read index cache", 0);
  Expected<std::shared_ptr<const cache::IndexFile>> index =
      cache::IndexFile::open(*path, slot.key, std::max(1u, options.threads));
  observer.endPhase();
  if (!index) return refuseEntry(slot, index.error(), observer);
  slot.index = index.take();
}

// The snapshot of `model` from the slot's entry, when it has one that fits;
// otherwise null, with `model` as it was and the entry refused.
// `model_from_entry`: the model came from the entry too, sorted already.
std::unique_ptr<analysis::Snapshot> restoreFromEntry(CacheSlot& slot, model::HeapModel& model,
                                                     bool model_from_entry,
                                                     const analysis::LoadOptions& load,
                                                     Sink& observer) {
  if (!slot.index) return nullptr;
  Expected<analysis::ComputedParts> parts = cache::readSnapshotSections(*slot.index);
  if (!parts) {
    refuseEntry(slot, parts.error(), observer);
    return nullptr;
  }
  Expected<std::unique_ptr<analysis::Snapshot>> snapshot =
      analysis::restoreSnapshot(model, parts.take(), slot.index, load, model_from_entry, observer);
  if (!snapshot) {
    refuseEntry(slot, snapshot.error(), observer);
    return nullptr;
  }
  return snapshot.take();
}

// Writes what `s` computed (and its model, a heap dump's) into the cache.
Status storeInCache(CacheSlot& slot, const analysis::Snapshot& s, const LocalHeap& source,
                    const std::string& exe_path) {
  const analysis::ComputedParts parts = analysis::computedPartsOf(s);
  cache::IndexWriter writer;
  cache::addSnapshotSections(parts, writer);
  cache::addModelSections(s.model, writer);
  cache::EntryDescription description;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(source.path, ec);
  description.input_path = ec ? source.path : absolute.lexically_normal().string();
  description.input_size = s.model.file().size();
  description.input_mtime_ns = slot.heap_mtime_ns;
  if (!exe_path.empty()) {
    const std::filesystem::path exe = std::filesystem::absolute(exe_path, ec);
    description.exe_path = ec ? exe_path : exe.lexically_normal().string();
  }
  description.goheap_version = std::string(kGoheapVersion);
  description.created_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  writer.setDescription(description);
  return slot.directory.store(slot.key, writer);
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

// The Session of a finished snapshot, with what the user should know of
// it. With `slot`, the snapshot is written into the cache while the Session
// answers (writing a big index costs about a quarter of computing it).
std::shared_ptr<const Session> finish(std::unique_ptr<analysis::Snapshot> snapshot,
                                      const LocalHeap& source, Sink& observer,
                                      const OpenOptions& options,
                                      std::unique_ptr<TemporaryFile> input,
                                      std::optional<CacheSlot> slot = std::nullopt,
                                      const std::string& exe_path = {}) {
  const analysis::Snapshot& s = *snapshot;
  if (!s.exe_problem.empty()) {
    observer.warning((source.label.empty() ? std::string() : displayName(source) + ": ") +
                     "not using the executable: " + s.exe_problem +
                     "; carrying on from the dump alone");
  }
  if (!s.types_problem.empty()) {
    observer.note("no types from the executable (" + s.types_problem +
                  "); objects are named by allocation site, interface and shape");
  }
  auto session =
      std::make_shared<Session>(std::move(snapshot), options.answer_cache_bytes, std::move(input));
  if (slot) {
    session->runInBackground(
        [slot = std::move(*slot), source, exe_path,
         warn = options.background_warning](const analysis::Snapshot& written) mutable {
          Status stored = storeInCache(slot, written, source, exe_path);
          if (!stored && warn) warn(stored.error().message());
        });
  }
  return session;
}

// Analyses a model read from `source`, with `executable`, through the
// index cache when `slot` has this heap, and into it when not.
Expected<std::shared_ptr<const Session>> analyse(model::HeapModel model, const LocalHeap& source,
                                                 const analysis::Executable& executable,
                                                 Sink& observer, const OpenOptions& options,
                                                 std::unique_ptr<TemporaryFile> input,
                                                 std::optional<CacheSlot> slot) {
  const std::string exe_path = executable.path;
  const analysis::LoadOptions load = loadOptions(executable, options);
  reportModelWarnings(model, source, observer);
  std::unique_ptr<analysis::Snapshot> restored;
  if (slot) {
    lookUp(*slot, observer, options);
    restored = restoreFromEntry(*slot, model, false, load, observer);
  }
  Expected<std::unique_ptr<analysis::Snapshot>> snapshot =
      restored ? Expected<std::unique_ptr<analysis::Snapshot>>(std::move(restored))
               : analysis::buildSnapshot(std::move(model), load, observer);
  if (!snapshot) return snapshot.error();
  if (slot && (*snapshot)->backing) slot.reset();  // read from the cache: nothing to write
  return finish(snapshot.take(), source, observer, options, std::move(input), std::move(slot),
                exe_path);
}

// A heap dump whose model and analysis are both in the slot's entry: the
// dump is mapped, not read. Null when the entry has no model or it does not
// fit (then the entry is refused, and the dump is read as without it).
std::shared_ptr<const Session> openFromEntry(CacheSlot& slot, const LocalHeap& source,
                                             ExecutableOnce& executable, Sink& observer,
                                             const OpenOptions& options) {
  lookUp(slot, observer, options);
  if (!slot.index || !cache::hasModel(*slot.index)) return nullptr;
  Expected<MappedFile> file = MappedFile::open(source.path);
  if (!file) return nullptr;  // the reader says why
  Expected<model::HeapModel> model = cache::readModelSections(*slot.index, file.take());
  if (!model) {
    refuseEntry(slot, model.error(), observer);
    return nullptr;
  }
  const analysis::LoadOptions load = loadOptions(executable.boundTo(*model), options);
  std::unique_ptr<analysis::Snapshot> restored =
      restoreFromEntry(slot, *model, true, load, observer);
  if (!restored) return nullptr;
  reportModelWarnings(restored->model, source, observer);
  return finish(std::move(restored), source, observer, options, nullptr);
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
  core::ExecutableSearch search = core::findExecutable(
      *core, name,
      source.exe_path.empty() ? std::nullopt : std::optional<std::string_view>(source.exe_path));
  const core::ExecutableCandidate* found = search.executable();
  if (found == nullptr) {
    return Error::needsInput(search.explain(name) +
                             "\n(a core holds the process's memory but not its program: give the "
                             "executable after the core, as in `goheap summary CORE EXE`)");
  }
  const core::ExecutableMatch match = std::move(search.opened->match);
  ExecutableOnce exe(found->path, std::move(search.opened->binary));
  search.opened.reset();
  Expected<MappedFile> file = in_memory ? Expected<MappedFile>(MappedFile::borrow(source.bytes))
                                        : MappedFile::open(source.path);
  if (!file) return file.error();

  Expected<model::HeapModel> model =
      core::readCoreModel(*core, file.take(), *exe.binary(), match.bias, observer);
  if (!model) return model.error().inFile(name);
  if (found->from != "the command line") {
    observer.note(name + ": using the executable " + found->path + " (found through " +
                  found->from + ")");
  }
  std::optional<CacheSlot> slot =
      cacheSlotFor(source, found->path, exe.binary(), observer, options, input != nullptr);
  const analysis::Executable& bound = exe.boundTo(*model, match.bias);
  return analyse(model.take(), source, bound, observer, options, std::move(input), std::move(slot));
}

// A heap dump in a file (or in memory); `input` is that file when goheap
// made it, to be removed with the Session.
Expected<std::shared_ptr<const Session>> openDump(const LocalHeap& source, Sink& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  ExecutableOnce exe(source.exe_path, observer);
  std::optional<CacheSlot> slot =
      cacheSlotFor(source, exe.path(), exe.binary(), observer, options, input != nullptr);
  if (slot) {
    if (std::shared_ptr<const Session> cached =
            openFromEntry(*slot, source, exe, observer, options)) {
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
  Expected<model::HeapModel> dump = in_memory
                                        ? dump::readDump(MappedFile::borrow(source.bytes), read)
                                        : dump::readDumpFile(source.path, read);
  observer.endPhase();
  if (!dump) return dump.error();
  const analysis::Executable& bound = exe.boundTo(*dump);
  return analyse(dump.take(), source, bound, observer, options, std::move(input), std::move(slot));
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
  Expected<TemporaryFile> file = acquire::downloadHeap(url, observer);
  if (!file) return file.error();
  auto input = std::make_unique<TemporaryFile>(file.take());
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
  Expected<TemporaryFile> file = TemporaryFile::create("snap-" + std::to_string(pid), ".core");
  if (!file) return file.error();
  auto input = std::make_unique<TemporaryFile>(file.take());
  std::FILE* out = ::fdopen(::dup(input->fd()), "w");
  if (out == nullptr) return Error("cannot write " + input->path() + ": " + std::strerror(errno));
  acquire::SnapOptions snap;
  snap.sink = &observer;
  Expected<acquire::SnapResult> result = acquire::snapProcess(pid, out, snap);
  const bool closed = std::fclose(out) == 0;
  input->closeFd();
  if (!result) return result.error();
  if (!closed) return Error("cannot write " + input->path() + ": " + std::strerror(errno));
  observer.note("snapped process " + std::to_string(pid) + " (" + result->name + "): paused " +
                formatDuration(static_cast<double>(result->pause_ns) / 1e9) + ", " +
                formatBytes(result->core_bytes));
  const LocalHeap local{input->path(),
                        {},
                        "process " + std::to_string(pid) + " (" + result->name + ")",
                        source.exe_path,
                        source.label};
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
