#include "query/program.h"

#include <utility>

#include "core/core_reader.h"
#include "query/debug_file.h"

namespace goheap::query {

DebugFileOptions debugFileOptions(const OpenOptions& options) {
  DebugFileOptions d = options.debug_files;
  if (d.store_dir.empty() && !d.debuginfod_urls.empty())
    d.store_dir = debugFileStore(options.cache_dir);
  return d;
}

Expected<bin::Binary> openProgram(const std::string& path, const OpenOptions& options, Sink& sink) {
  std::optional<Expected<bin::Binary>> exe;
  inPhase(sink, "read executable", [&] { exe.emplace(bin::Binary::open(path)); });
  if (*exe) attachDebugFile(**exe, path, debugFileOptions(options), sink);
  return std::move(*exe);
}

CoreProgram findCoreProgram(core::CoreFile core, const CoreProgramRequest& request,
                            const OpenOptions& options, Sink& sink) {
  CoreProgram p{std::move(core), {}, {}, std::nullopt, false};
  const std::string process_dir =
      request.running_pid != 0 ? "/proc/" + std::to_string(request.running_pid) : std::string();
  const std::string running_exe = process_dir.empty() ? std::string() : process_dir + "/exe";
  p.search = core::findExecutable(
      p.core, request.core_name,
      request.given_exe ? std::optional<std::string_view>(*request.given_exe) : std::nullopt,
      running_exe.empty() ? std::nullopt : std::optional<std::string_view>(running_exe));
  if (const core::ExecutableCandidate* found = p.search.executable()) {
    p.exe_path = found->path;
    p.program = std::move(p.search.opened);
    p.search.opened.reset();
    p.through_proc = !running_exe.empty() && found->path == running_exe;
  } else if (request.given_exe) {
    // The user's choice, shown with its checks though it does not match.
    if (Expected<core::CheckedExecutable> opened =
            core::openExecutable(p.core, *request.given_exe)) {
      p.exe_path = *request.given_exe;
      p.program.emplace(opened.take());
    }
  }
  if (p.program) {
    DebugFileOptions debug_files = debugFileOptions(options);
    if (p.through_proc) debug_files.process = {process_dir + "/root", request.running_exe_path};
    attachDebugFile(p.program->binary, p.exe_path, debug_files, sink);
  }
  return p;
}

CoreRuntimeReading readCoreRuntime(const CoreProgram& p, bool heap, bool goroutines) {
  CoreRuntimeReading r;
  if (!heap && !goroutines) return r;
  // Only the program's own executable says how its runtime lays out spans
  // and goroutines.
  Expected<core::CoreReader> reader =
      !p.program ? Expected<core::CoreReader>(Error("no executable"))
      : !p.program->match.matches()
          ? Expected<core::CoreReader>(Error(p.program->match.mismatch()))
          : core::CoreReader::open(p.core, p.program->binary, p.program->match.bias);
  if (heap) {
    if (!reader) {
      r.heap = reader.error();
    } else {
      WarningList heap_told(r.heap_warnings);
      r.heap = reader->walkHeap(heap_told);
      WarningList pointers_told(r.pointer_warnings);
      if (*r.heap) r.pointers = reader->readPointerMasks(**r.heap, pointers_told);
    }
  }
  if (goroutines) {
    WarningList told(r.goroutine_warnings);
    r.goroutines =
        reader ? reader->readGoroutines(told) : Expected<core::Goroutines>(reader.error());
  }
  return r;
}

}  // namespace goheap::query
