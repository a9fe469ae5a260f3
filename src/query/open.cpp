#include "query/open.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "acquire/http_download.h"
#include "acquire/snap.h"
#include "bin/binary.h"
#include "core/core_file.h"
#include "core/core_model.h"
#include "core/executable_match.h"
#include "core/find_executable.h"
#include "dump/reader.h"
#include "util/format.h"

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

// The heap's name in messages: its origin (a URL) when goheap made the
// file, else the path given.
const std::string& displayName(const Source& source) {
  return source.origin.empty() ? source.dump_path : source.origin;
}

// Analyses a model read from `source`, with the executable at `exe_path`
// (empty for none).
Expected<std::shared_ptr<const Session>> analyse(dump::Dump model, const Source& source,
                                                 const std::string& exe_path,
                                                 LoadObserver& observer, const OpenOptions& options,
                                                 std::unique_ptr<TemporaryFile> input) {
  const std::string suffix = source.label.empty() ? std::string() : " (" + source.label + ")";
  for (const std::string& w : model.warnings) {
    std::string text = displayName(source);
    observer.warning(text.append(": ").append(w));
  }
  model.origin = source.origin;

  analysis::LoadHooks hooks;
  hooks.begin_phase = [&](std::string_view name) {
    observer.beginPhase(std::string(name) + suffix, 0);
  };
  hooks.progress = [&](uint64_t done, uint64_t) { observer.progress(done); };
  hooks.end_phase = [&] { observer.endPhase(); };
  analysis::LoadOptions load;
  load.threads = options.threads;
  load.conservative_stacks = options.conservative_stacks;
  load.exe_path = exe_path;
  load.type_objects = options.type_objects;
  Expected<std::unique_ptr<analysis::Snapshot>> snapshot =
      analysis::buildSnapshot(std::move(model), hooks, load);
  if (!snapshot) return snapshot.error();
  const analysis::Snapshot& s = **snapshot;
  if (!s.exe_problem.empty()) {
    observer.warning((source.label.empty() ? std::string() : displayName(source) + ": ") +
                     "not using the executable: " + s.exe_problem +
                     "; carrying on from the dump alone");
  }
  if (!s.types_problem.empty()) {
    observer.note("no types from the executable (" + s.types_problem +
                  "); objects are named by allocation site, interface and shape");
  }
  return std::make_shared<const Session>(snapshot.take(), options.answer_cache_bytes,
                                         std::move(input));
}

// A core file: its executable found (or the one given checked), then the
// process's heap read into the model.
Expected<std::shared_ptr<const Session>> openCore(const Source& source, LoadObserver& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  const std::string suffix = source.label.empty() ? std::string() : " (" + source.label + ")";
  const bool in_memory = source.dump_path.empty();
  const std::string name = in_memory ? std::string("<memory>") : displayName(source);
  Expected<core::CoreFile> core = in_memory ? core::CoreFile::fromBytes(source.dump_bytes)
                                            : core::CoreFile::open(source.dump_path);
  if (!core) return core.error();
  const core::ExecutableSearch search = core::findExecutable(
      *core, name,
      source.exe_path.empty() ? std::nullopt : std::optional<std::string_view>(source.exe_path));
  const core::ExecutableCandidate* found = search.executable();
  if (found == nullptr) {
    return Error::needsInput(search.explain(name) +
                             "\n(a core holds the process's memory but not its program: give the "
                             "executable after the core, as in `goheap summary CORE EXE`)");
  }
  Expected<bin::Binary> exe = bin::Binary::open(found->path);
  if (!exe) return exe.error();
  const core::ExecutableMatch match = core::checkExecutable(*core, exe->container(), found->path);
  Expected<MappedFile> file = in_memory
                                  ? Expected<MappedFile>(MappedFile::borrow(source.dump_bytes))
                                  : MappedFile::open(source.dump_path);
  if (!file) return file.error();

  core::CoreModelHooks hooks;
  hooks.begin_phase = [&](std::string_view phase) {
    observer.beginPhase(std::string(phase) + suffix, 0);
  };
  hooks.end_phase = [&] { observer.endPhase(); };
  Expected<dump::Dump> model = core::readCoreModel(*core, file.take(), *exe, match.bias, hooks);
  if (!model) return model.error().inFile(name);
  if (found->from != "the command line") {
    observer.note(name + ": using the executable " + found->path + " (found through " +
                  found->from + ")");
  }
  return analyse(model.take(), source, found->path, observer, options, std::move(input));
}

