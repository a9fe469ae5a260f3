// bin::Binary: an executable opened for naming things: the mapping, its
// container (sections, symbols, arch), its pclntab and its Go version.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bin/buildinfo.h"
#include "bin/container.h"
#include "bin/debug_info.h"
#include "bin/inline.h"
#include "bin/pclntab.h"
#include "bin/symbols.h"
#include "util/error.h"
#include "util/mapped_file.h"

namespace goheap::bin {

// Link-time address ranges of the runtime's first module. A heap dump's data
// and bss segments are [data, edata) and [bss, ebss) at run time (plus the
// load bias of a position-independent executable).
struct ModuleLayout {
  uint64_t text = 0, etext = 0;
  uint64_t noptrdata = 0, enoptrdata = 0;
  uint64_t data = 0, edata = 0;
  uint64_t bss = 0, ebss = 0;
  uint64_t noptrbss = 0, enoptrbss = 0;
  uint64_t gofunc = 0;  // base of funcdata offsets (Go 1.18+), 0 if unknown
  // runtime.types: the type descriptors' base, which DWARF's
  // DW_AT_go_runtime_type is an offset from; 0 if unknown.
  uint64_t types = 0;
  // From moduledata only (0 otherwise): where the type descriptors end
  // (etypes); Go 1.27's typedesclen, the descriptors' part of
  // [types, etypes); and the typelinks ([]int32 offsets from types) and
  // itablinks ([]*itab) slices of Go 1.16-1.26, which Go 1.27 removed.
  uint64_t etypes = 0, type_descriptors_size = 0;
  uint64_t typelinks = 0, typelinks_count = 0;
  uint64_t itablinks = 0, itablinks_count = 0;
  std::string source;  // "moduledata", "symbols" or "sections"
};

class Binary {
 public:
  // Maps `path` and reads its container and pclntab; an executable without a
  // readable pclntab is an Error (goheap needs it for every name).
  static Expected<Binary> open(const std::string& path);
  // The same over bytes [offset, offset + size) of the file at `path`: an
  // executable carried inside another file (a core of `goheap snap -o -`).
  // path() is then the carrying file's.
  static Expected<Binary> openPart(const std::string& path, uint64_t offset, uint64_t size);
  // The same over bytes the caller keeps alive (tests, fuzzing).
  static Expected<Binary> fromBytes(std::span<const uint8_t> bytes, std::string name);

  const std::string& path() const { return file_->path(); }
  const Container& container() const { return container_; }
  const Pclntab& pclntab() const { return *pclntab_; }
  // The sized symbols by address (empty for a stripped file).
  const SymbolIndex& symbols() const { return symbols_; }
  // "go1.24.4": from the build info blob, else runtime.buildVersion (by its
  // symbol, else by its string header in data: build_version.h), else
  // "unknown".
  const std::string& goVersion() const { return go_version_; }
  // Where the Go version came from: "buildinfo", "runtime.buildVersion",
  // "runtime.buildVersion header" or "".
  const std::string& goVersionSource() const { return go_version_source_; }

  // The module information of the build (Go 1.13+ module builds; also the
  // build settings since 1.18), if the file has it and it parses; when it
  // does not parse, buildInfoError() says why.
  const std::optional<BuildInfo>& buildInfo() const { return build_info_; }
  const std::string& buildInfoError() const { return build_info_error_; }
  // The Go build ID (as `go tool buildid` prints it); empty when none.
  const std::string& buildId() const { return build_id_; }

