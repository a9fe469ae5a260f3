// bin::Binary: an executable opened for naming things: the mapping, its
// container (sections, symbols, arch), its pclntab and its Go version.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bin/container.h"
#include "bin/pclntab.h"
#include "bin/symbols.h"
#include "util/error.h"
#include "util/mapped_file.h"

namespace goheap::bin {

class Binary {
 public:
  // Maps `path` and reads its container and pclntab; an executable without a
  // readable pclntab is an Error (goheap needs it for every name).
  static Expected<Binary> open(const std::string& path);
  // The same over bytes the caller keeps alive (tests, fuzzing).
  static Expected<Binary> fromBytes(std::span<const uint8_t> bytes, std::string name);

  const std::string& path() const { return file_->path(); }
  const Container& container() const { return container_; }
  const Pclntab& pclntab() const { return *pclntab_; }
  // The sized symbols by address (empty for a stripped file).
  const SymbolIndex& symbols() const { return symbols_; }
  // "go1.24.4": from the build info blob, else runtime.buildVersion, else
  // "unknown".
  const std::string& goVersion() const { return go_version_; }
  // Where the Go version came from: "buildinfo", "runtime.buildVersion" or "".
  const std::string& goVersionSource() const { return go_version_source_; }

 private:
  Binary() = default;
  static Expected<Binary> build(std::unique_ptr<MappedFile> file);
  // The MappedFile lives on the heap so views into it survive moves of Binary.
  std::unique_ptr<MappedFile> file_;
  Container container_;
  std::optional<Pclntab> pclntab_;
  SymbolIndex symbols_;
  std::string go_version_ = "unknown";
  std::string go_version_source_;
};

// The Go version recorded in the executable: the build info header
// "\xff Go buildinf:" (inline strings since Go 1.18, pointers before), else
// the string runtime.buildVersion points at (needs the symbol table).
std::optional<std::string> goVersionFromBuildInfo(const Container& c);
std::optional<std::string> goVersionFromSymbol(const Container& c);

}  // namespace goheap::bin