// A dump or core in a file (or in memory); `input` is that file when
// goheap made it, to be removed with the Session.
Expected<std::shared_ptr<const Session>> openFile(const Source& source, LoadObserver& observer,
                                                  const OpenOptions& options,
                                                  std::unique_ptr<TemporaryFile> input) {
  if (looksLikeCore(source)) return openCore(source, observer, options, std::move(input));
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
  if (!dump) return dump.error();
  return analyse(dump.take(), source, source.exe_path, observer, options, std::move(input));
}

// `error` with every mention of goheap's temporary copy of a heap (which is
// gone by the time the message is read) replaced by what the user gave.
Error naming(const Error& error, const std::string& temporary, const std::string& origin) {
  std::string message = error.message();
  for (size_t at = message.find(temporary); at != std::string::npos;
       at = message.find(temporary, at + origin.size())) {
    message.replace(at, temporary.size(), origin);
  }
  return error.needsInput() ? Error::needsInput(std::move(message)) : Error(std::move(message));
}

// A heap served over HTTP, downloaded first: "request" until the server
// answers (the capture handler writes the whole dump before it does), then
// "download" with the size it announced.
Expected<std::shared_ptr<const Session>> openUrl(const Source& source, LoadObserver& observer,
                                                 const OpenOptions& options) {
  const std::string suffix = source.label.empty() ? std::string() : " (" + source.label + ")";
  observer.beginPhase("request" + suffix, 0);
  acquire::DownloadHooks hooks;
  hooks.receiving = [&](uint64_t total) {
    observer.endPhase();
    observer.beginPhase("download" + suffix, total);
  };
  hooks.progress = [&](uint64_t done, uint64_t) { observer.progress(done); };
  Expected<TemporaryFile> file = acquire::downloadHeap(source.dump_path, hooks);
  observer.endPhase();
  if (!file) return file.error();
  auto input = std::make_unique<TemporaryFile>(file.take());
  const std::string temporary = input->path();
  Source local = source;
  local.dump_path = temporary;
  local.origin = source.dump_path;
  auto session = openFile(local, observer, options, std::move(input));
  if (!session) return naming(session.error(), temporary, source.dump_path);
  return session;
}

// A running process, snapped to a temporary core first.
Expected<std::shared_ptr<const Session>> openLiveProcess(const Source& source,
                                                         LoadObserver& observer,
                                                         const OpenOptions& options) {
  const std::string suffix = source.label.empty() ? std::string() : " (" + source.label + ")";
  Expected<TemporaryFile> file =
      TemporaryFile::create("snap-" + std::to_string(source.pid), ".core");
  if (!file) return file.error();
  auto input = std::make_unique<TemporaryFile>(file.take());
  std::FILE* out = ::fdopen(::dup(input->fd()), "w");
  if (out == nullptr) return Error("cannot write " + input->path() + ": " + std::strerror(errno));
  acquire::SnapOptions snap;
  snap.begin_phase = [&](std::string_view phase, uint64_t total) {
    observer.beginPhase(std::string(phase) + suffix, total);
  };
  snap.progress = [&](uint64_t done) { observer.progress(done); };
  snap.end_phase = [&] { observer.endPhase(); };
  Expected<acquire::SnapResult> result = acquire::snapProcess(source.pid, out, snap);
  const bool closed = std::fclose(out) == 0;
  input->closeFd();
  if (!result) return result.error();
  if (!closed) return Error("cannot write " + input->path() + ": " + std::strerror(errno));
  observer.note("snapped process " + std::to_string(source.pid) + " (" + result->name +
                "): paused " + formatDuration(static_cast<double>(result->pause_ns) / 1e9) + ", " +
                formatBytes(result->core_bytes));
  Source local = source;
  local.pid = 0;
  local.dump_path = input->path();
  local.origin = "process " + std::to_string(source.pid) + " (" + result->name + ")";
  return openFile(local, observer, options, std::move(input));
}

}  // namespace

Expected<std::shared_ptr<const Session>> open(const Source& source, LoadObserver& observer,
                                              const OpenOptions& options) {
  if (source.pid != 0) return openLiveProcess(source, observer, options);
  if (acquire::isHttpUrl(source.dump_path)) return openUrl(source, observer, options);
  return openFile(source, observer, options, nullptr);
}

}  // namespace goheap::query