  // The source frames at a return address (Pclntab::lookup semantics),
  // innermost first: the calls inlined at that PC, then the physical
  // function, as runtime.CallersFrames expands them (names as the pclntab
  // spells them; see funcNameForPrint). Files older than Go 1.12, and Go
  // 1.18+ files whose gofunc is unknown, give the physical frame only. An
  // Error when no function holds the PC or the inline tree is unreadable.
  Expected<std::vector<SourceFrame>> symbolize(uint64_t pc) const;
  // The line of a function's declaration: _func.startLine since Go 1.20,
  // before that the line of its entry PC; 0 when unknown.
  int64_t startLine(const Func& f) const;
  // Where the runtime's data, bss and text are, if the file tells: from the
  // runtime's firstmoduledata (stripped files too; also gives gofunc), else
  // from the linker's range symbols, else from the section headers.
  const std::optional<ModuleLayout>& moduleLayout() const { return module_layout_; }
  // The mapped file itself, to ask whether it changed on disk.
  const MappedFile& file() const { return *file_; }

  // The executable's DWARF, parsed once, on first use, by whichever stage
  // asks first (the core reader for the runtime's layouts, the typing for
  // the objects' types); null when the file has none or it cannot be read,
  // and debugInfoProblem() says why. Safe to call from several threads.
  const DebugInfo* debugInfo() const;
  const std::string& debugInfoProblem() const;

  // Reads the DWARF from `path`, a separate debug file of this executable
  // (`objcopy --only-keep-debug`: the executable's sections at the same
  // addresses; see bin/debug_file_search.h), instead of from the executable
  // itself. `found_by` says how it was found ("build ID", ".gnu_debuglink",
  // "debuginfod http://..."), for debugFileFoundBy(). Call it before the
  // first debugInfo(). An Error when the file cannot be read or is not this
  // executable's (debugFileMismatch); the Binary is then unchanged.
  Status useDebugFile(const std::string& path, std::string found_by);
  // Why no separate debug file was found, added to debugInfoProblem() when
  // the executable has no DWARF of its own. Call it before debugInfo().
  void noteDebugFileSearch(std::string explanation);
  // The separate debug file the DWARF is read from; empty when it is read
  // from the executable.
  const std::string& debugFilePath() const;
  const std::string& debugFileFoundBy() const;
  // The separate debug file's mapping (for the index cache's key); null when
  // there is none.
  const MappedFile* debugFile() const { return dwarf_->file.get(); }
  // How many times this Binary parsed its DWARF: 0 or 1 (tests).
  int debugInfoReads() const { return dwarf_->reads; }

 private:
  struct LazyDebugInfo {
    std::once_flag once;
    std::unique_ptr<DebugInfo> info;
    std::string problem;
    int reads = 0;
    // A separate debug file (useDebugFile): its mapping and container,
    // which the DebugInfo's views point into.
    std::unique_ptr<MappedFile> file;
    std::optional<Container> container;
    std::string path, found_by;
    std::string search_note;  // noteDebugFileSearch
  };

  Binary() = default;
  static Expected<Binary> build(std::unique_ptr<MappedFile> file);
  // The MappedFile lives on the heap so views into it survive moves of Binary.
  std::unique_ptr<MappedFile> file_;
  Container container_;
  std::optional<Pclntab> pclntab_;
  SymbolIndex symbols_;
  std::string go_version_ = "unknown";
  std::string go_version_source_;
  std::optional<ModuleLayout> module_layout_;
  std::optional<InlineTreeFormat> inline_format_;
  std::optional<BuildInfo> build_info_;
  std::string build_info_error_;
  std::string build_id_;
  // On the heap, so that a moved Binary keeps what it read.
  std::unique_ptr<LazyDebugInfo> dwarf_ = std::make_unique<LazyDebugInfo>();
};

// The module layout from the runtime's range symbols (runtime.data,
// runtime.edata, ...), else from the sections named .data/.bss (__data/__bss).
std::optional<ModuleLayout> moduleLayoutFromSymbols(const Container& c);

// The Go version recorded in the executable: the build info header
// "\xff Go buildinf:" (inline strings since Go 1.18, pointers before), else
// the string runtime.buildVersion points at (needs the symbol table).
std::optional<std::string> goVersionFromBuildInfo(const Container& c);
std::optional<std::string> goVersionFromSymbol(const Container& c);

}  // namespace goheap::bin
